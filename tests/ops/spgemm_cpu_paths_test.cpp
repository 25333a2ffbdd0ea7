// The cpu SpGEMM's data-dependent paths against the reference: the symbolic phase counts with
// B's compressed rows when they pack many columns per 64-column block (banded B) and with plain
// column tags otherwise (scattered B); the numeric phase keeps rows of up to 8 and up to 32
// entries in small arrays, longer ones in a hash map or a dense array.
#include "ops/spgemm_test_support.hpp"

namespace spk {
namespace {

template <class T>
class SpgemmCpuPaths : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmCpuPaths, test::FloatBackendTypes);

// A·B on every backend under test against the reference, for two semirings, with and without
// a mask (every other entry of the product, so that C<M> and C<!M> both keep entries).
template <class V, class I>
void expect_all_match_reference(const Csr<V, I>& a, const Csr<V, I>& b) {
    const auto full = spgemm(Executor::reference(), a.view(), b.view());
    auto mask_col = full.col_idx().to_vector();
    auto mask_ptr = full.row_ptr().to_vector();
    std::vector<I> ptr{0}, col;
    for (index_t i = 0; i < full.rows(); ++i) {
        for (index_t q = mask_ptr[i]; q < mask_ptr[i + 1]; ++q)
            if (q % 2 == 0) col.push_back(mask_col[q]);
        ptr.push_back(static_cast<I>(col.size()));
    }
    const Csr<V, I> mask(Executor::cpu(), full.rows(), full.cols(), ptr, col, std::vector<V>(col.size(), V(1)));
    for (const Semiring s : {Semiring::plus_times, Semiring::min_plus})
        for (const test::MaskMode mode : {test::MaskMode::none, test::MaskMode::mask, test::MaskMode::complement})
            for (const bool sorted : {true, false}) {
                const SpgemmOptions options{.semiring = s, .complement_mask = mode == test::MaskMode::complement, .sorted = sorted};
                const auto mask_view = mode == test::MaskMode::none ? std::nullopt : std::optional(mask.view());
                const auto expected = test::entries_of(spgemm(Executor::reference(), a.view(), b.view(), options, mask_view), true);
                for (const Executor& exec : test::host_backends()) {
                    SCOPED_TRACE(exec.name() + " " + std::string(to_string(s)) + " mask " + test::to_string(mode) +
                                 (sorted ? " sorted" : " unsorted"));
                    const auto c = spgemm(exec, a.view(), b.view(), options, mask_view);
                    EXPECT_TRUE(test::same_entries(test::entries_of(c, sorted), expected, test::rtol_for<V>(), 10 * test::rtol_for<V>()));
                }
            }
}

TYPED_TEST(SpgemmCpuPaths, BandedProductCountsCompressedBlocks) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    // 41 columns a row in one or two blocks: the compressed counter; C's rows (81 entries of 300
    // columns) use the dense accumulator.
    const auto a = generate<V, I>("banded:n=300,half_width=20,seed=" + std::to_string(test::seed("spgemm_cpu_banded")));
    expect_all_match_reference(a, a);
}

TYPED_TEST(SpgemmCpuPaths, ScatteredShortRows) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spgemm_cpu_short_rows");
    // Many columns, about 2 and 4 entries a row: the plain counter, C's rows of up to 8 and of
    // 9 to 32 entries.
    for (const double per_row : {2.0, 4.0}) {
        const auto a = test::random_with_zeros<V, I>(500, 3000, per_row, seed + static_cast<std::uint64_t>(per_row));
        const auto b = test::random_with_zeros<V, I>(3000, 5000, per_row, seed + 10 + static_cast<std::uint64_t>(per_row));
        expect_all_match_reference(a, b);
    }
}

}  // namespace
}  // namespace spk
