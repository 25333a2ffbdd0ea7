// TTM: reference vs a brute-force loop over the COO entries, every backend vs the reference,
// known values, edge cases and bad input.
#include <cmath>
#include <limits>

#include "ops/tensor_test_inputs.hpp"
#include "spk/tensor.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

template <class VI>
class TtmTest : public ::testing::Test {};
TYPED_TEST_SUITE(TtmTest, FloatBackendTypes);

const index_t kRanks[] = {1, 3, 16, 33};

::testing::AssertionResult close(const std::vector<double>& actual, const std::vector<double>& expected, double rtol, index_t cols) {
    double scale = 1.0;
    for (double e : expected) scale = std::max(scale, std::abs(e));
    return all_close(actual, expected, rtol, rtol * scale, cols);
}

// Y's fibers in order, with coordinates, against the brute-force map (whose order is the same).
template <class V, class I>
::testing::AssertionResult matches_brute_force(const SemiSparseTensor3<V, I>& y, const CooTensor3<V, I>& x, int mode, DenseView<const V> u,
                                               double rtol) {
    const auto expected = brute_force_ttm(x, mode, u);
    if (y.fibers() != static_cast<index_t>(expected.size()))
        return ::testing::AssertionFailure() << y.fibers() << " fibers, expected " << expected.size();
    const auto a = y.fiber_idx[0].to_vector(), b = y.fiber_idx[1].to_vector();
    std::vector<double> values;
    std::size_t f = 0;
    for (const auto& [coordinates, fiber] : expected) {
        if (coordinates != std::pair<index_t, index_t>{a[f], b[f]})
            return ::testing::AssertionFailure() << "fiber " << f << " at (" << a[f] << ", " << b[f] << "), expected (" << coordinates.first
                                                 << ", " << coordinates.second << ")";
        values.insert(values.end(), fiber.begin(), fiber.end());
        ++f;
    }
    return close(to_doubles(y.values), values, rtol, u.rows);
}

TYPED_TEST(TtmTest, KnownValuesOnATinyTensor) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    CooTensor3<V, I> x;
    x.dims = {2, 3, 2};
    push_entry(x, 1, 1, 1, 4.0);
    push_entry(x, 0, 0, 0, 1.0);
    push_entry(x, 1, 1, 0, 3.0);
    push_entry(x, 0, 2, 1, 2.0);
    const Dense<V> u(Executor::cpu(), 2, 3, {1, 2, 3, 4, 5, 6});
    std::vector<Executor> executors = host_backends();
    executors.push_back(Executor::reference());
    for (const Executor& exec : executors) {
        SCOPED_TRACE(exec.name());
        const SemiSparseTensor3<V, I> y = ttm(exec, x, 1, u.view());
        EXPECT_EQ(y.dims, (std::array<index_t, 3>{2, 2, 2}));
        EXPECT_EQ(y.mode, 1);
        EXPECT_EQ(y.sparse_modes, (std::array<int, 2>{0, 2}));
        EXPECT_EQ(y.fiber_idx[0].to_vector(), (std::vector<I>{0, 0, 1, 1}));
        EXPECT_EQ(y.fiber_idx[1].to_vector(), (std::vector<I>{0, 1, 0, 1}));
        EXPECT_EQ(to_doubles(y.values), (std::vector<double>{1, 4, 6, 12, 6, 15, 8, 20}));
    }
}

TYPED_TEST(TtmTest, ReferenceMatchesBruteForce) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t s = seed("ttm reference");
    const CooTensor3<V, I> x = random_tensor<V, I>({7, 5, 9}, 120, s);
    for (index_t rank : kRanks)
        for (int mode = 0; mode < 3; ++mode) {
            SCOPED_TRACE("mode " + std::to_string(mode) + ", R = " + std::to_string(rank));
            const Dense<V> u = random_dense<V>(rank, x.dims[static_cast<std::size_t>(mode)], s + 10);
            EXPECT_TRUE(matches_brute_force(ttm(Executor::reference(), x, mode, u.view()), x, mode, u.view(), rtol_for<V>()));
        }
}

template <class V, class I>
void expect_backends_match_reference(const CooTensor3<V, I>& x, index_t rank, std::uint64_t seed) {
    for (int mode = 0; mode < 3; ++mode) {
        const Dense<V> u = random_dense<V>(rank, x.dims[static_cast<std::size_t>(mode)], seed);
        const Dense<V> u_col = with_layout(u, Layout::col_major);
        const auto expected = to_doubles(ttm(Executor::reference(), x, mode, u.view()).values);
        for (const Executor& exec : host_backends()) {
            SCOPED_TRACE(exec.name() + ", mode " + std::to_string(mode) + ", R = " + std::to_string(rank));
            const TtmPlan<V, I> plan(exec, x, mode);
            EXPECT_TRUE(close(to_doubles(plan.run(u.view()).values), expected, rtol_for<V>(), rank));
            EXPECT_TRUE(close(to_doubles(plan.run(u_col.view()).values), expected, rtol_for<V>(), rank));
        }
    }
}

TYPED_TEST(TtmTest, BackendsMatchReference) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t s = seed("ttm backends");
    const CooTensor3<V, I> x = random_tensor<V, I>({40, 23, 57}, 3000, s);
    for (index_t rank : kRanks) expect_backends_match_reference(x, rank, s + 10);
}

TYPED_TEST(TtmTest, FiberHoldingMostNonZeros) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t s = seed("ttm skewed");
    // 90% of the entries in the mode-2 fiber (0, 0), and a heavy slice in each mode.
    CooTensor3<V, I> x = random_tensor<V, I>({3, 4, 800}, 800, s);
    for (std::size_t p = 0; p < x.values.size(); p += 10)
        for (std::size_t q = p; q < p + 9 && q < x.values.size(); ++q) x.idx[0][q] = x.idx[1][q] = 0;
    expect_backends_match_reference(x, 16, s);
    for (int heavy_mode = 0; heavy_mode < 3; ++heavy_mode)
        expect_backends_match_reference(
            skewed_tensor<V, I>({30, 20, 25}, 2000, heavy_mode, 3, 0.9, s + static_cast<std::uint64_t>(heavy_mode)), 3, s);
}

TEST(Ttm, DuplicatesAndUnsortedInput) {
    const std::uint64_t s = seed("ttm duplicates");
    const CooTensor3<double, std::int64_t> x = random_tensor<double, std::int64_t>({12, 9, 10}, 150, s);
    CooTensor3<double, std::int64_t> twice = x;
    for (std::size_t p = x.values.size(); p-- > 0;) push_entry(twice, x.idx[0][p], x.idx[1][p], x.idx[2][p], x.values[p]);
    for (const Executor& exec : host_backends())
        for (int mode = 0; mode < 3; ++mode) {
            const Dense<double> u = random_dense<double>(5, x.dims[static_cast<std::size_t>(mode)], s + 1);
            EXPECT_TRUE(matches_brute_force(ttm(exec, twice, mode, u.view()), twice, mode, u.view(), 1e-12))
                << exec.name() << " mode " << mode;
        }
}

TEST(Ttm, ColumnMajorAndPaddedOutput) {
    const std::uint64_t s = seed("ttm layouts");
    const CooTensor3<float, std::int32_t> x = random_tensor<float, std::int32_t>({25, 31, 18}, 900, s);
    const index_t rank = 16;
    for (const Executor& exec : host_backends())
        for (int mode = 0; mode < 3; ++mode) {
            SCOPED_TRACE(exec.name() + ", mode " + std::to_string(mode));
            const Dense<float> u = random_dense<float>(rank, x.dims[static_cast<std::size_t>(mode)], s + 1);
            const TtmPlan<float, std::int32_t> plan(exec, x, mode);
            const auto expected = to_doubles(plan.run(u.view()).values);
            // Column-major Y with ld = fibers + 3; the padding must stay untouched.
            const index_t ld = plan.fibers() + 3;
            std::vector<float> storage(static_cast<std::size_t>(ld * rank), -7.0f);
            const DenseView<float> y{storage.data(), plan.fibers(), rank, ld, Layout::col_major, MemorySpace::host()};
            plan.run(u.view(), y);
            EXPECT_TRUE(close(to_doubles(DenseView<const float>(y)), expected, 0, rank));
            for (index_t r = 0; r < rank; ++r)
                for (index_t i = plan.fibers(); i < ld; ++i) EXPECT_EQ(storage[static_cast<std::size_t>(r * ld + i)], -7.0f);
        }
}

TEST(Ttm, EmptyTensorAndRankZero) {
    CooTensor3<double, std::int32_t> x;
    x.dims = {4, 5, 6};
    std::vector<Executor> executors = host_backends();
    executors.push_back(Executor::reference());
    for (const Executor& exec : executors) {
        const Dense<double> u = random_dense<double>(3, 5, 1);
        const auto y = ttm(exec, x, 1, u.view());
        EXPECT_EQ(y.fibers(), 0);
        EXPECT_EQ(y.values.rows(), 0);
        EXPECT_EQ(y.values.cols(), 3);
        EXPECT_EQ(y.dims, (std::array<index_t, 3>{4, 3, 6}));
        CooTensor3<double, std::int32_t> one = x;
        push_entry(one, 1, 2, 3, 1.0);
        const Dense<double> rank_zero = random_dense<double>(0, 6, 1);
        const auto none = ttm(exec, one, 2, rank_zero.view());
        EXPECT_EQ(none.fibers(), 1);
        EXPECT_EQ(none.values.cols(), 0);
    }
}

TEST(Ttm, BadInputIsRejectedWithItsName) {
    CooTensor3<double, std::int32_t> x;
    x.dims = {3, 4, 5};
    push_entry(x, 0, 1, 2, 1.0);
    push_entry(x, 2, 3, 4, 2.0);
    const Executor cpu = Executor::cpu(1);
    const Dense<double> u(cpu, 2, 4);
    expect_error_all([&] { ttm(cpu, x, 3, u.view()); }, ErrorKind::InvalidArgument, {"mode 3", "0..2"});
    expect_error_all([&] { ttm(cpu, x, 0, u.view()); }, ErrorKind::ShapeMismatch, {"U", "mode 0", "2 x 4", "R x 3"});
    const TtmPlan<double, std::int32_t> plan(cpu, x, 1);
    EXPECT_EQ(plan.fibers(), 2);
    Dense<double> y(cpu, 3, 2);
    expect_error_all([&] { plan.run(u.view(), y.view()); }, ErrorKind::ShapeMismatch, {"Y", "mode 1", "3 x 2", "2 x 2"});
    CooTensor3<double, std::int32_t> outside = x;
    outside.idx[0][0] = 3;
    expect_error_all([&] { TtmPlan<double, std::int32_t>(cpu, outside, 1); }, ErrorKind::InvalidArgument, {"entry 0", "mode 0", "0..2"});
}

}  // namespace
}  // namespace spk::test
