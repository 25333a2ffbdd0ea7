// MTTKRP: reference vs a brute-force loop over the COO entries, every backend vs the reference,
// known values, edge cases and bad input.
#include <cmath>
#include <limits>

#include "ops/tensor_test_inputs.hpp"
#include "spk/tensor.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

template <class VI>
class MttkrpTest : public ::testing::Test {};
TYPED_TEST_SUITE(MttkrpTest, FloatBackendTypes);

const index_t kRanks[] = {1, 3, 16, 33};
const index_t kFixedRanks[] = {8, 32};  // the cpu kernel's other compile-time ranks

// Runs a planned MTTKRP into a NaN-filled output (so unwritten rows show) and returns it as doubles.
template <class V, class I>
std::vector<double> run(const MttkrpPlan<V, I>& plan, int mode, const std::array<DenseView<const V>, 3>& factors, index_t rank,
                        Layout layout = Layout::row_major) {
    const index_t rows = plan.dims()[static_cast<std::size_t>(mode)];
    Dense<V> out(Executor::cpu(), rows, rank, std::vector<V>(static_cast<std::size_t>(rows * rank), std::numeric_limits<V>::quiet_NaN()),
                 layout);
    plan.run(mode, factors, out.view());
    return to_doubles(out);
}

// Error bound for sums of products of values in [-1, 1]: relative to the largest magnitude.
::testing::AssertionResult close(const std::vector<double>& actual, const std::vector<double>& expected, double rtol, index_t cols) {
    double scale = 1.0;
    for (double e : expected) scale = std::max(scale, std::abs(e));
    return all_close(actual, expected, rtol, rtol * scale, cols);
}

template <class V, class I>
void expect_backends_match_reference(const CooTensor3<V, I>& x, index_t rank, std::uint64_t seed) {
    const auto factors = random_factors<V>(x.dims, rank, seed);
    const MttkrpPlan<V, I> reference(Executor::reference(), x);
    for (const Executor& exec : host_backends()) {
        const MttkrpPlan<V, I> plan(exec, x);
        for (int mode = 0; mode < 3; ++mode) {
            SCOPED_TRACE(exec.name() + ", mode " + std::to_string(mode) + ", R = " + std::to_string(rank));
            EXPECT_TRUE(close(run(plan, mode, views(factors), rank), run(reference, mode, views(factors), rank), rtol_for<V>(), rank));
        }
    }
}

TYPED_TEST(MttkrpTest, KnownValuesOnATinyTensor) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    CooTensor3<V, I> x;
    x.dims = {2, 3, 2};
    push_entry(x, 1, 1, 1, 4.0);  // unsorted on purpose
    push_entry(x, 0, 0, 0, 1.0);
    push_entry(x, 1, 1, 0, 3.0);
    push_entry(x, 0, 2, 1, 2.0);
    const Executor host = Executor::cpu();
    const std::array<Dense<V>, 3> factors{Dense<V>(host, 2, 2, {1, 2, 3, 4}), Dense<V>(host, 3, 2, {1, 0, 0, 1, 1, 1}),
                                          Dense<V>(host, 2, 2, {2, 1, 1, 3})};
    const std::vector<double> expected[3] = {{4, 6, 0, 15}, {2, 2, 30, 60, 2, 12}, {1, 12, 2, 20}};
    std::vector<Executor> executors = host_backends();
    executors.push_back(Executor::reference());
    for (const Executor& exec : executors) {
        const MttkrpPlan<V, I> plan(exec, x);
        for (int mode = 0; mode < 3; ++mode) {
            SCOPED_TRACE(exec.name() + ", mode " + std::to_string(mode));
            EXPECT_TRUE(all_close(run(plan, mode, views(factors), 2), expected[mode], 0, 0, 2));
        }
    }
}

TYPED_TEST(MttkrpTest, ReferenceMatchesBruteForce) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t s = seed("mttkrp reference");
    const CooTensor3<V, I> x = random_tensor<V, I>({7, 5, 9}, 120, s);  // repeats coordinates
    const MttkrpPlan<V, I> plan(Executor::reference(), x);
    for (index_t rank : kRanks) {
        const auto factors = random_factors<V>(x.dims, rank, s + 10);
        for (int mode = 0; mode < 3; ++mode) {
            SCOPED_TRACE("mode " + std::to_string(mode) + ", R = " + std::to_string(rank));
            EXPECT_TRUE(
                close(run(plan, mode, views(factors), rank), brute_force_mttkrp(x, mode, views(factors), rank), rtol_for<V>(), rank));
        }
    }
}

TYPED_TEST(MttkrpTest, BackendsMatchReference) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t s = seed("mttkrp backends");
    const CooTensor3<V, I> x = random_tensor<V, I>({40, 23, 57}, 3000, s);
    for (index_t rank : kRanks) expect_backends_match_reference(x, rank, s + 10);
    for (index_t rank : kFixedRanks) expect_backends_match_reference(x, rank, s + 10);
}

TYPED_TEST(MttkrpTest, SliceHoldingMostNonZeros) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t s = seed("mttkrp skewed");
    for (int heavy_mode = 0; heavy_mode < 3; ++heavy_mode) {
        SCOPED_TRACE("heavy slice in mode " + std::to_string(heavy_mode));
        expect_backends_match_reference(
            skewed_tensor<V, I>({30, 20, 25}, 2000, heavy_mode, 3, 0.9, s + static_cast<std::uint64_t>(heavy_mode)), 16, s);
    }
}

TEST(Mttkrp, OneFiberHoldingEverything) {
    const std::uint64_t s = seed("mttkrp one fiber");
    // In mode 0 the CSF has one slice and one fiber of 500 non-zeros, which the threads share.
    expect_backends_match_reference(random_tensor<double, std::int32_t>({1, 1, 500}, 500, s), 33, s);
    expect_backends_match_reference(random_tensor<float, std::int32_t>({1, 500, 1}, 500, s), 3, s);
}

TEST(Mttkrp, EmptySlicesBecomeZeroRows) {
    const std::uint64_t s = seed("mttkrp empty slices");
    CooTensor3<double, std::int32_t> x = random_tensor<double, std::int32_t>({40, 30, 20}, 300, s);
    for (auto& i : x.idx[0]) i = i / 3 * 3 + 1;  // rows 0, 2, 3, 5, ... stay empty
    x.dims[0] = 43;                              // and the last two
    for (auto& k : x.idx[2]) k = k / 2;          // the upper half of mode 2 is empty
    const auto factors = random_factors<double>(x.dims, 16, s + 1);
    for (const Executor& exec : host_backends()) {
        const MttkrpPlan<double, std::int32_t> plan(exec, x);
        for (int mode = 0; mode < 3; ++mode) {
            SCOPED_TRACE(exec.name() + ", mode " + std::to_string(mode));
            EXPECT_TRUE(close(run(plan, mode, views(factors), 16), brute_force_mttkrp(x, mode, views(factors), 16), 1e-12, 16));
        }
    }
}

TEST(Mttkrp, DuplicatesAreSummed) {
    const std::uint64_t s = seed("mttkrp duplicates");
    const CooTensor3<double, std::int64_t> x = random_tensor<double, std::int64_t>({12, 9, 10}, 150, s);
    CooTensor3<double, std::int64_t> twice = x;  // every entry again, in reverse order
    for (std::size_t p = x.values.size(); p-- > 0;) push_entry(twice, x.idx[0][p], x.idx[1][p], x.idx[2][p], x.values[p]);
    CooTensor3<double, std::int64_t> doubled = x;
    for (auto& v : doubled.values) v *= 2;
    const auto factors = random_factors<double>(x.dims, 3, s + 1);
    for (const Executor& exec : host_backends()) {
        const MttkrpPlan<double, std::int64_t> a(exec, twice), b(exec, doubled);
        EXPECT_EQ(a.nnz(), b.nnz());
        for (int mode = 0; mode < 3; ++mode)
            EXPECT_TRUE(close(run(a, mode, views(factors), 3), run(b, mode, views(factors), 3), 1e-12, 3))
                << exec.name() << " mode " << mode;
    }
}

TEST(Mttkrp, ColumnMajorAndPaddedViews) {
    const std::uint64_t s = seed("mttkrp layouts");
    const CooTensor3<float, std::int32_t> x = random_tensor<float, std::int32_t>({25, 31, 18}, 900, s);
    const index_t rank = 16;
    const auto row_major = random_factors<float>(x.dims, rank, s + 1, Layout::row_major);
    const std::array<Dense<float>, 3> col_major{with_layout(row_major[0], Layout::col_major), with_layout(row_major[1], Layout::col_major),
                                                with_layout(row_major[2], Layout::col_major)};
    // Padded row-major factors: ld = rank + 5, the padding filled with NaN that must not be read.
    std::array<std::vector<float>, 3> padded_data;
    std::array<DenseView<const float>, 3> padded;
    for (std::size_t m = 0; m < 3; ++m) {
        const index_t ld = rank + 5;
        padded_data[m].assign(static_cast<std::size_t>(x.dims[m] * ld), std::numeric_limits<float>::quiet_NaN());
        for (index_t i = 0; i < x.dims[m]; ++i)
            for (index_t r = 0; r < rank; ++r) padded_data[m][static_cast<std::size_t>(i * ld + r)] = row_major[m].view()(i, r);
        padded[m] = DenseView<const float>{padded_data[m].data(), x.dims[m], rank, ld, Layout::row_major, MemorySpace::host()};
    }
    for (const Executor& exec : host_backends()) {
        const MttkrpPlan<float, std::int32_t> plan(exec, x);
        for (int mode = 0; mode < 3; ++mode) {
            SCOPED_TRACE(exec.name() + ", mode " + std::to_string(mode));
            const auto expected = brute_force_mttkrp(x, mode, views(row_major), rank);
            EXPECT_TRUE(close(run(plan, mode, views(col_major), rank), expected, 1e-4, rank));
            EXPECT_TRUE(close(run(plan, mode, views(row_major), rank, Layout::col_major), expected, 1e-4, rank));
            EXPECT_TRUE(close(run(plan, mode, padded, rank), expected, 1e-4, rank));
        }
    }
}

TEST(Mttkrp, EmptyTensorAndRankZero) {
    CooTensor3<double, std::int32_t> x;
    x.dims = {4, 5, 6};
    const auto factors = random_factors<double>(x.dims, 3, 1);
    std::vector<Executor> executors = host_backends();
    executors.push_back(Executor::reference());
    for (const Executor& exec : executors) {
        const MttkrpPlan<double, std::int32_t> plan(exec, x);
        EXPECT_EQ(plan.nnz(), 0);
        for (int mode = 0; mode < 3; ++mode) {
            const auto out = run(plan, mode, views(factors), 3);
            EXPECT_EQ(out, std::vector<double>(out.size(), 0.0)) << exec.name() << " mode " << mode;
            EXPECT_TRUE(run(plan, mode, views(random_factors<double>(x.dims, 0, 1)), 0).empty());
        }
        CooTensor3<double, std::int32_t> none;
        none.dims = {0, 5, 6};
        const MttkrpPlan<double, std::int32_t> empty_mode(exec, none);
        EXPECT_TRUE(run(empty_mode, 0, views(random_factors<double>(none.dims, 3, 1)), 3).empty());
        EXPECT_EQ(run(empty_mode, 1, views(random_factors<double>(none.dims, 3, 1)), 3), std::vector<double>(15, 0.0));
    }
}

TEST(Mttkrp, OneShotCallMatchesPlan) {
    const std::uint64_t s = seed("mttkrp one-shot");
    const CooTensor3<double, std::int32_t> x = random_tensor<double, std::int32_t>({10, 11, 12}, 200, s);
    const auto factors = random_factors<double>(x.dims, 5, s + 1);
    const MttkrpPlan<double, std::int32_t> plan(Executor::cpu(2), x, {1});
    EXPECT_EQ(plan.csf(1).order()[0], 1);
    Dense<double> out(Executor::cpu(), 11, 5);
    mttkrp(Executor::cpu(2), x, 1, views(factors), out.view());
    EXPECT_EQ(to_doubles(out), run(plan, 1, views(factors), 5));
}

TEST(Mttkrp, BadInputIsRejectedWithItsName) {
    CooTensor3<double, std::int32_t> x;
    x.dims = {3, 4, 5};
    push_entry(x, 0, 1, 2, 1.0);
    push_entry(x, 2, 3, 4, 2.0);
    const Executor cpu = Executor::cpu(1);
    const MttkrpPlan<double, std::int32_t> plan(cpu, x, {0, 2});
    auto factors = random_factors<double>(x.dims, 2, 1);
    Dense<double> out0(cpu, 3, 2), out1(cpu, 4, 2);
    expect_error_all([&] { plan.run(3, views(factors), out0.view()); }, ErrorKind::InvalidArgument, {"mode 3", "0..2"});
    expect_error_all([&] { plan.run(-1, views(factors), out0.view()); }, ErrorKind::InvalidArgument, {"mode -1"});
    expect_error_all([&] { plan.run(1, views(factors), out1.view()); }, ErrorKind::InvalidArgument, {"mode 1", "not planned"});
    const auto wrong = random_factors<double>({3, 4, 6}, 2, 1);
    expect_error_all(
        [&] {
            plan.run(0, {factors[0].view(), factors[1].view(), wrong[2].view()}, out0.view());
        },
        ErrorKind::ShapeMismatch, {"factors[2]", "mode 0", "6 x 2", "5 x 2"});
    const auto rank3 = random_factors<double>(x.dims, 3, 1);
    expect_error_all(
        [&] {
            plan.run(2, {rank3[0].view(), factors[1].view(), factors[2].view()}, Dense<double>(cpu, 5, 2).view());
        },
        ErrorKind::ShapeMismatch, {"factors[0]", "mode 2"});
    expect_error_all([&] { plan.run(0, views(factors), out1.view()); }, ErrorKind::ShapeMismatch, {"out", "4 x 2", "3 x 2"});
    // factors[mode] is not read, so it may be left empty.
    EXPECT_NO_THROW(plan.run(0, {DenseView<const double>{}, factors[1].view(), factors[2].view()}, out0.view()));

    CooTensor3<double, std::int32_t> outside = x;
    outside.idx[1][1] = 4;
    expect_error_all([&] { MttkrpPlan<double, std::int32_t>(cpu, outside); }, ErrorKind::InvalidArgument,
                     {"entry 1", "(2, 4, 4)", "mode 1", "0..3"});
    CooTensor3<double, std::int32_t> short_index = x;
    short_index.idx[2].pop_back();
    expect_error_all([&] { MttkrpPlan<double, std::int32_t>(cpu, short_index); }, ErrorKind::InvalidArgument,
                     {"idx[2]", "1 entries", "2 values"});
    expect_error_all([&] { MttkrpPlan<double, std::int32_t>(cpu, x, {0, 7}); }, ErrorKind::InvalidArgument, {"mode 7"});
    expect_error_all([&] { MttkrpPlan<double, std::int32_t>(cpu, x, {}); }, ErrorKind::InvalidArgument, {"modes is empty"});
    expect_error_all([&] { mttkrp(cpu, x, 5, views(factors), out0.view()); }, ErrorKind::InvalidArgument, {"mode 5"});
}

}  // namespace
}  // namespace spk::test
