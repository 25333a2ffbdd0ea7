// CUDA SDDMM, forward and backward, against the reference: every kernel width (K from 1 to
// 1024, so every group size, vector and scalar loads, one pass over d or several), heads, scaling,
// layouts, 16-bit values, int64 indices, structured and real matrices, edge cases, repeatable
// gradients, and a CUDA-side failure surfacing as spk::Error; the forward pass's neighbour-row
// mode (options.config "rows") on meshes and on uneven rows, and the automatic choice of mode.
// Skips without a device.
// Errors are measured against the reference run on absolute values (the magnitudes that entered
// each result), which cancellation cannot make small.
#include <algorithm>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "ops/spmm_test_support.hpp"  // test::Strided, random_strided, close_within_bound
#include "spk/generate.hpp"
#include "spk/io.hpp"
#include "spk/spmm.hpp"
#ifdef SPK_WITH_CUDA
#include "core/cuda_runtime.hpp"
#include "cuda/sddmm/dot_mode.hpp"
#endif

namespace spk {
namespace {

using test::absolute;
using test::doubles_of;
using test::view_of;

using test::Strided;

class CudaSddmm : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
};

struct Problem {
    index_t d = 32;  // features per head
    int heads = 1;
    bool scale = true;
    Layout layout = Layout::row_major;      // of X and Y
    index_t pad = 0;                        // extra leading dimension of X and Y (breaks vector alignment)
    Layout out_layout = Layout::row_major;  // of out, dX and dY
    std::string config = {};                // SddmmOptions::config (the forward pass's kernel)
};

struct Results {
    std::vector<double> out, dx, dy, da;
};

// Forward and backward on exec from host inputs; outputs start as NaN, so every element must be
// written.
template <class V, class I>
Results run(const Executor& exec, const Csr<V, I>& a, const Strided<V>& x, const Strided<V>& y, const Strided<V>& g, const Problem& pr) {
    const V nan = value_cast<V>(std::numeric_limits<double>::quiet_NaN());
    const SddmmOptions o{.scale_by_a = pr.scale, .heads = pr.heads, .config = pr.config};
    const Csr<V, I> a_dev = a.to(exec);
    Array<V> x_dev(exec, x.data), y_dev(exec, y.data), g_dev(exec, g.data);
    const Strided<V> out_shape(a.nnz(), pr.heads, pr.out_layout, 1, nan), dx_shape(x.rows, x.cols, pr.out_layout, 0, nan),
        dy_shape(y.rows, y.cols, pr.out_layout, 3, nan), da_shape(a.nnz(), 1, Layout::row_major, 0, nan);
    Array<V> out_dev(exec, out_shape.data), dx_dev(exec, dx_shape.data), dy_dev(exec, dy_shape.data), da_dev(exec, da_shape.data);
    const DenseView<const V> xv = view_of(x_dev, x), yv = view_of(y_dev, y), gv = view_of(g_dev, g);
    sddmm(exec, a_dev.view(), xv, yv, view_of(out_dev, out_shape), o);
    sddmm_backward(exec, a_dev.view(), xv, yv, gv, view_of(dx_dev, dx_shape), view_of(dy_dev, dy_shape), view_of(da_dev, da_shape), o);
    return {doubles_of(out_dev.to_vector(), out_shape), doubles_of(dx_dev.to_vector(), dx_shape), doubles_of(dy_dev.to_vector(), dy_shape),
            doubles_of(da_dev.to_vector(), da_shape)};
}

template <class V, class I>
void check(const Csr<V, I>& a, const Problem& pr, std::uint64_t seed) {
    SCOPED_TRACE(std::to_string(a.rows()) + "x" + std::to_string(a.cols()) + " nnz " + std::to_string(a.nnz()) + " d " +
                 std::to_string(pr.d) + " heads " + std::to_string(pr.heads) + (pr.scale ? " scaled" : "") +
                 (pr.layout == Layout::col_major ? " col-major X/Y" : "") + (pr.pad ? " padded" : "") +
                 (pr.out_layout == Layout::col_major ? " col-major outputs" : "") + (pr.config.empty() ? "" : " config " + pr.config));
    const index_t width = pr.d * pr.heads;
    const auto x = test::random_strided<V>(a.rows(), width, pr.layout, pr.pad, seed + 1);
    const auto y = test::random_strided<V>(a.cols(), width, pr.layout, pr.pad, seed + 2);
    const auto g = test::random_strided<V>(a.nnz(), pr.heads, Layout::row_major, 0, seed + 3);
    const Results want = run(Executor::reference(), a, x, y, g, pr);
    const Results bound = run(Executor::reference(), absolute(a), absolute(x), absolute(y), absolute(g), pr);
    const Results got = run(Executor::cuda(0), a, x, y, g, pr);
    const double rtol = test::rtol_for<V>();
    EXPECT_TRUE(test::close_within_bound(got.out, want.out, bound.out, rtol, pr.heads)) << "out";
    EXPECT_TRUE(test::close_within_bound(got.dx, want.dx, bound.dx, rtol, width)) << "dx";
    EXPECT_TRUE(test::close_within_bound(got.dy, want.dy, bound.dy, rtol, width)) << "dy";
    EXPECT_TRUE(test::close_within_bound(got.da, want.da, bound.da, rtol, 1)) << "da";
}

// Random rows plus one row holding every other column (a long run that spans many groups) and
// a stretch of empty rows.
template <class V, class I>
Csr<V, I> skewed_matrix(index_t rows, index_t cols, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<I> ptr{0}, col;
    std::vector<V> val;
    for (index_t i = 0; i < rows; ++i) {
        const bool huge = i == rows / 3, empty = i > rows / 2 && i < rows / 2 + 20;
        const index_t begin = static_cast<index_t>(col.size());
        if (huge)
            for (index_t j = 0; j < cols; j += 2) col.push_back(static_cast<I>(j));
        else if (!empty)
            for (index_t k = static_cast<index_t>(rng() % 9); k > 0; --k)
                col.push_back(static_cast<I>(rng() % static_cast<std::uint64_t>(cols)));
        std::sort(col.begin() + begin, col.end());
        col.erase(std::unique(col.begin() + begin, col.end()), col.end());
        ptr.push_back(static_cast<I>(col.size()));
    }
    for (std::size_t p = 0; p < col.size(); ++p) val.push_back(value_cast<V>(0.25 + static_cast<double>(rng() % 100) / 80.0));
    return Csr<V, I>(Executor::cpu(), rows, cols, ptr, col, val);
}

TEST_F(CudaSddmm, RandomMatricesOfSeveralSizes) {
    const std::uint64_t seed = test::seed("cuda_sddmm_random");
    struct Size {
        index_t rows, cols;
        double per_row;
    };
    for (const Size& s : std::vector<Size>{{1, 1, 1.0}, {7, 5, 2.0}, {300, 200, 5.0}, {2000, 1500, 12.0}, {500, 4000, 40.0}})
        for (const index_t d : {4, 32, 33})
            check(test::random_csr<float, std::int32_t>(s.rows, s.cols, s.per_row, seed), Problem{.d = d}, seed);
}

// Every group size, vector and scalar loads, one pass over d (the one-pass kernel) or several.
TEST_F(CudaSddmm, EveryFeatureWidth) {
    const std::uint64_t seed = test::seed("cuda_sddmm_widths");
    const auto a = skewed_matrix<float, std::int32_t>(300, 250, seed);
    for (const index_t d : {1, 2, 3, 4, 5, 8, 12, 16, 31, 32, 33, 64, 100, 128, 256, 512, 513, 1024}) check(a, Problem{.d = d}, seed);
    const auto ad = convert_values<double>(a.view());
    for (const index_t d : {1, 2, 3, 17, 64, 1024}) check(ad, Problem{.d = d}, seed);
}

// Enough entries for hundreds of warp slices: slices that start and end inside rows, rows
// spanning several slices, a ragged last tile; one pass (d = 32) and several (heads, d = 300).
TEST_F(CudaSddmm, ManyWarpSlices) {
    const std::uint64_t seed = test::seed("cuda_sddmm_slices");
    const auto a = skewed_matrix<float, std::int32_t>(20011, 9000, seed);
    for (const index_t d : {4, 32, 300}) check(a, Problem{.d = d}, seed);
    check(a, Problem{.d = 8, .heads = 3}, seed);
    check(convert_values<double>(a.view()), Problem{.d = 16}, seed);
}

// Runs of ten empty rows, then rows of 1 to 40 entries: tiles that lie within one row (each lane
// loads X's row once) next to tiles that cross rows and runs of empty rows, starting and ending
// anywhere in a tile, for every tile size the slices mode takes (16 entries at d = 32, 4 at
// d = 128; 129 runs several passes).
TEST_F(CudaSddmm, TilesWithinAndAcrossRows) {
    const std::uint64_t seed = test::seed("cuda_sddmm_one_row_tiles");
    std::mt19937_64 rng(seed);
    const index_t rows = 3000, cols = 700;
    std::vector<std::int32_t> ptr{0}, col;
    for (index_t i = 0; i < rows; ++i) {
        const index_t first = static_cast<index_t>(rng() % static_cast<std::uint64_t>(cols - 40));
        for (index_t k = 0; k < std::max<index_t>(i % 50 - 9, 0); ++k) col.push_back(static_cast<std::int32_t>(first + k));
        ptr.push_back(static_cast<std::int32_t>(col.size()));
    }
    std::vector<float> val;
    for (std::size_t p = 0; p < col.size(); ++p) val.push_back(0.5f + static_cast<float>(rng() % 64) / 32.0f);
    const Csr<float, std::int32_t> a(Executor::cpu(), rows, cols, ptr, col, val);
    for (const index_t d : {4, 32, 128, 129})
        for (const int heads : {1, 3}) check(a, Problem{.d = d, .heads = heads, .config = "slices"}, seed);
}

TEST_F(CudaSddmm, HeadsAndScaling) {
    const std::uint64_t seed = test::seed("cuda_sddmm_heads");
    const auto a = skewed_matrix<float, std::int32_t>(400, 300, seed);
    for (const int heads : {1, 2, 4})
        for (const bool scale : {false, true})
            for (const index_t d : {1, 3, 16, 40, 256}) check(a, Problem{.d = d, .heads = heads, .scale = scale}, seed);
}

TEST_F(CudaSddmm, LayoutsAndPadding) {
    const std::uint64_t seed = test::seed("cuda_sddmm_layouts");
    const auto a = skewed_matrix<double, std::int32_t>(257, 190, seed);
    for (const Layout layout : {Layout::row_major, Layout::col_major})
        for (const index_t pad : {0, 1})
            for (const Layout out_layout : {Layout::row_major, Layout::col_major})
                for (const index_t d : {3, 16})
                    check(a, Problem{.d = d, .heads = 2, .layout = layout, .pad = pad, .out_layout = out_layout}, seed);
}

TEST_F(CudaSddmm, StructuredMatrices) {
    const std::uint64_t seed = test::seed("cuda_sddmm_structured");
    const auto laplace = generate_amg_matrix<float, std::int32_t>(AmgProblem::laplace3d, 12, 12, 12);
    check(laplace, Problem{.d = 16}, seed);
    check(laplace, Problem{.d = 5, .heads = 2}, seed);
    // R-MAT: power-law rows and columns (hub columns make long columns of Aᵀ for dY).
    const auto rmat = generate_rmat<float, std::int32_t>(11, 8.0, 0.57, 0.19, 0.19, 0.05, seed);
    check(rmat, Problem{.d = 64}, seed);
    check(rmat, Problem{.d = 1, .heads = 4, .scale = false}, seed);
}

TEST_F(CudaSddmm, EdgeCases) {
    const std::uint64_t seed = test::seed("cuda_sddmm_edges");
    const Csr<float, std::int32_t> empty(Executor::cpu(), 0, 0, std::vector<std::int32_t>{0}, {}, {});
    const Csr<float, std::int32_t> no_entries(Executor::cpu(), 6, 4, std::vector<std::int32_t>(7, 0), {}, {});
    const Csr<float, std::int32_t> one(Executor::cpu(), 1, 1, std::vector<std::int32_t>{0, 1}, {0}, {2.0f});
    for (const index_t d : {0, 1, 4}) {
        check(empty, Problem{.d = d}, seed);
        check(no_entries, Problem{.d = d, .heads = 2}, seed);
        check(one, Problem{.d = d}, seed);
    }
    // Mostly empty rows, and a single row holding everything.
    check(test::random_csr<float, std::int32_t>(3000, 50, 0.05, seed), Problem{.d = 8}, seed);
    std::vector<std::int32_t> ptr(101, 0), col;
    for (std::int32_t j = 0; j < 5000; ++j) col.push_back(j);
    for (std::size_t r = 43; r < ptr.size(); ++r) ptr[r] = 5000;
    const Csr<float, std::int32_t> huge_row(Executor::cpu(), 100, 5000, ptr, col, std::vector<float>(5000, 0.5f));
    for (const index_t d : {1, 33, 128}) check(huge_row, Problem{.d = d}, seed);
}

TEST_F(CudaSddmm, Int64Indices) {
    const std::uint64_t seed = test::seed("cuda_sddmm_int64");
    check(skewed_matrix<float, std::int64_t>(500, 400, seed), Problem{.d = 32, .heads = 2}, seed);
    check(skewed_matrix<double, std::int64_t>(500, 400, seed), Problem{.d = 3}, seed);
    check(skewed_matrix<float, std::int64_t>(500, 400, seed), Problem{.d = 1024}, seed);
}

// 16-bit storage, f32 accumulation: rtol_for<V>() (1e-2 for f16, 2e-2 for bf16) of the magnitudes.
TEST_F(CudaSddmm, HalfPrecision) {
    const std::uint64_t seed = test::seed("cuda_sddmm_half");
    for (const index_t d : {3, 8, 64, 200}) {
        check(skewed_matrix<f16, std::int32_t>(300, 200, seed), Problem{.d = d, .heads = 2}, seed);
        check(skewed_matrix<bf16, std::int64_t>(300, 200, seed), Problem{.d = d}, seed);
    }
    check(skewed_matrix<f16, std::int32_t>(300, 200, seed), Problem{.d = 64, .layout = Layout::col_major}, seed);
}

TEST_F(CudaSddmm, SharedRealMatrices) {
    const std::uint64_t seed = test::seed("cuda_sddmm_real");
    const auto files = test::shared_matrix_files();
    if (files.empty()) GTEST_SKIP() << "no shared matrices at " << test::matrix_dir();
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        check(read_matrix_market<float, std::int32_t>(f), Problem{.d = 16}, seed);
    }
}

// SDDMM and SpMM queued back to back, each reading what the one before wrote (e_k = SDDMM(A, X_k,
// Y), X_{k+1} = A(e_k) X_0, as a GNN's layers do): both launch after the stream's previous kernel
// (launch_after_previous) and must wait for its writes. Both SDDMM kernels; positive values, so
// that a tight tolerance holds.
TEST_F(CudaSddmm, ChainedWithSpmmReadsWhatThePreviousKernelWrote) {
    const std::uint64_t seed = test::seed("cuda_sddmm_chained");
    const Executor gpu = Executor::cuda(0), ref = Executor::reference();
    constexpr int steps = 6;
    const index_t d = 32;
    for (const index_t rows : {index_t{3000}, index_t{20000}}) {
        auto a_host = test::random_csr<double, std::int32_t>(rows, rows, 8.0, seed + static_cast<std::uint64_t>(rows));
        for (auto& v : a_host.values().span()) v = 0.1 * std::abs(v);
        Dense<double> x0 = test::random_dense<double>(rows, d, seed + 1), y = test::random_dense<double>(rows, d, seed + 2);
        for (auto* m : {&x0, &y})
            for (auto& v : m->values().span()) v = std::abs(v);
        for (const char* config : {"rows", "slices"}) {
            SCOPED_TRACE(std::string("rows ") + std::to_string(rows) + " config " + config);
            const SddmmOptions opt{.config = config};
            std::vector<Dense<double>> x_ref, e_ref;
            x_ref.push_back(x0.to(Executor::cpu()));
            for (int k = 0; k < steps; ++k) {
                e_ref.emplace_back(Executor::cpu(), a_host.nnz(), 1);
                sddmm(ref, a_host.view(), x_ref[k].cview(), y.cview(), e_ref[k].view(), opt);
                x_ref.emplace_back(Executor::cpu(), rows, d);
                SpmmPlan<double, std::int32_t> plan(ref, a_host.view(), d);
                plan.run_with_values(e_ref[k].cview(), x0.cview(), x_ref[k + 1].view());
            }
            const auto a = a_host.to(gpu);
            const auto x0_gpu = x0.to(gpu), y_gpu = y.to(gpu);
            SpmmPlan<double, std::int32_t> plan(gpu, a.view(), d);
            std::vector<Dense<double>> x, e;
            x.push_back(x0.to(gpu));
            for (int k = 0; k < steps; ++k) {
                e.emplace_back(gpu, a.nnz(), 1);
                sddmm(gpu, a.view(), x[k].cview(), y_gpu.cview(), e[k].view(), opt);
                x.emplace_back(gpu, rows, d);
                plan.run_with_values(e[k].cview(), x0_gpu.cview(), x[k + 1].view());
            }
            for (int k = 0; k < steps; ++k) {
                EXPECT_TRUE(test::all_close(test::to_doubles(e[k].to(Executor::cpu())), test::to_doubles(e_ref[k]), 1e-9, 0.0))
                    << "e, step " << k;
                EXPECT_TRUE(test::all_close(test::to_doubles(x[k + 1].to(Executor::cpu())), test::to_doubles(x_ref[k + 1]), 1e-9, 0.0, d))
                    << "x, step " << k + 1;
            }
        }
    }
}

// No atomics: the gradients come out bit for bit the same on every run.
TEST_F(CudaSddmm, GradientsAreRepeatable) {
    const std::uint64_t seed = test::seed("cuda_sddmm_repeat");
    const auto a = generate_rmat<float, std::int32_t>(10, 16.0, 0.57, 0.19, 0.19, 0.05, seed);
    const Problem pr{.d = 32, .heads = 2};
    const auto x = test::random_strided<float>(a.rows(), 64, Layout::row_major, 0, seed + 1);
    const auto y = test::random_strided<float>(a.cols(), 64, Layout::row_major, 0, seed + 2);
    const auto g = test::random_strided<float>(a.nnz(), 2, Layout::row_major, 0, seed + 3);
    const Results first = run(Executor::cuda(0), a, x, y, g, pr), second = run(Executor::cuda(0), a, x, y, g, pr);
    EXPECT_EQ(first.dx, second.dx);
    EXPECT_EQ(first.dy, second.dy);
    EXPECT_EQ(first.da, second.da);
}

// Neighbouring rows of every kind of difference in length, for the rows mode: runs of equal rows
// sharing one pattern (a mesh node's unknowns), empty rows (first among them), one-entry rows,
// rows a few rounds longer than their warp's others and rows far longer (300 entries), lengths
// that are no multiple of a round, and a row count that is no multiple of 32.
template <class V, class I>
Csr<V, I> uneven_neighbour_rows(index_t rows, index_t cols, std::uint64_t seed) {
    static constexpr index_t lengths[] = {0, 5, 5, 5, 1, 0, 0, 13, 40, 40, 2, 0, 300, 7, 7, 77, 3, 0, 9, 129, 6, 64, 64, 64};
    std::mt19937_64 rng(seed);
    std::vector<I> all(static_cast<std::size_t>(cols)), pattern;
    std::iota(all.begin(), all.end(), I(0));
    std::vector<I> ptr{0}, col;
    for (index_t i = 0; i < rows; ++i) {
        const index_t len = std::min(lengths[static_cast<std::size_t>(i) % std::size(lengths)], cols);
        if (static_cast<index_t>(pattern.size()) != len) {  // a new run: fresh random columns
            pattern.clear();
            std::sample(all.begin(), all.end(), std::back_inserter(pattern), len, rng);
        }
        col.insert(col.end(), pattern.begin(), pattern.end());
        ptr.push_back(static_cast<I>(col.size()));
    }
    std::vector<V> val;
    for (std::size_t p = 0; p < col.size(); ++p) val.push_back(value_cast<V>(0.25 + static_cast<double>(rng() % 100) / 80.0));
    return Csr<V, I>(Executor::cpu(), rows, cols, ptr, col, val);
}

// The rows mode on meshes (elasticity: rows in equal triples; laplace3d: shifted stencils) for
// every compiled rows shape: up to 4 or 8 lanes in one step, 8 or 32 lanes in several, with
// 16-byte vectors (d a multiple of 4) or single values (odd d: 1, 7, 33, 129). "rows" alone
// splits each group of rows among warps here (the meshes are too small to fill the device with
// groups of rows); ".s1" does not; a config whose lanes cannot hold d runs the slices mode.
TEST_F(CudaSddmm, NeighbourRowsOnMeshes) {
    const std::uint64_t seed = test::seed("cuda_sddmm_rows_meshes");
    const auto elasticity = generate_amg_matrix<float, std::int32_t>(AmgProblem::elasticity3d, 7, 6, 5);
    const auto laplace = generate_amg_matrix<float, std::int32_t>(AmgProblem::laplace3d, 9, 8, 7);
    for (const char* config : {"rows", "rows.g4", "rows.g8.s1", "rows.g32", "rows.g32.s1"})
        for (const auto* a : {&elasticity, &laplace})
            for (const index_t d : {1, 7, 16, 32, 33, 128, 129, 256, 512})
                for (const bool scale : {false, true}) check(*a, Problem{.d = d, .scale = scale, .config = config}, seed);
    for (const index_t d : {1, 7, 32, 128, 129}) {
        check(elasticity, Problem{.d = d, .heads = 3, .config = "rows"}, seed);
        check(elasticity, Problem{.d = d, .heads = 3, .config = "rows.g8"}, seed);
        check(laplace, Problem{.d = d, .heads = 2, .scale = false, .config = "rows"}, seed);
    }
}

TEST_F(CudaSddmm, NeighbourRowsValueAndIndexTypes) {
    const std::uint64_t seed = test::seed("cuda_sddmm_rows_types");
    const auto f64 = generate_amg_matrix<double, std::int32_t>(AmgProblem::elasticity3d, 5, 4, 4);
    const auto f32_int64 = generate_amg_matrix<float, std::int64_t>(AmgProblem::elasticity3d, 5, 4, 4);
    const auto f16 = generate_amg_matrix<spk::f16, std::int32_t>(AmgProblem::elasticity3d, 5, 4, 4);
    const auto bf16 = generate_amg_matrix<spk::bf16, std::int64_t>(AmgProblem::laplace3d, 8, 7, 6);
    for (const index_t d : {1, 7, 32, 128, 129})
        for (const int heads : {1, 2}) {
            check(f64, Problem{.d = d, .heads = heads, .config = "rows"}, seed);
            check(f32_int64, Problem{.d = d, .heads = heads, .scale = false, .config = "rows"}, seed);
            check(f16, Problem{.d = d, .heads = heads, .config = "rows"}, seed);
            check(bf16, Problem{.d = d, .heads = heads, .scale = heads == 1, .config = "rows"}, seed);
        }
}

// Lanes idle past their row's end (and whole idle sub-groups on empty rows, or past the last
// row) must neither write nor disturb their neighbours' sums.
TEST_F(CudaSddmm, NeighbourRowsOfUnevenLengths) {
    const std::uint64_t seed = test::seed("cuda_sddmm_rows_uneven");
    const auto a = uneven_neighbour_rows<float, std::int32_t>(1001, 1500, seed);
    // Spans of a split that end mid-row, past short rows' ends, or hold nothing (split 64 over
    // rows of 0 to 300 entries).
    for (const char* config : {"rows", "rows.g8", "rows.g32.s1", "rows.g32.s5", "rows.s64"})
        for (const index_t d : {1, 7, 32, 128, 129})
            for (const int heads : {1, 2})
                for (const bool scale : {false, true}) check(a, Problem{.d = d, .heads = heads, .scale = scale, .config = config}, seed);
    check(uneven_neighbour_rows<double, std::int64_t>(333, 400, seed), Problem{.d = 32, .heads = 2, .config = "rows"}, seed);
    check(uneven_neighbour_rows<f16, std::int32_t>(333, 400, seed), Problem{.d = 128, .config = "rows"}, seed);
    check(uneven_neighbour_rows<bf16, std::int64_t>(333, 400, seed), Problem{.d = 7, .heads = 3, .config = "rows"}, seed);
    // Column-major X and Y (row-major copies), padded rows (no 16-byte loads), column-major out.
    check(a, Problem{.d = 32, .layout = Layout::col_major, .config = "rows"}, seed);
    check(a, Problem{.d = 32, .heads = 2, .pad = 1, .out_layout = Layout::col_major, .config = "rows"}, seed);
    // One row holding half the columns, and the edge cases.
    check(skewed_matrix<float, std::int32_t>(300, 250, seed), Problem{.d = 32, .config = "rows"}, seed);
    check(skewed_matrix<float, std::int32_t>(300, 250, seed), Problem{.d = 32, .config = "rows.g8.s3"}, seed);
    const Csr<float, std::int32_t> no_entries(Executor::cpu(), 6, 4, std::vector<std::int32_t>(7, 0), {}, {});
    const Csr<float, std::int32_t> one(Executor::cpu(), 1, 1, std::vector<std::int32_t>{0, 1}, {0}, {2.0f});
    for (const index_t d : {0, 1, 4}) {
        check(no_entries, Problem{.d = d, .config = "rows"}, seed);
        check(one, Problem{.d = d, .config = "rows"}, seed);
    }
    // d too wide for X's row in registers: the slices mode, whatever the config says.
    check(a, Problem{.d = 513, .config = "rows"}, seed);
}

TEST_F(CudaSddmm, UnknownConfigIsInvalidArgument) {
    const Executor gpu = Executor::cuda(0);
    const auto a = Csr<float, std::int32_t>(Executor::cpu(), 1, 1, std::vector<std::int32_t>{0, 1}, {0}, {1.0f}).to(gpu);
    Array<float> x(gpu, 4), y(gpu, 4), out(gpu, 1);
    const DenseView<const float> xv{x.data(), 1, 4, 4, Layout::row_major, x.space()}, yv{y.data(), 1, 4, 4, Layout::row_major, y.space()};
    const DenseView<float> out_view{out.data(), 1, 1, 1, Layout::row_major, out.space()};
    test::expect_error([&] { sddmm(gpu, a.view(), xv, yv, out_view, {.config = "fast"}); }, ErrorKind::InvalidArgument, "\"fast\"");
    for (const std::string bad :
         {"rows.g5", "rows.g16", "rows.s0", "rows.s", "rows.g8.g8", "rows.", "rowsg8", "rows.x2", "rows.s99999999999"})
        test::expect_error([&] { sddmm(gpu, a.view(), xv, yv, out_view, {.config = bad}); }, ErrorKind::InvalidArgument, "\"" + bad + "\"");
}

#ifdef SPK_WITH_CUDA
// The rows-mode shapes and the config grammar, on the host (no device needed): the narrowest
// shape for d, a shape of given lanes where one holds d, and rows[.g<lanes>][.s<split>].
TEST(SddmmConfig, RowsShapesAndConfigStrings) {
    using detail::cuda::pick_rows_shape;
    const auto shape = [](long long d, int wide, int lanes) {
        const auto s = pick_rows_shape(d, wide, lanes);
        return std::to_string(s.g) + "x" + std::to_string(s.vec) + "x" + std::to_string(s.held);
    };
    EXPECT_EQ(shape(16, 4, 0), "4x4x1");
    EXPECT_EQ(shape(32, 4, 0), "8x4x1");
    EXPECT_EQ(shape(128, 4, 0), "8x4x4");
    EXPECT_EQ(shape(512, 4, 0), "32x4x4");
    EXPECT_EQ(shape(513, 1, 0), "0x1x1");  // X's row would not fit in registers
    EXPECT_EQ(shape(129, 1, 0), "32x1x8");
    EXPECT_EQ(shape(32, 4, 4), "0x1x1");  // 4 lanes of 4 values hold 16 features
    EXPECT_EQ(shape(16, 4, 8), "8x4x1");
    EXPECT_EQ(shape(32, 4, 32), "32x4x4");
    EXPECT_EQ(shape(32, 4, 16), "0x1x1");  // no shape of 16 lanes is compiled
    for (const char* good : {"", "slices", "rows", "rows.g4", "rows.g8.s3", "rows.s8.g8", "rows.s64", "rows.g32.s1"})
        EXPECT_NO_THROW(detail::cuda::check_sddmm_config(good)) << good;
    for (const std::string bad : {"row", "rows.g16", "rows.s0", "rows.s1.s2", "rows..g8", "slices.s2"})
        test::expect_error([&] { detail::cuda::check_sddmm_config(bad); }, ErrorKind::InvalidArgument, "\"" + bad + "\"");
}

// The automatic choice: the rows mode for a mesh with enough rows to fill the device, split
// among warps for a mesh too small for that, the slices mode for power-law rows and random
// columns of even rows; the config overrides it except where no rows shape holds d. Both meshes
// also run the automatic path end to end against the reference (d = 32 then 128 on the small one:
// one choice kept for both).
TEST_F(CudaSddmm, AutomaticModeChoice) {
    using detail::cuda::sddmm_dot_choice;
    using detail::cuda::SddmmDotMode;
    const std::uint64_t seed = test::seed("cuda_sddmm_rows_choice");
    const Executor gpu = Executor::cuda(0);
    const auto mode = [&](const auto& a, index_t d, const char* config) { return sddmm_dot_choice(gpu, a.view(), d, true, config).mode; };
    // d = 32 floats: 8 lanes a row, 4 rows a warp; groups of rows fill the device with 4 rows for
    // each of its resident warps (32 per SM). Twice that: elasticity with n^3 nodes has 3n^3 rows.
    const index_t needed = 2 * index_t{detail::cuda::device_properties(gpu.device()).sm_count} * 32 * 4;
    index_t n = 2;
    while (3 * n * n * n < needed) ++n;
    const auto mesh = generate_amg_matrix<float, std::int32_t>(AmgProblem::elasticity3d, n, n, n);
    const auto mesh_dev = mesh.to(gpu);
    const auto big = sddmm_dot_choice(gpu, mesh_dev.view(), 32, true, "");
    EXPECT_EQ(big.mode, SddmmDotMode::rows);
    EXPECT_EQ(big.shape.g, 8);
    EXPECT_EQ(big.split, 1);
    EXPECT_EQ(mode(mesh_dev, 32, "slices"), SddmmDotMode::slices);
    EXPECT_EQ(mode(mesh_dev, 4096, "rows"), SddmmDotMode::slices);
    check(mesh, Problem{.d = 32}, seed);

    const auto rmat = generate_rmat<float, std::int32_t>(16, 16.0, 0.57, 0.19, 0.19, 0.05, seed).to(gpu);
    EXPECT_EQ(mode(rmat, 32, ""), SddmmDotMode::slices);
    EXPECT_EQ(mode(rmat, 32, "rows"), SddmmDotMode::rows);
    const auto small_rmat = generate_rmat<float, std::int32_t>(11, 16.0, 0.57, 0.19, 0.19, 0.05, seed).to(gpu);
    EXPECT_EQ(mode(small_rmat, 32, ""), SddmmDotMode::slices);
    const auto uniform = generate_uniform<float, std::int32_t>(needed, needed, 16.0, seed).to(gpu);
    EXPECT_EQ(mode(uniform, 32, ""), SddmmDotMode::slices);
    // Even rows of random columns too few to fill the device: the rows mode (its shorter chain of
    // loads, not shared Y rows, is what it gains there).
    const auto small_uniform = generate_uniform<float, std::int32_t>(2000, 2000, 16.0, seed);
    EXPECT_EQ(mode(small_uniform.to(gpu), 32, ""), SddmmDotMode::rows);
    check(small_uniform, Problem{.d = 32}, seed);

    // 192 rows of 24 to 81 entries (padded by a fifth in groups of 4): too few groups of rows to
    // fill the device, so each group's positions are split among warps.
    const auto small = generate_amg_matrix<float, std::int32_t>(AmgProblem::elasticity3d, 4, 4, 4);
    const auto small_dev = small.to(gpu);
    for (const index_t d : {32, 128}) {
        const auto choice = sddmm_dot_choice(gpu, small_dev.view(), d, true, "");
        EXPECT_EQ(choice.mode, SddmmDotMode::rows) << d;
        EXPECT_EQ(choice.shape.g, 8) << d;
        EXPECT_GT(choice.split, 1) << d;
        if (d == 128) {
            EXPECT_EQ(choice.split, 8);  // one entry a round: 8 warps a group
        }
        check(small, Problem{.d = d}, seed);
    }
    const auto forced = sddmm_dot_choice(gpu, small_dev.view(), 32, true, "rows.g8.s3");
    EXPECT_EQ(forced.shape.g, 8);
    EXPECT_EQ(forced.split, 3);
    test::expect_error([&] { sddmm_dot_choice(gpu, small_dev.view(), 32, true, "fast"); }, ErrorKind::InvalidArgument, "options.config");
}
#endif

// A failure inside the CUDA path (here: the workspace for a column-major X far larger than any
// device) reaches the caller as spk::Error. The views claim more memory than they own, but the
// allocation fails before any kernel could read it.
TEST_F(CudaSddmm, DeviceFailureIsAnSpkError) {
    const Executor gpu = Executor::cuda(0);
    std::vector<std::int32_t> ptr(1025, 1);  // row 0 holds the one entry
    ptr[0] = 0;
    const auto a = Csr<float, std::int32_t>(Executor::cpu(), 1024, 1, ptr, {0}, {1.0f}).to(gpu);
    const index_t width = index_t{1} << 27;  // X: 1024 x 2^27 floats = 512 GiB
    Array<float> small(gpu, 16);
    Array<float> out(gpu, 1);
    const DenseView<const float> x{small.data(), 1024, width, 1024, Layout::col_major, small.space()};
    const DenseView<const float> y{small.data(), 1, width, width, Layout::row_major, small.space()};
    const DenseView<float> out_view{out.data(), 1, 1, 1, Layout::row_major, out.space()};
    test::expect_error([&] { sddmm(gpu, a.view(), x, y, out_view); }, ErrorKind::OutOfMemory, "cudaMalloc");
}

}  // namespace
}  // namespace spk
