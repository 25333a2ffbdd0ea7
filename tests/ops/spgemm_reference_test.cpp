// The reference SpGEMM against a dense brute-force oracle, for every semiring and mask mode.
#include "ops/spgemm_test_support.hpp"

namespace spk {
namespace {

using test::MaskMode;

TEST(SpgemmReference, MatchesDenseOracleForEverySemiringAndMask) {
    const std::uint64_t seed = test::seed("spgemm_reference");
    const auto ref = Executor::reference();
    for (int round = 0; round < 4; ++round) {
        const index_t m = 5 + round * 4, k = 7 + round * 3, n = 6 + round * 5;
        const auto a = test::random_with_zeros<double, std::int32_t>(m, k, 3.0, seed + 10 * round);
        const auto b = test::random_with_zeros<double, std::int32_t>(k, n, 3.0, seed + 10 * round + 1);
        const auto mask = test::random_csr<double, std::int32_t>(m, n, 0.4 * static_cast<double>(n), seed + 10 * round + 2);
        for (const Semiring s : test::all_semirings())
            for (const MaskMode mode : {MaskMode::none, MaskMode::mask, MaskMode::complement}) {
                SCOPED_TRACE(std::string(to_string(s)) + " mask " + test::to_string(mode) + " round " + std::to_string(round));
                const SpgemmOptions options{.semiring = s, .complement_mask = mode == MaskMode::complement};
                const auto mask_view = mode == MaskMode::none ? std::nullopt : std::optional(mask.view());
                const auto c = spgemm(ref, a.view(), b.view(), options, mask_view);
                EXPECT_EQ(c.rows(), m);
                EXPECT_EQ(c.cols(), n);
                const auto expected = test::dense_oracle(a, b, s, mode, mode == MaskMode::none ? nullptr : &mask);
                EXPECT_TRUE(test::same_entries(test::entries_of(c, true), expected, 1e-12));
            }
    }
}

TEST(SpgemmReference, CancellationKeepsTheEntry) {
    // [1 1] · [1; -1] = [0]: the entry is reached, so it stays in the pattern.
    const Csr<double, std::int32_t> a(Executor::cpu(), 1, 2, std::vector<std::int32_t>{0, 2}, {0, 1}, {1.0, 1.0});
    const Csr<double, std::int32_t> b(Executor::cpu(), 2, 1, std::vector<std::int32_t>{0, 1, 2}, {0, 0}, {1.0, -1.0});
    const auto c = spgemm(Executor::reference(), a.view(), b.view());
    ASSERT_EQ(c.nnz(), 1);
    EXPECT_EQ(c.values()[0], 0.0);
}

TEST(SpgemmReference, UnsortedInputGivesTheSameProduct) {
    const std::uint64_t seed = test::seed("spgemm_reference_unsorted");
    const auto a = test::random_csr<double, std::int64_t>(17, 13, 4.0, seed);
    const auto b = test::random_csr<double, std::int64_t>(13, 19, 4.0, seed + 1);
    const auto su = test::shuffled_rows(a, seed + 2), bu = test::shuffled_rows(b, seed + 3);
    const auto sorted = spgemm(Executor::reference(), a.view(), b.view());
    const auto unsorted = spgemm(Executor::reference(), su.view(), bu.view());
    EXPECT_TRUE(test::same_entries(test::entries_of(unsorted, true), test::entries_of(sorted, true), 1e-12));
}

}  // namespace
}  // namespace spk
