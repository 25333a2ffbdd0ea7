// spgemm_to_host: C computed in chunks of rows under a memory budget, gathered in host memory.
// On the host backends a budget forces the chunking too, so its cuts are checked here: every
// budget, from one row a chunk to one chunk, gives exactly spgemm's result.
#include "ops/spgemm_test_support.hpp"

namespace spk {
namespace {

template <class T>
class SpgemmToHost : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmToHost, test::FloatBackendTypes);

template <class V, class I>
void expect_same(const Csr<V, I>& got, const Csr<V, I>& want) {
    ASSERT_EQ(got.rows(), want.rows());
    ASSERT_EQ(got.cols(), want.cols());
    EXPECT_EQ(got.row_ptr().to_vector(), want.row_ptr().to_vector());
    EXPECT_EQ(got.col_idx().to_vector(), want.col_idx().to_vector());
    EXPECT_EQ(got.values().to_vector(), want.values().to_vector());
    EXPECT_EQ(got.sorted(), want.sorted());
}

TYPED_TEST(SpgemmToHost, EveryBudgetGivesTheWholeProduct) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spgemm_to_host");
    const auto a = test::random_csr<V, I>(157, 90, 4.0, seed);
    const auto b = test::random_csr<V, I>(90, 120, 5.0, seed + 1);
    const auto m = test::random_csr<V, I>(157, 120, 30.0, seed + 2);
    for (const Executor& exec : test::host_backends())
        for (const bool with_mask : {false, true})
            for (const bool complement : {false, true}) {
                if (complement && !with_mask) continue;
                const auto mask = with_mask ? std::optional(m.view()) : std::nullopt;
                SpgemmOptions options{.semiring = Semiring::plus_times, .complement_mask = complement};
                const auto whole = spgemm(exec, a.view(), b.view(), options, mask);
                for (const std::size_t budget : {std::size_t{1}, std::size_t{200}, std::size_t{4000}, std::size_t{1} << 30}) {
                    SCOPED_TRACE(exec.name() + " budget " + std::to_string(budget) + (with_mask ? " mask" : "") + (complement ? " !" : ""));
                    options.memory_budget = budget;
                    expect_same(spgemm_to_host(exec, a.view(), b.view(), options, mask), whole);
                }
            }
}

TYPED_TEST(SpgemmToHost, EmptyRowsSemiringsAndShapes) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spgemm_to_host_edges");
    const Executor exec = Executor::cpu(2);
    const auto a = test::random_csr<V, I>(64, 30, 0.7, seed);  // many empty rows
    const auto b = test::random_csr<V, I>(30, 50, 3.0, seed + 1);
    for (const Semiring s : test::all_semirings()) {
        SpgemmOptions options{.semiring = s, .memory_budget = 100};
        expect_same(spgemm_to_host(exec, a.view(), b.view(), options), spgemm(exec, a.view(), b.view(), options));
    }
    const Csr<V, I> none(Executor::cpu(), 0, 30, std::vector<I>{0}, {}, {});
    expect_same(spgemm_to_host(exec, none.view(), b.view(), SpgemmOptions{.memory_budget = 100}), spgemm(exec, none.view(), b.view()));
    // Without a budget a host executor computes the product in one piece.
    expect_same(spgemm_to_host(exec, a.view(), b.view()), spgemm(exec, a.view(), b.view()));
}

}  // namespace
}  // namespace spk
