// CUDA MTTKRP and TTM against the reference: every mode, ranks from 1 to 300 (every group size,
// vector and scalar loads, one column tile or several), f32/f64 with int32/int64 indices, enough
// non-zeros for chunks that cut slices and fibers (their rows added with atomics), one slice or
// fiber holding most of the tensor, empty slices, duplicates, factor and output layouts (padding
// left untouched), inf propagation, empty tensors and rank 0, and the two shared real tensors.
// Skips without a device.
// Errors are measured against the reference run on absolute values (the magnitudes that entered
// each result), which cancellation cannot make small.
#include "spk/tensor.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "ops/spmm_test_support.hpp"  // test::Strided, view_of, doubles_of, absolute, close_within_bound
#include "ops/tensor_test_inputs.hpp"
#include "spk/io.hpp"

namespace spk {
namespace {

using test::Strided;

class CudaTensor : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
};

// How the dense operands and the output are stored.
struct Layouts {
    Layout factors = Layout::row_major;  // MTTKRP's factors, TTM's U
    index_t pad = 0;                     // extra leading dimension of those (breaks 16-byte alignment)
    Layout out = Layout::row_major;
    index_t out_pad = 0;
};

std::string describe(const Layouts& l) {
    return std::string(l.factors == Layout::col_major ? " col-major inputs" : "") + (l.pad ? " padded inputs" : "") +
           (l.out == Layout::col_major ? " col-major output" : "") + (l.out_pad ? " padded output" : "");
}

template <class V, class I>
CooTensor3<V, I> absolute(CooTensor3<V, I> x) {
    for (auto& v : x.values) v = static_cast<V>(std::abs(static_cast<double>(v)));
    return x;
}

template <class V>
std::array<Strided<V>, 3> random_factors(const std::array<index_t, 3>& dims, index_t rank, const Layouts& l, std::uint64_t seed) {
    return {test::random_strided<V>(dims[0], rank, l.factors, l.pad, seed),
            test::random_strided<V>(dims[1], rank, l.factors, l.pad, seed + 1),
            test::random_strided<V>(dims[2], rank, l.factors, l.pad, seed + 2)};
}

template <class V>
std::array<Strided<V>, 3> absolute(std::array<Strided<V>, 3> f) {
    for (auto& m : f) m = test::absolute(m);
    return f;
}

// The output storage starts as NaN, so every element must be written; the padding must stay NaN.
template <class V>
Strided<V> nan_output(index_t rows, index_t cols, const Layouts& l) {
    return Strided<V>(rows, cols, l.out, l.out_pad, std::numeric_limits<V>::quiet_NaN());
}

// The elements of `storage` outside the shape (the padding) that are no longer NaN.
template <class V>
index_t touched_padding(const std::vector<V>& storage, const Strided<V>& shape) {
    index_t touched = 0;
    const index_t outer = shape.layout == Layout::row_major ? shape.rows : shape.cols;
    const index_t inner = shape.layout == Layout::row_major ? shape.cols : shape.rows;
    for (index_t o = 0; o < outer; ++o)
        for (index_t i = inner; i < shape.ld; ++i) touched += std::isnan(storage[static_cast<std::size_t>(o * shape.ld + i)]) ? 0 : 1;
    return touched;
}

// MTTKRP in `mode` through a plan, with copies of the host factors in the plan's memory space.
template <class V, class I>
std::vector<double> run_mttkrp(const Executor& exec, const MttkrpPlan<V, I>& plan, int mode, const std::array<Strided<V>, 3>& factors,
                               const Layouts& l) {
    std::array<Array<V>, 3> storage;
    std::array<DenseView<const V>, 3> views;
    for (std::size_t m = 0; m < 3; ++m) {
        storage[m] = Array<V>(exec, factors[m].data);
        views[m] = test::view_of(storage[m], factors[m]);
    }
    const Strided<V> shape = nan_output<V>(plan.dims()[static_cast<std::size_t>(mode)], factors[0].cols, l);
    Array<V> out(exec, shape.data);
    plan.run(mode, views, test::view_of(out, shape));
    const std::vector<V> host = out.to_vector();
    EXPECT_EQ(touched_padding(host, shape), 0) << "MTTKRP wrote into the output's padding";
    return test::doubles_of(host, shape);
}

template <class V, class I>
void check_mttkrp(const CooTensor3<V, I>& x, index_t rank, std::uint64_t seed, const Layouts& l = {}) {
    const auto factors = random_factors<V>(x.dims, rank, l, seed);
    const auto abs_factors = absolute(factors);
    const Executor cuda = Executor::cuda(0), reference = Executor::reference();
    const MttkrpPlan<V, I> want_plan(reference, x), bound_plan(reference, absolute(x)), got_plan(cuda, x);
    for (int mode = 0; mode < 3; ++mode) {
        SCOPED_TRACE("MTTKRP mode " + std::to_string(mode) + ", R = " + std::to_string(rank) + ", dims " + std::to_string(x.dims[0]) + "x" +
                     std::to_string(x.dims[1]) + "x" + std::to_string(x.dims[2]) + ", nnz " + std::to_string(x.nnz()) + describe(l));
        const auto want = run_mttkrp(reference, want_plan, mode, factors, l);
        const auto bound = run_mttkrp(reference, bound_plan, mode, abs_factors, l);
        const auto got = run_mttkrp(cuda, got_plan, mode, factors, l);
        EXPECT_TRUE(test::close_within_bound(got, want, bound, test::rtol_for<V>(), rank));
    }
}

// TTM's values through a plan, with a copy of U in the plan's memory space.
template <class V, class I>
std::vector<double> run_ttm(const Executor& exec, const TtmPlan<V, I>& plan, const Strided<V>& u, const Layouts& l) {
    Array<V> u_storage(exec, u.data);
    const Strided<V> shape = nan_output<V>(plan.fibers(), u.rows, l);
    Array<V> y(exec, shape.data);
    plan.run(test::view_of(u_storage, u), test::view_of(y, shape));
    const std::vector<V> host = y.to_vector();
    EXPECT_EQ(touched_padding(host, shape), 0) << "TTM wrote into Y's padding";
    return test::doubles_of(host, shape);
}

template <class V, class I>
void check_ttm(const CooTensor3<V, I>& x, index_t rank, std::uint64_t seed, const Layouts& l = {}) {
    const Executor cuda = Executor::cuda(0), reference = Executor::reference();
    const CooTensor3<V, I> abs_x = absolute(x);
    for (int mode = 0; mode < 3; ++mode) {
        SCOPED_TRACE("TTM mode " + std::to_string(mode) + ", R = " + std::to_string(rank) + ", dims " + std::to_string(x.dims[0]) + "x" +
                     std::to_string(x.dims[1]) + "x" + std::to_string(x.dims[2]) + ", nnz " + std::to_string(x.nnz()) + describe(l));
        const Strided<V> u = test::random_strided<V>(rank, x.dims[static_cast<std::size_t>(mode)], l.factors, l.pad, seed);
        const TtmPlan<V, I> want_plan(reference, x, mode), bound_plan(reference, abs_x, mode), got_plan(cuda, x, mode);
        ASSERT_EQ(got_plan.fibers(), want_plan.fibers());
        const auto want = run_ttm(reference, want_plan, u, l);
        const auto bound = run_ttm(reference, bound_plan, test::absolute(u), l);
        const auto got = run_ttm(cuda, got_plan, u, l);
        EXPECT_TRUE(test::close_within_bound(got, want, bound, test::rtol_for<V>(), rank));
    }
}

template <class V, class I>
void check_both(const CooTensor3<V, I>& x, index_t rank, std::uint64_t seed, const Layouts& l = {}) {
    check_mttkrp(x, rank, seed, l);
    check_ttm(x, rank, seed + 100, l);
}

// Every group size (R / 4 values per lane up to 32 lanes), scalar loads (R not a multiple of 4),
// and several column tiles (R > 128).
TEST_F(CudaTensor, EveryModeAndRankF32) {
    const std::uint64_t seed = test::seed("cuda_tensor_ranks_f32");
    const auto x = test::random_tensor<float, std::int32_t>({40, 23, 57}, 3000, seed);
    for (const index_t rank : {1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 64, 100, 128, 129, 200, 256, 300}) check_both(x, rank, seed + 1);
}

TEST_F(CudaTensor, EveryModeAndRankF64) {
    const std::uint64_t seed = test::seed("cuda_tensor_ranks_f64");
    const auto x = test::random_tensor<double, std::int32_t>({40, 23, 57}, 3000, seed);
    for (const index_t rank : {1, 2, 7, 16, 33, 64, 128, 130}) check_both(x, rank, seed + 1);
}

TEST_F(CudaTensor, Int64Indices) {
    const std::uint64_t seed = test::seed("cuda_tensor_int64");
    const auto xf = test::random_tensor<float, std::int64_t>({61, 35, 48}, 5000, seed);
    for (const index_t rank : {1, 16, 33, 128}) check_both(xf, rank, seed + 1);
    const auto xd = test::random_tensor<double, std::int64_t>({61, 35, 48}, 5000, seed + 2);
    for (const index_t rank : {7, 16, 128}) check_both(xd, rank, seed + 3);
}

// Enough non-zeros for thousands of chunks: slices (every mode) and long fibers (mode 2 of the
// second tensor: 2000 fibers of about 100 non-zeros) cut by chunk boundaries.
TEST_F(CudaTensor, ManyChunksCuttingSlicesAndFibers) {
    const std::uint64_t seed = test::seed("cuda_tensor_chunks");
    const auto wide = test::random_tensor<float, std::int32_t>({2000, 1500, 300}, 400000, seed);
    for (const index_t rank : {1, 16, 33}) check_both(wide, rank, seed + 1);
    const auto long_fibers = test::random_tensor<float, std::int32_t>({50, 40, 5000}, 200000, seed + 2);
    for (const index_t rank : {4, 32, 128}) check_both(long_fibers, rank, seed + 3);
    const auto long_fibers64 = test::random_tensor<double, std::int64_t>({50, 40, 5000}, 200000, seed + 4);
    check_both(long_fibers64, 16, seed + 5);
}

// 90% of the non-zeros in one slice of each mode in turn: hundreds of chunks add into one row.
TEST_F(CudaTensor, OneHugeSlice) {
    const std::uint64_t seed = test::seed("cuda_tensor_huge_slice");
    for (int heavy = 0; heavy < 3; ++heavy) {
        SCOPED_TRACE("heavy slice in mode " + std::to_string(heavy));
        const auto x =
            test::skewed_tensor<float, std::int32_t>({300, 200, 250}, 100000, heavy, 3, 0.9, seed + static_cast<std::uint64_t>(heavy));
        for (const index_t rank : {1, 16, 33}) check_both(x, rank, seed + 10);
    }
}

// One slice with one fiber holding everything (mode 0), and one fiber holding 90% of a tensor (TTM).
TEST_F(CudaTensor, OneFiberHoldingMostNonZeros) {
    const std::uint64_t seed = test::seed("cuda_tensor_one_fiber");
    check_both(test::random_tensor<double, std::int32_t>({1, 1, 50000}, 50000, seed), 33, seed + 1);
    check_both(test::random_tensor<float, std::int32_t>({1, 5000, 1}, 5000, seed + 2), 7, seed + 3);
    auto x = test::random_tensor<float, std::int32_t>({3, 4, 20000}, 20000, seed + 4);
    for (std::size_t p = 0; p < x.values.size(); p += 10)
        for (std::size_t q = p; q < p + 9 && q < x.values.size(); ++q) x.idx[0][q] = x.idx[1][q] = 0;
    for (const index_t rank : {1, 16, 64}) check_both(x, rank, seed + 5);
}

TEST_F(CudaTensor, EmptySlices) {
    const std::uint64_t seed = test::seed("cuda_tensor_empty_slices");
    auto x = test::random_tensor<double, std::int32_t>({40, 30, 20}, 3000, seed);
    for (auto& i : x.idx[0]) i = i / 3 * 3 + 1;  // rows 0, 2, 3, 5, ... stay empty
    x.dims[0] = 43;                              // and the last two
    for (auto& k : x.idx[2]) k = k / 2;          // the upper half of mode 2 is empty
    x.dims[1] = 1000;                            // mode 1: mostly empty, slices far apart
    for (auto& j : x.idx[1]) j = j * 31;
    for (const index_t rank : {1, 16, 33}) check_both(x, rank, seed + 1);
}

// Small dims: most coordinates repeat, and the plans sum them.
TEST_F(CudaTensor, DuplicateCoordinates) {
    const std::uint64_t seed = test::seed("cuda_tensor_duplicates");
    const auto x = test::random_tensor<float, std::int32_t>({5, 4, 6}, 2000, seed);
    for (const index_t rank : {1, 8, 33}) check_both(x, rank, seed + 1);
}

TEST_F(CudaTensor, LayoutsAndPadding) {
    const std::uint64_t seed = test::seed("cuda_tensor_layouts");
    const auto x = test::random_tensor<float, std::int32_t>({25, 31, 18}, 4000, seed);
    const auto xd = test::random_tensor<double, std::int64_t>({25, 31, 18}, 4000, seed + 1);
    for (const Layouts& l : {Layouts{Layout::col_major, 0, Layout::row_major, 0}, Layouts{Layout::row_major, 1, Layout::row_major, 0},
                             Layouts{Layout::col_major, 3, Layout::col_major, 2}, Layouts{Layout::row_major, 0, Layout::row_major, 5},
                             Layouts{Layout::row_major, 4, Layout::col_major, 0}})
        for (const index_t rank : {1, 16, 33, 160}) {
            check_both(x, rank, seed + 2, l);
            check_both(xd, rank, seed + 3, l);
        }
}

// A factor row of +inf reaches exactly the outputs it enters (as inf, or NaN where it meets a 0
// or -inf); the repeated entries that fill a chunk's last batch must not add 0 * inf.
TEST_F(CudaTensor, InfinityPropagates) {
    const std::uint64_t seed = test::seed("cuda_tensor_inf");
    const auto x = test::random_tensor<double, std::int32_t>({30, 20, 25}, 1001, seed);
    const index_t rank = 8;
    auto factors = random_factors<double>(x.dims, rank, Layouts{}, seed + 1);
    for (std::size_t m = 0; m < 3; ++m)
        for (index_t r = 0; r < rank; r += 3) factors[m].at(2, r) = std::numeric_limits<double>::infinity();
    const Executor cuda = Executor::cuda(0), reference = Executor::reference();
    const MttkrpPlan<double, std::int32_t> want_plan(reference, x), got_plan(cuda, x);
    for (int mode = 0; mode < 3; ++mode) {
        const auto want = run_mttkrp(reference, want_plan, mode, factors, Layouts{});
        const auto got = run_mttkrp(cuda, got_plan, mode, factors, Layouts{});
        std::vector<double> bound(want.size());
        for (std::size_t k = 0; k < want.size(); ++k) bound[k] = std::abs(want[k]) + 1e3;  // finite entries: loose, but exact specials
        EXPECT_TRUE(test::close_within_bound(got, want, bound, 1e-9, rank)) << "mode " << mode;
    }
    for (int mode = 0; mode < 3; ++mode) {
        Strided<double> u = test::random_strided<double>(rank, x.dims[static_cast<std::size_t>(mode)], Layout::row_major, 0, seed + 2);
        for (index_t r = 0; r < rank; r += 3) u.at(r, 2) = std::numeric_limits<double>::infinity();
        const TtmPlan<double, std::int32_t> want_plan(reference, x, mode), got_plan(cuda, x, mode);
        const auto want = run_ttm(reference, want_plan, u, Layouts{});
        const auto got = run_ttm(cuda, got_plan, u, Layouts{});
        std::vector<double> bound(want.size());
        for (std::size_t k = 0; k < want.size(); ++k) bound[k] = std::abs(want[k]) + 1e3;
        EXPECT_TRUE(test::close_within_bound(got, want, bound, 1e-9, rank)) << "TTM mode " << mode;
    }
}

// The whole semi-sparse result: coordinates from the plan, values from the kernel.
TEST_F(CudaTensor, TtmResultTensor) {
    const std::uint64_t seed = test::seed("cuda_tensor_ttm_result");
    const auto x = test::random_tensor<float, std::int64_t>({12, 9, 10}, 300, seed);
    for (int mode = 0; mode < 3; ++mode) {
        const Dense<float> u = test::random_dense<float>(5, x.dims[static_cast<std::size_t>(mode)], seed + 1);
        const SemiSparseTensor3<float, std::int64_t> want = ttm(Executor::reference(), x, mode, u.view());
        const Dense<float> u_dev = u.to(Executor::cuda(0));
        const SemiSparseTensor3<float, std::int64_t> got = ttm(Executor::cuda(0), x, mode, u_dev.view());
        EXPECT_EQ(got.dims, want.dims);
        EXPECT_EQ(got.mode, want.mode);
        EXPECT_EQ(got.sparse_modes, want.sparse_modes);
        EXPECT_EQ(got.fiber_idx[0].to_vector(), want.fiber_idx[0].to_vector()) << "mode " << mode;
        EXPECT_EQ(got.fiber_idx[1].to_vector(), want.fiber_idx[1].to_vector()) << "mode " << mode;
        EXPECT_TRUE(test::all_close(test::to_doubles(got.values), test::to_doubles(want.values), 1e-5, 1e-5, 5)) << "mode " << mode;
    }
}

TEST_F(CudaTensor, EmptyTensorsAndRankZero) {
    const Executor cuda = Executor::cuda(0);
    CooTensor3<double, std::int32_t> x;
    x.dims = {4, 5, 6};
    const MttkrpPlan<double, std::int32_t> plan(cuda, x);
    const auto factors = random_factors<double>(x.dims, 3, Layouts{}, 1);
    for (int mode = 0; mode < 3; ++mode) {
        const auto out = run_mttkrp(cuda, plan, mode, factors, Layouts{Layout::row_major, 0, Layout::col_major, 1});
        EXPECT_EQ(out, std::vector<double>(out.size(), 0.0)) << "mode " << mode;
        EXPECT_TRUE(run_mttkrp(cuda, plan, mode, random_factors<double>(x.dims, 0, Layouts{}, 1), Layouts{}).empty());
    }
    CooTensor3<double, std::int32_t> none;
    none.dims = {0, 5, 6};
    const MttkrpPlan<double, std::int32_t> empty_mode(cuda, none);
    EXPECT_TRUE(run_mttkrp(cuda, empty_mode, 0, random_factors<double>(none.dims, 3, Layouts{}, 1), Layouts{}).empty());
    EXPECT_EQ(run_mttkrp(cuda, empty_mode, 1, random_factors<double>(none.dims, 3, Layouts{}, 1), Layouts{}), std::vector<double>(15, 0.0));

    const Dense<double> u = test::random_dense<double>(3, 5, 1).to(cuda);
    const auto y = ttm(cuda, x, 1, u.view());
    EXPECT_EQ(y.fibers(), 0);
    EXPECT_EQ(y.values.cols(), 3);
    CooTensor3<double, std::int32_t> one = x;
    test::push_entry(one, 1, 2, 3, 1.0);
    const Dense<double> rank_zero = test::random_dense<double>(0, 6, 1).to(cuda);
    const auto y0 = ttm(cuda, one, 2, rank_zero.view());
    EXPECT_EQ(y0.fibers(), 1);
    EXPECT_EQ(y0.values.cols(), 0);
    // One non-zero: one chunk, one slice, one fiber.
    check_both(one, 5, 7);
}

// The shared FROSTT-style tensors (skipped when the folder lacks them).
TEST_F(CudaTensor, SharedRealTensors) {
    const std::uint64_t seed = test::seed("cuda_tensor_real");
    for (const char* file : {"collegemsg.tns", "wn18rr.tns.gz"}) {
        const std::string path = test::matrix_dir() + "/" + file;
        if (!std::filesystem::exists(path)) {
            std::cout << "skipping " << path << " (not found)\n";
            continue;
        }
        SCOPED_TRACE(file);
        const auto xf = read_frostt<float, std::int32_t>(path);
        for (const index_t rank : {16, 33}) check_both(xf, rank, seed);
        const auto xd = read_frostt<double, std::int64_t>(path);
        check_both(xd, 64, seed + 1);
    }
}

}  // namespace
}  // namespace spk
