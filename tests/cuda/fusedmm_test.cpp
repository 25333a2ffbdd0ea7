// CUDA FusedMM against the reference, forward and backward: the patterns users run (GCN, dot
// attention with 1 and 4 heads, GAT, Force2Vec, t-SNE, max aggregation), every option
// combination, both kernel shapes and vector widths, wide rows cut into tiles, long rows cut into
// chunks (one of 100 000 entries, R-MAT hubs), the backward pass's long rows and long columns
// (full rows and columns, R-MAT; every score, partial gradients, bit-identical reruns, a kept Aᵀ pattern, the stored
// edge terms), structured
// and real graphs, edge cases, int64, f16/bf16 and column-major operands. Skips without a device.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "ops/fusedmm_test_support.hpp"
#include "spk/io.hpp"

namespace spk::test {
namespace {

using fused::pattern;
using fused::Problem;

class CudaFusedmm : public ::testing::Test {
protected:
    void SetUp() override {
        if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
};

template <class T>
std::vector<double> as_doubles(const Dense<T>& d) {
    std::vector<double> out;
    for (T v : d.values().to_vector()) out.push_back(value_cast<double>(v));
    return out;
}

// Everything a forward and backward run produces, as host doubles.
struct Outcome {
    std::vector<double> e, row_max, row_sum, argmax, attention;
    fused::Grads grads;
};

// Forward, then backward from de, of p with X = x_host on exec; inputs and outputs live in exec's
// memory and use `layout` for the dense operands and gradients. give_output: the backward is given E.
template <class V, class I>
Outcome run_with_x(const Executor& exec, const Problem<V, I>& p, const Dense<V>& x_host, const Dense<V>& de_host,
                   Layout layout = Layout::row_major, bool give_output = false) {
    const auto move = [&](const Dense<V>& d) {
        if (layout == Layout::row_major) return d.to(exec);
        std::vector<V> host(static_cast<std::size_t>(d.rows() * d.cols()));
        const std::vector<V> src = d.values().to_vector();
        for (index_t i = 0; i < d.rows(); ++i)
            for (index_t j = 0; j < d.cols(); ++j) host[j * d.rows() + i] = src[i * d.cols() + j];
        return Dense<V>(exec, d.rows(), d.cols(), host, Layout::col_major);
    };
    const auto a = p.a.to(exec);
    const Dense<V> x = move(x_host), y = move(p.y), z = move(p.z), de = move(de_host);
    Dense<V> e(exec, p.a.rows(), p.z.cols(), layout);
    const FusedPlan<V, I> plan(exec, a.view(), p.options);
    const FusedSaved<V, I> saved = plan.forward(x.view(), y.view(), z.view(), e.view());
    Dense<V> dx(exec, x.rows(), x.cols(), layout), dy(exec, y.rows(), y.cols(), layout), dz(exec, z.rows(), z.cols(), layout);
    Dense<V> da(exec, p.a.nnz(), 1);
    plan.backward(de.view(), saved, x.view(), y.view(), z.view(), dx.view(), dy.view(), dz.view(), da.view(),
                  give_output ? DenseView<const V>(e.view()) : DenseView<const V>{});
    return {to_doubles(e),
            as_doubles(saved.row_max),
            as_doubles(saved.row_sum),
            as_doubles(saved.argmax),
            as_doubles(saved.attention),
            {to_doubles(dx), to_doubles(dy), to_doubles(dz), to_doubles(da)}};
}

template <class V, class I>
Outcome run(const Executor& exec, const Problem<V, I>& p, const Dense<V>& de_host, Layout layout = Layout::row_major,
            bool give_output = false) {
    return run_with_x(exec, p, p.x, de_host, layout, give_output);
}

// p's X, moved where a dot score lies within rounding of 0 under leaky_relu: the device and the
// reference sum the score in different orders, may then land on the two sides of the kink and
// take different slopes (1 and the leak) for that entry's gradients, which no tolerance covers
// (seen once in f32: a score of 3.3e-8 summed to exactly 0 by the reference, dX and dY of its
// row and column off by 30%). Each such entry's X_i moves along the feature where Y_j is largest
// until every |score| is at least `margin`; the other entries of row i are checked again.
template <class V, class I>
Dense<V> x_off_the_kink(const Problem<V, I>& p) {
    std::vector<V> x = p.x.values().to_vector();
    const FusedOptions& o = p.options;
    if (o.score != Score::dot || o.edge.kind != Edge::Kind::leaky_relu || x.empty())
        return Dense<V>(Executor::cpu(), p.x.rows(), p.x.cols(), x);
    const double margin = sizeof(V) >= 4 ? 1e-3 : 5e-2;  // above the 16-bit types' rounding too
    const std::vector<V> y = p.y.values().to_vector();
    const index_t w = p.x.cols(), d = w / o.heads;
    const auto a = p.a.view();
    const auto at = [&](const std::vector<V>& m, index_t row, index_t f) { return value_cast<double>(m[row * w + f]); };
    for (int round = 0; round < 8; ++round) {
        bool moved = false;
        for (index_t i = 0; i < p.a.rows(); ++i)
            for (auto q = a.row_ptr[i]; q < a.row_ptr[i + 1]; ++q)
                for (index_t h = 0; h < o.heads; ++h) {
                    const index_t j = a.col_idx[q], f0 = h * d;
                    double score = 0;
                    index_t widest = f0;
                    for (index_t f = f0; f < f0 + d; ++f) {
                        score += at(x, i, f) * at(y, j, f);
                        if (std::abs(at(y, j, f)) > std::abs(at(y, j, widest))) widest = f;
                    }
                    const double yw = at(y, j, widest);
                    if (std::abs(score) >= margin || std::abs(yw) < 1e-2) continue;
                    // Away from 0 on the score's side, by 4 margins.
                    const double step = (score >= 0 ? 4 : -4) * margin / yw;
                    x[i * w + widest] = value_cast<V>(at(x, i, widest) + step);
                    moved = true;
                }
        if (!moved) break;
    }
    return Dense<V>(Executor::cpu(), p.x.rows(), p.x.cols(), x);
}

struct Tolerance {
    double rtol, atol;
};

template <class V>
Tolerance forward_tolerance() {
    if constexpr (std::is_same_v<V, double>) return {1e-10, 1e-12};
    if constexpr (std::is_same_v<V, float>) return {1e-4, 1e-5};
    return {rtol_for<V>(), 2e-2};
}

// Gradients sum many signed terms in another order than the reference: looser in absolute terms.
template <class V>
Tolerance gradient_tolerance() {
    if constexpr (std::is_same_v<V, double>) return {1e-9, 1e-11};
    if constexpr (std::is_same_v<V, float>) return {1e-3, 1e-4};
    return {5e-2, 5e-2};
}

// Sums of many terms taken in another order than the reference's differ by rounding that scales
// with the terms, not with the sum: an entry that cancels to near zero needs an absolute tolerance
// from the output's scale (f64, neg_sqdist over 300 features, rows of 260: terms of about 1e2, one
// entry of E summing to -2.3e-3 missed atol = 1e-12 by rounding alone, the long row summed in chunks).
Tolerance scaled_to(const Tolerance& t, const std::vector<double>& expected) {
    double scale = 0;
    for (double v : expected)
        if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
    return {t.rtol, t.atol + 1e-3 * t.rtol * scale};
}

template <class V, class I>
void expect_matches_reference(const Problem<V, I>& p, std::uint64_t s, Layout layout = Layout::row_major, bool give_output = false) {
    SCOPED_TRACE(fused::describe(p.options) + " config=" + p.options.config + " rows=" + std::to_string(p.a.rows()) +
                 " nnz=" + std::to_string(p.a.nnz()) + " dz=" + std::to_string(p.dz) + (layout == Layout::col_major ? " col-major" : "") +
                 (give_output ? " E given" : ""));
    const Dense<V> de = random_dense<V>(p.a.rows(), p.z.cols(), s), x = x_off_the_kink(p);
    const Outcome want = run_with_x(Executor::reference(), p, x, de);
    const Outcome got = run_with_x(Executor::cuda(0), p, x, de, layout, give_output);
    const Tolerance f = forward_tolerance<V>(), g = gradient_tolerance<V>(), fe = scaled_to(f, want.e);
    const index_t cols = std::max<index_t>(p.z.cols(), 1);
    EXPECT_TRUE(all_close(got.e, want.e, fe.rtol, fe.atol, cols)) << "E";
    EXPECT_TRUE(all_close(got.row_max, want.row_max, f.rtol, f.atol)) << "row_max";
    EXPECT_TRUE(all_close(got.row_sum, want.row_sum, f.rtol, f.atol)) << "row_sum";
    EXPECT_TRUE(all_close(got.attention, want.attention, f.rtol, f.atol, p.options.heads)) << "attention";
    EXPECT_EQ(got.argmax, want.argmax) << "argmax";
    EXPECT_TRUE(all_close(got.grads.dx, want.grads.dx, g.rtol, g.atol, std::max<index_t>(p.x.cols(), 1))) << "dX";
    EXPECT_TRUE(all_close(got.grads.dy, want.grads.dy, g.rtol, g.atol, std::max<index_t>(p.y.cols(), 1))) << "dY";
    EXPECT_TRUE(all_close(got.grads.dz, want.grads.dz, g.rtol, g.atol, cols)) << "dZ";
    EXPECT_TRUE(all_close(got.grads.da, want.grads.da, g.rtol, g.atol)) << "dA";
}

TEST_F(CudaFusedmm, GcnAggregation) {
    const auto s = seed("cuda_fusedmm_gcn");
    std::uint64_t k = 0;
    for (Aggregate g : {Aggregate::sum, Aggregate::mean})
        for (index_t dz : {1, 32, 33, 128}) {
            const FusedOptions o = pattern(Score::value, Edge::identity(), Normalize::none, g, 1);
            expect_matches_reference(fused::random_problem<float, std::int32_t>(400, 300, 8.0, 0, dz, o, s + k), s + k + 1);
            expect_matches_reference(fused::random_problem<float, std::int64_t>(200, 300, 6.0, 0, dz, o, s + k + 2), s + k + 3);
            k += 4;
        }
}

TEST_F(CudaFusedmm, DotProductAttentionWithOneAndFourHeads) {
    const auto s = seed("cuda_fusedmm_dot_attention");
    std::uint64_t k = 0;
    for (int heads : {1, 4})
        for (bool save : {false, true}) {
            const FusedOptions o = pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, heads, save);
            expect_matches_reference(fused::random_problem<float, std::int32_t>(300, 300, 10.0, 16, 8, o, s + k), s + k + 1);
            expect_matches_reference(fused::random_problem<double, std::int32_t>(200, 150, 10.0, 64, 64, o, s + k + 2), s + k + 3);
            k += 4;
        }
}

TEST_F(CudaFusedmm, GraphAttentionNetwork) {
    const auto s = seed("cuda_fusedmm_gat");
    for (bool save : {false, true})
        expect_matches_reference(
            fused::random_problem<float, std::int32_t>(
                400, 400, 6.0, 1, 16, pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 4, save), s),
            s + 1);
}

TEST_F(CudaFusedmm, Force2VecAndTsne) {
    const auto s = seed("cuda_fusedmm_embeddings");
    std::uint64_t k = 0;
    for (Aggregate g : {Aggregate::sum, Aggregate::mean}) {
        expect_matches_reference(fused::random_problem<float, std::int32_t>(
                                     300, 300, 8.0, 32, 32, pattern(Score::dot, Edge::sigmoid(), Normalize::none, g, 1), s + k),
                                 s + k + 1);
        for (Edge edge : {Edge::exp(), Edge::identity()})
            expect_matches_reference(fused::random_problem<float, std::int64_t>(
                                         300, 300, 8.0, 32, 32, pattern(Score::neg_sqdist, edge, Normalize::none, g, 1), s + k + 2),
                                     s + k + 3);
        expect_matches_reference(
            fused::random_problem<float, std::int32_t>(300, 300, 8.0, 16, 16,
                                                       pattern(Score::neg_sqdist, Edge::identity(), Normalize::softmax, g, 2), s + k + 4),
            s + k + 5);
        k += 6;
    }
}

// f64 so that no two candidates tie within rounding: the winners must equal the reference's.
TEST_F(CudaFusedmm, MaxAggregationWithArgmax) {
    const auto s = seed("cuda_fusedmm_max");
    std::uint64_t k = 0;
    for (Score score : {Score::value, Score::dot, Score::add, Score::neg_sqdist})
        for (Normalize n : {Normalize::none, Normalize::softmax})
            for (int heads : {1, 4}) {
                const FusedOptions o = pattern(score, Edge::sigmoid(), n, Aggregate::max, heads, k % 2 == 1);
                expect_matches_reference(fused::random_problem<double, std::int32_t>(250, 200, 8.0, 8, 12, o, s + k), s + k + 1);
                ++k;
            }
}

// Max aggregation under softmax when the row's max grows far after an early winner: every
// weight but the dominant one underflows to 0, so the other values α_ij Z_j are ties at ±0, and
// the reference gives them to the first entry of the row (the dominant entry's Z is negative).
// A winner chosen under the early max and rescaled later must not win instead. Row 0: weights
// 0..3 (one batch), then the dominant one; row 1: the dominant one first; row 2: empty.
template <class V>
void check_max_under_a_growing_softmax_max(std::uint64_t s) {
    const Executor host = Executor::cpu();
    const std::vector<V> z{V(-0.5), V(-0.25), V(0.75), V(0.5), V(0.25), V(-0.75), V(-0.125), V(0.875), V(-1), V(-0.5), V(0.5), V(0.25)};
    const Dense<V> de = random_dense<V>(3, 2, s);
    // The dominant score: 2000 as the weight itself, or 8 through the exp edge (weight e^8 ≈ 2981).
    for (const auto& [edge, top] : {std::pair{Edge::identity(), V(2000)}, std::pair{Edge::exp(), V(8)}})
        for (bool save : {false, true}) {
            Problem<V, std::int32_t> p;
            p.a = Csr<V, std::int32_t>(host, 3, 6, {0, 5, 8, 8}, {0, 1, 2, 3, 4, 0, 2, 5}, {V(0), V(1), V(2), V(3), top, top, V(0), V(1)});
            p.x = Dense<V>(host, 0, 0);
            p.y = Dense<V>(host, 0, 0);
            p.z = Dense<V>(host, 6, 2, z);
            p.dz = 2;
            p.options = pattern(Score::value, edge, Normalize::softmax, Aggregate::max, 1, save);
            SCOPED_TRACE(fused::describe(p.options));
            const Outcome got = run(Executor::cuda(0), p, de);
            EXPECT_EQ(got.argmax, (std::vector<double>{0, 0, 2, 2, -1, -1}));
            EXPECT_TRUE(all_close(got.e, std::vector<double>(6, 0.0), 0.0, 0.0, 2));
            expect_matches_reference(p, s);
        }
}

TEST_F(CudaFusedmm, MaxUnderSoftmaxComparesTheFinalWeights) {
    const auto s = seed("cuda_fusedmm_max_softmax_growth");
    check_max_under_a_growing_softmax_max<float>(s);
    check_max_under_a_growing_softmax_max<double>(s + 1);
}

// Every score x edge x normalize x aggregate, heads 1 and 4, with saved attention on every other
// case, on widths that select each kernel shape (8 or 32 lanes, vectors or not) and tiles.
TEST_F(CudaFusedmm, EveryCombinationMatchesTheReference) {
    const auto s = seed("cuda_fusedmm_combinations");
    const index_t widths[] = {1, 3, 8, 17, 33, 64};
    std::uint64_t k = 0;
    for (int heads : {1, 4})
        for (FusedOptions o : fused::all_combinations()) {
            o.heads = heads;
            o.save_attention = k % 2 == 1;
            const index_t d = widths[k % 6], dz = widths[(k + 2) % 6];
            if (k % 3 == 0)
                expect_matches_reference(fused::random_problem<double, std::int64_t>(120, 90, 6.0, d, dz, o, s + k), s + k + 1);
            else
                expect_matches_reference(fused::random_problem<double, std::int32_t>(120, 90, 6.0, d, dz, o, s + k), s + k + 1);
            ++k;
        }
}

// Row teams (FusedOptions::config "team<P>"): P groups of lanes share a row, each walking a span
// of it, and merge their states: by shuffles inside a warp (groups of 4 or 8 lanes), through
// shared memory across warps (groups of 32: widths 33 and 64, and the wide rows in tiles below).
// Every option combination matches the reference under teams of 4 (capped where groups of 8
// lanes would not fit a warp; max aggregation takes none), some under 2 and 8, with rows shorter
// than the team and empty rows among them; a small graph of long rows (which the automatic choice
// gives teams of 4) matches under "auto" and "team1", and the plan reports the configuration it
// was given.
TEST_F(CudaFusedmm, RowTeamsMatchTheReference) {
    const auto s = seed("cuda_fusedmm_row_teams");
    const index_t widths[] = {1, 3, 8, 17, 33, 64};
    std::uint64_t k = 0;
    for (const char* config : {"team4", "team2", "team8"})
        for (FusedOptions o : fused::all_combinations()) {
            ++k;
            if (std::string(config) != "team4" && k % 3 != 0) continue;
            o.config = config;
            o.heads = k % 3 == 1 ? 4 : 1;
            o.save_attention = k % 2 == 1;
            const index_t d = widths[k % 6], dz = widths[(k + 2) % 6];
            // exp edges under softmax take exp(w - max w) of w = exp(score), and w reaches thousands
            // (d = 64: score 8.3, w = 4207), where one f32 rounding of the max (ulp 5e-4) moves every
            // term: the f32 reference, which keeps the max in f32 and w in f64, summed a row to 1.00017
            // where the exact sum, the CPU backend and the device give 1.00000. f64 for them.
            const bool ill_conditioned = o.edge.kind == Edge::Kind::exp && o.normalize == Normalize::softmax;
            if (k % 4 == 0)
                expect_matches_reference(fused::random_problem<double, std::int64_t>(150, 120, 12.0, d, dz, o, s + k), s + k + 1);
            else if (ill_conditioned)
                expect_matches_reference(fused::random_problem<double, std::int32_t>(150, 120, 12.0, d, dz, o, s + k), s + k + 1);
            else
                expect_matches_reference(fused::random_problem<float, std::int32_t>(150, 120, 12.0, d, dz, o, s + k), s + k + 1);
        }
    // Teams of warps on rows wider than a tile, one tile a grid row.
    for (const char* config : {"team2", "team8"}) {
        FusedOptions o = pattern(Score::dot, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 2, true);
        o.config = config;
        expect_matches_reference(fused::random_problem<float, std::int32_t>(90, 70, 20.0, 200, 301, o, s + 900), s + 901);
        expect_matches_reference(fused::random_problem<double, std::int64_t>(90, 70, 20.0, 72, 520, o, s + 902), s + 903);
    }
    for (const char* config : {"auto", "team1"}) {
        FusedOptions o = pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::mean, 1, true);
        o.config = config;
        const auto p = fused::random_problem<float, std::int32_t>(500, 400, 40.0, 32, 32, o, s + 1000);
        expect_matches_reference(p, s + 1001);
        const auto a = p.a.to(Executor::cuda(0));
        EXPECT_EQ((FusedPlan<float, std::int32_t>(Executor::cuda(0), a.view(), o).config()), std::string(config));
    }
}

// Rows wider than a group's registers (32 lanes x 8 values) are cut into tiles.
TEST_F(CudaFusedmm, WideRowsInTiles) {
    const auto s = seed("cuda_fusedmm_wide");
    std::uint64_t k = 0;
    for (const FusedOptions& o : {pattern(Score::dot, Edge::identity(), Normalize::softmax, Aggregate::sum, 1, true),
                                  pattern(Score::neg_sqdist, Edge::tanh(), Normalize::none, Aggregate::max, 2),
                                  pattern(Score::value, Edge::identity(), Normalize::softmax, Aggregate::mean, 1)}) {
        expect_matches_reference(fused::random_problem<double, std::int32_t>(60, 50, 5.0, 600, 520, o, s + k), s + k + 1);
        expect_matches_reference(fused::random_problem<float, std::int32_t>(60, 50, 5.0, 257, 301, o, s + k + 2), s + k + 3);
        k += 4;
    }
}

TEST_F(CudaFusedmm, StructuredGraphs) {
    const auto s = seed("cuda_fusedmm_structured");
    const FusedOptions attention = pattern(Score::dot, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 2);
    const FusedOptions gcn = pattern(Score::value, Edge::identity(), Normalize::none, Aggregate::mean, 1);
    std::uint64_t k = 0;
    for (const Csr<float, std::int32_t>& a :
         {generate_powerlaw<float, std::int32_t>(500, 500, 8.0, 2.0, s), generate_banded<float, std::int32_t>(300, 4, s + 1),
          generate_block_diagonal<float, std::int32_t>(10, 16, s + 2),
          generate_rmat<float, std::int32_t>(9, 8.0, 0.57, 0.19, 0.19, 0.05, s + 3)})
        for (const FusedOptions& o : {attention, gcn}) {
            auto p = fused::random_problem<float, std::int32_t>(a.rows(), a.cols(), 1.0, 8, 16, o, s + k);
            p.a = a.to(Executor::cpu());
            expect_matches_reference(p, s + k + 1);
            k += 2;
        }
}

TEST_F(CudaFusedmm, SharedRealGraph) {
    const auto s = seed("cuda_fusedmm_real");
    std::vector<std::string> graphs;
    for (const auto& f : shared_matrix_files())
        if (f.find("USPowerGrid") != std::string::npos || f.find("ca-GrQc") != std::string::npos) graphs.push_back(f);
    if (graphs.empty()) GTEST_SKIP() << "no shared graph at " << matrix_dir();
    for (const auto& f : graphs) {
        SCOPED_TRACE(f);
        const auto a = read_matrix_market<float, std::int32_t>(f);
        for (const FusedOptions& o : {pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 4),
                                      pattern(Score::dot, Edge::sigmoid(), Normalize::none, Aggregate::sum, 1)}) {
            auto p = fused::random_problem<float, std::int32_t>(a.rows(), a.cols(), 1.0, 16, 16, o, s);
            p.a = a.to(Executor::cpu());
            expect_matches_reference(p, s + 1);
        }
    }
}

TEST_F(CudaFusedmm, EmptyMatrixAndEmptyRows) {
    const auto s = seed("cuda_fusedmm_empty");
    std::uint64_t k = 0;
    for (FusedOptions o : fused::all_combinations()) {
        o.save_attention = k % 2 == 0;
        o.heads = k % 3 == 0 ? 2 : 1;
        expect_matches_reference(fused::random_problem<float, std::int32_t>(0, 0, 1.0, 3, 2, o, s + k), s + k);
        if (k % 4 == 0) {  // mostly empty rows, and rows without columns
            expect_matches_reference(fused::random_problem<float, std::int32_t>(7, 5, 0.0, 3, 2, o, s + k), s + k);
            expect_matches_reference(fused::random_problem<float, std::int32_t>(4, 0, 1.0, 3, 2, o, s + k), s + k);
        }
        ++k;
    }
}

// One row holds thousands of entries (every column); the other rows are short or empty.
TEST_F(CudaFusedmm, OneHugeRow) {
    const auto s = seed("cuda_fusedmm_huge_row");
    std::uint64_t k = 0;
    for (const FusedOptions& o : {pattern(Score::dot, Edge::identity(), Normalize::softmax, Aggregate::sum, 4, true),
                                  pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::max, 4),
                                  pattern(Score::neg_sqdist, Edge::exp(), Normalize::none, Aggregate::mean, 1),
                                  pattern(Score::value, Edge::sigmoid(), Normalize::softmax, Aggregate::sum, 2)}) {
        auto p = fused::random_problem<double, std::int32_t>(50, 5000, 1.0, 3, 5, o, s + k);
        std::vector<std::int32_t> ptr{0}, col;
        std::vector<double> val;
        for (index_t i = 0; i < 50; ++i) {
            for (index_t j = 0; j < 5000; ++j)
                if (i == 7 || (i + j) % 997 == 0) {
                    col.push_back(static_cast<std::int32_t>(j));
                    val.push_back(std::sin(static_cast<double>(i * 5000 + j)));
                }
            ptr.push_back(static_cast<std::int32_t>(col.size()));
        }
        p.a = Csr<double, std::int32_t>(Executor::cpu(), 50, 5000, ptr, col, val);
        expect_matches_reference(p, s + k + 1);
        ++k;
    }
}

// Short rows (0 to 5 entries at random columns) with the given long rows among them, each
// spread evenly over the columns, and the given long columns, each spread evenly over the rows
// (a column of `rows` entries is full). Values in [-1, 1]; no row repeats a column.
template <class V, class I>
Csr<V, I> with_long_rows(index_t rows, index_t cols, const std::vector<std::pair<index_t, index_t>>& long_rows, std::uint64_t s,
                         const std::vector<std::pair<index_t, index_t>>& long_columns = {}) {
    std::mt19937_64 rng(s);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<std::vector<index_t>> hub_rows(long_columns.size());  // the rows each long column holds
    for (std::size_t c = 0; c < long_columns.size(); ++c)
        for (index_t t = 0; t < long_columns[c].second; ++t) hub_rows[c].push_back(t * rows / long_columns[c].second);
    std::vector<I> ptr{0}, col;
    std::vector<V> val;
    for (index_t i = 0; i < rows; ++i) {
        std::vector<index_t> row;
        index_t len = -1;
        for (const auto& [r, l] : long_rows)
            if (r == i) len = l;
        if (len >= 0)
            for (index_t t = 0; t < len; ++t) row.push_back(t * cols / len);
        else
            for (index_t t = static_cast<index_t>(rng() % 6); t > 0; --t)
                row.push_back(static_cast<index_t>(rng() % static_cast<std::uint64_t>(cols)));
        for (std::size_t c = 0; c < long_columns.size(); ++c)
            if (std::binary_search(hub_rows[c].begin(), hub_rows[c].end(), i)) row.push_back(long_columns[c].first);
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        for (index_t j : row) {
            col.push_back(static_cast<I>(j));
            val.push_back(value_cast<V>(value(rng)));
        }
        ptr.push_back(static_cast<I>(col.size()));
    }
    return Csr<V, I>(Executor::cpu(), rows, cols, ptr, col, val);
}

// Forward calls queued back to back, each reading what the one before wrote (E_k is the next
// call's X, Y and Z: attention layers stacked): the forward kernel launches after the stream's
// previous kernel (launch_after_previous) and must wait for its writes. Short rows with one long
// row among them, one group and teams of four a row. Positive inputs and softmax weights: no
// cancellation, so a tight tolerance holds.
TEST_F(CudaFusedmm, ChainedCallsReadWhatThePreviousCallWrote) {
    const auto s = seed("cuda_fusedmm_chained");
    const Executor gpu = Executor::cuda(0), ref = Executor::reference();
    constexpr int steps = 6;
    const index_t d = 32;
    for (const index_t rows : {index_t{300}, index_t{20000}}) {
        auto a_host = with_long_rows<double, std::int32_t>(rows, rows, {{rows / 3, rows / 2}}, s + static_cast<std::uint64_t>(rows));
        for (auto& v : a_host.values().span()) v = std::abs(v);
        Dense<double> x0 = random_dense<double>(rows, d, s + 1);
        for (auto& v : x0.values().span()) v = 0.25 * std::abs(v);
        for (const char* config : {"auto", "team4"}) {
            SCOPED_TRACE(std::string("rows ") + std::to_string(rows) + " config " + config);
            FusedOptions o = pattern(Score::dot, Edge::identity(), Normalize::softmax, Aggregate::sum, 1);
            o.config = config;
            std::vector<Dense<double>> e_ref, e;
            e_ref.push_back(x0.to(Executor::cpu()));
            const FusedPlan<double, std::int32_t> reference(ref, a_host.view(), o);
            for (int k = 0; k < steps; ++k) {
                e_ref.emplace_back(Executor::cpu(), rows, d);
                (void)reference.forward(e_ref[k].cview(), e_ref[k].cview(), e_ref[k].cview(), e_ref[k + 1].view());
            }
            const auto a = a_host.to(gpu);
            const FusedPlan<double, std::int32_t> plan(gpu, a.view(), o);
            e.push_back(x0.to(gpu));
            std::vector<FusedSaved<double, std::int32_t>> saved;  // kept: a cudaFree between calls would wait for the device
            for (int k = 0; k < steps; ++k) {
                e.emplace_back(gpu, rows, d);
                saved.push_back(plan.forward(e[k].cview(), e[k].cview(), e[k].cview(), e[k + 1].view()));
            }
            for (int k = 1; k <= steps; ++k)
                EXPECT_TRUE(all_close(to_doubles(e[k].to(Executor::cpu())), to_doubles(e_ref[k]), 1e-9, 0.0, d)) << "step " << k;
        }
    }
}

// Rows far longer than the mean are cut into chunks whose states a second kernel merges (sum and
// mean, softmax or not). Rows of 1000 and 2999 entries are long on any device (the threshold is at
// most 16 times the mean row, about 300 here); the optional cuts below 128 (from 16 entries) would
// hold more than half an nnz-sized array of states on a graph this small, so on the H200 the
// threshold is 128 and the rows of 128 and 129 entries straddle it. Forward, saved statistics and
// the gradients computed from them must match.
template <class V, class I>
void check_long_rows_split(std::uint64_t s) {
    const std::vector<std::pair<index_t, index_t>> long_rows{{3, 2999}, {40, 128}, {41, 129}, {150, 1000}, {299, 2000}};
    std::uint64_t k = 0;
    for (Normalize n : {Normalize::none, Normalize::softmax})
        for (Aggregate g : {Aggregate::sum, Aggregate::mean})
            for (const auto& [heads, dz] : {std::pair{4, index_t{32}}, std::pair{3, index_t{37}}}) {
                const Score score = k % 4 == 3 ? Score::value : Score::dot;
                const FusedOptions o = pattern(score, Edge::scale(0.5f), n, g, heads);
                auto p = fused::random_problem<V, I>(300, 3000, 1.0, 16, dz, o, s + k);
                p.a = with_long_rows<V, I>(300, 3000, long_rows, s + k + 1);
                expect_matches_reference(p, s + k + 2);
                k += 3;
            }
}

TEST_F(CudaFusedmm, LongRowsSplitIntoChunks) {
    const auto s = seed("cuda_fusedmm_long_rows");
    check_long_rows_split<float, std::int32_t>(s);
    check_long_rows_split<float, std::int64_t>(s + 100);
    check_long_rows_split<double, std::int64_t>(s + 200);
    check_long_rows_split<bf16, std::int32_t>(s + 300);
}

// Graphs of 20000 rows with two heads (thousands of row blocks), 3000 and 300 rows with one (fewer
// row blocks than the device has multiprocessors), each without and with a row of a third of the
// columns (cut into chunks): every forward matches the reference.
TEST_F(CudaFusedmm, LargeAndSmallGraphs) {
    const auto s = seed("cuda_fusedmm_block_size");
    std::uint64_t k = 0;
    for (const auto& [rows, heads] : {std::pair{index_t{20000}, 2}, std::pair{index_t{300}, 1}, std::pair{index_t{3000}, 1}})
        for (const index_t dz : {index_t{16}, index_t{64}}) {
            const FusedOptions o = pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, heads);
            auto p = fused::random_problem<float, std::int32_t>(rows, rows, 6.0, 16, dz, o, s + k);
            expect_matches_reference(p, s + k + 1);
            p.a = with_long_rows<float, std::int32_t>(rows, rows, {{rows / 2, rows / 3}}, s + k + 2);
            expect_matches_reference(p, s + k + 3);
            k += 4;
        }
}

// A plan keeps its first pass's long-row search (FusedSplitCache) and later passes reuse it: the
// same widths again with new inputs, another output width (a search of its own), then the first
// width once more. Each forward and backward must match the reference's; the lists a reused
// search points at are the plan's copies, so a wrong copy or offset shows in the long rows' (and,
// backward, the long columns') results.
TEST_F(CudaFusedmm, PlanReusesItsLongRowSearch) {
    const auto s = seed("cuda_fusedmm_kept_split");
    const Executor gpu = Executor::cuda(0);
    const FusedOptions o = pattern(Score::dot, Edge::scale(0.5f), Normalize::softmax, Aggregate::sum, 2);
    const auto a = with_long_rows<double, std::int32_t>(300, 3000, {{3, 2999}, {150, 1000}, {299, 2000}}, s, {{7, 300}, {2000, 250}});
    const auto da = a.to(gpu);
    const FusedPlan<double, std::int32_t> plan(gpu, da.view(), o);
    const FusedPlan<double, std::int32_t> reference(Executor::reference(), a.view(), o);
    const index_t d = 8;
    std::uint64_t k = 1;
    for (const index_t dz : {index_t{16}, index_t{16}, index_t{40}, index_t{16}}) {
        SCOPED_TRACE("call " + std::to_string(k) + ", dz " + std::to_string(dz));
        const auto x = random_dense<double>(a.rows(), 2 * d, s + k), y = random_dense<double>(a.cols(), 2 * d, s + k + 1);
        const auto z = random_dense<double>(a.cols(), 2 * dz, s + k + 2);
        Dense<double> want(Executor::reference(), a.rows(), 2 * dz), got(gpu, a.rows(), 2 * dz);
        const auto want_saved = reference.forward(x.view(), y.view(), z.view(), want.view());
        const auto dx = x.to(gpu), dy = y.to(gpu), dz_in = z.to(gpu);
        const auto got_saved = plan.forward(dx.view(), dy.view(), dz_in.view(), got.view());
        const Tolerance f = forward_tolerance<double>();
        EXPECT_TRUE(all_close(to_doubles(got), to_doubles(want), f.rtol, f.atol, 2 * dz)) << "E";
        EXPECT_TRUE(all_close(as_doubles(got_saved.row_sum), as_doubles(want_saved.row_sum), f.rtol, f.atol)) << "row_sum";
        const auto de = random_dense<double>(a.rows(), 2 * dz, s + k + 3);
        const auto d_de = de.to(gpu);
        Dense<double> want_dx(Executor::reference(), x.rows(), x.cols()), want_dz(Executor::reference(), z.rows(), z.cols());
        Dense<double> got_dx(gpu, x.rows(), x.cols()), got_dz(gpu, z.rows(), z.cols());
        reference.backward(de.view(), want_saved, x.view(), y.view(), z.view(), want_dx.view(), {}, want_dz.view());
        plan.backward(d_de.view(), got_saved, dx.view(), dy.view(), dz_in.view(), got_dx.view(), {}, got_dz.view());
        const Tolerance g = gradient_tolerance<double>();
        EXPECT_TRUE(all_close(to_doubles(got_dx), to_doubles(want_dx), g.rtol, g.atol, 2 * d)) << "dX";
        EXPECT_TRUE(all_close(to_doubles(got_dz), to_doubles(want_dz), g.rtol, g.atol, 2 * dz)) << "dZ";
        k += 4;
    }
}

// Team rows (fused::ChunkList::team_threshold): rows longer than the requested threshold and not
// cut into chunks are walked by a block each, every group a span, and every chunk by a block too;
// the spans (some empty: rows of 17 entries under 8 groups) merge in shared memory. Groups of 32
// lanes with vectors (one tile, part of a tile, three tiles) and without; one and three heads,
// softmax or none, the runtime rules (GAT) and dot attention's, with and without row teams; f32,
// f64 and int64. Narrower groups take no team rows: the request must leave them as they were.
// Then the rule's own choice on two shared graphs, and a plan run twice (the second pass restores
// its kept search, team list included).
TEST_F(CudaFusedmm, TeamRowsMatchTheReference) {
    const auto s = seed("cuda_fusedmm_team_rows");
    const std::vector<std::pair<index_t, index_t>> long_rows{{3, 2999}, {40, 17}, {41, 40}, {42, 100}, {43, 33},
                                                             {150, 1000}, {151, 250}, {152, 70}, {299, 2000}};
    const index_t widths[][2] = {{16, 128}, {16, 48}, {8, 37}, {16, 300}, {32, 32}};
    const FusedOptions patterns[] = {pattern(Score::dot, Edge::scale(0.5f), Normalize::softmax, Aggregate::sum, 1),
                                     pattern(Score::dot, Edge::identity(), Normalize::none, Aggregate::mean, 3),
                                     pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 3)};
    std::uint64_t k = 0;
    for (const char* config : {"rows16", "rows64", "team2.rows32"})
        for (const auto& [d, dz] : widths)
            for (FusedOptions o : patterns) {
                k += 5;
                o.config = config;
                const index_t score_width = o.score == Score::add ? 1 : d;
                SCOPED_TRACE(std::string(config) + " d=" + std::to_string(score_width) + " dz=" + std::to_string(dz));
                if (k % 3 == 0) {
                    auto p = fused::random_problem<double, std::int64_t>(300, 3000, 1.0, score_width, dz, o, s + k);
                    p.a = with_long_rows<double, std::int64_t>(300, 3000, long_rows, s + k + 1);
                    expect_matches_reference(p, s + k + 2);
                } else {
                    auto p = fused::random_problem<float, std::int32_t>(300, 3000, 1.0, score_width, dz, o, s + k);
                    p.a = with_long_rows<float, std::int32_t>(300, 3000, long_rows, s + k + 1);
                    expect_matches_reference(p, s + k + 2);
                }
            }
    // The forward's own rule on the graphs it takes team rows for (one head of 128: groups of 32
    // lanes; auto_team_rows): ca-GrQc (no chunks) and email-Eu-core (chunks by blocks too).
    for (const auto& f : shared_matrix_files()) {
        if (f.find("ca-GrQc") == std::string::npos && f.find("email-Eu-core") == std::string::npos) continue;
        SCOPED_TRACE(f);
        const FusedOptions o = pattern(Score::dot, Edge::scale(0.1f), Normalize::softmax, Aggregate::sum, 1);
        auto p = fused::random_problem<float, std::int32_t>(10, 10, 1.0, 128, 128, o, s + 500);
        p.a = read_matrix_market<float, std::int32_t>(f);
        p.x = random_dense<float>(p.a.rows(), 128, s + 501);
        p.y = random_dense<float>(p.a.cols(), 128, s + 502);
        p.z = random_dense<float>(p.a.cols(), 128, s + 503);
        expect_matches_reference(p, s + 504);
    }
    // One plan, two passes: the second reads the team list the plan kept.
    const Executor gpu = Executor::cuda(0);
    FusedOptions o = pattern(Score::dot, Edge::scale(0.5f), Normalize::softmax, Aggregate::sum, 2);
    o.config = "rows16";
    const auto a = with_long_rows<float, std::int32_t>(300, 3000, long_rows, s + 1000);
    const auto da = a.to(gpu);
    const FusedPlan<float, std::int32_t> plan(gpu, da.view(), o);
    const FusedPlan<float, std::int32_t> reference(Executor::reference(), a.view(), o);
    for (int call = 0; call < 2; ++call) {
        SCOPED_TRACE("call " + std::to_string(call));
        const auto x = random_dense<float>(a.rows(), 64, s + 1001 + call), y = random_dense<float>(a.cols(), 64, s + 1003 + call);
        const auto z = random_dense<float>(a.cols(), 256, s + 1005 + call);
        Dense<float> want(Executor::reference(), a.rows(), 256), got(gpu, a.rows(), 256);
        const auto want_saved = reference.forward(x.view(), y.view(), z.view(), want.view());
        const auto gx = x.to(gpu), gy = y.to(gpu), gz = z.to(gpu);
        const auto got_saved = plan.forward(gx.view(), gy.view(), gz.view(), got.view());
        const Tolerance f = forward_tolerance<float>();
        EXPECT_TRUE(all_close(to_doubles(got), to_doubles(want), f.rtol, f.atol, 256)) << "E";
        EXPECT_TRUE(all_close(as_doubles(got_saved.row_max), as_doubles(want_saved.row_max), f.rtol, f.atol)) << "row_max";
        EXPECT_TRUE(all_close(as_doubles(got_saved.row_sum), as_doubles(want_saved.row_sum), f.rtol, f.atol)) << "row_sum";
    }
}

// One row of 100 000 entries (hundreds of chunks, merged by one block a head) among short rows.
// In the first case (4 heads of 32) the states at the first thresholds (on the H200 55 entries, the
// share of the work a resident warp, 110, then the preferred 128) exceed the chunk budget (half an
// nnz-sized array, about 230 KB): the threshold is doubled until they fit.
TEST_F(CudaFusedmm, OneRowOfAHundredThousandEntries) {
    const auto s = seed("cuda_fusedmm_100k_row");
    const index_t rows = 2000, cols = 100000;
    const std::vector<std::pair<index_t, index_t>> huge{{1234, cols}};
    {
        const FusedOptions o = pattern(Score::dot, Edge::identity(), Normalize::softmax, Aggregate::sum, 4);
        auto p = fused::random_problem<float, std::int32_t>(rows, cols, 0.0, 8, 32, o, s);
        p.a = with_long_rows<float, std::int32_t>(rows, cols, huge, s + 1);
        expect_matches_reference(p, s + 2);
    }
    {
        const FusedOptions o = pattern(Score::value, Edge::sigmoid(), Normalize::none, Aggregate::mean, 2);
        auto p = fused::random_problem<double, std::int64_t>(rows, cols, 0.0, 0, 33, o, s + 3);
        p.a = with_long_rows<double, std::int64_t>(rows, cols, huge, s + 4);
        expect_matches_reference(p, s + 5);
    }
    {
        const FusedOptions o = pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::mean, 2);
        auto p = fused::random_problem<bf16, std::int32_t>(rows, cols, 0.0, 8, 16, o, s + 6);
        p.a = with_long_rows<bf16, std::int32_t>(rows, cols, huge, s + 7);
        expect_matches_reference(p, s + 8);
    }
}

// R-MAT's hub rows are split; the merge runs in a fixed order, so two runs agree to the bit.
TEST_F(CudaFusedmm, RmatHubRows) {
    const auto s = seed("cuda_fusedmm_rmat");
    const Executor gpu = Executor::cuda(0);
    {
        const auto a = generate_rmat<float, std::int32_t>(12, 8.0, 0.57, 0.19, 0.19, 0.05, s);
        const FusedOptions o = pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, 4);
        auto p = fused::random_problem<float, std::int32_t>(a.rows(), a.cols(), 0.0, 16, 32, o, s + 1);
        p.a = a.to(Executor::cpu());
        expect_matches_reference(p, s + 2);

        const auto ad = a.to(gpu);
        const Dense<float> x = p.x.to(gpu), y = p.y.to(gpu), z = p.z.to(gpu);
        Dense<float> e1(gpu, a.rows(), p.z.cols()), e2(gpu, a.rows(), p.z.cols());
        const FusedPlan<float, std::int32_t> plan(gpu, ad.view(), o);
        const auto saved1 = plan.forward(x.view(), y.view(), z.view(), e1.view());
        const auto saved2 = plan.forward(x.view(), y.view(), z.view(), e2.view());
        EXPECT_EQ(to_doubles(e1), to_doubles(e2));
        EXPECT_EQ(as_doubles(saved1.row_sum), as_doubles(saved2.row_sum));
    }
    {
        const auto a = generate_rmat<double, std::int64_t>(11, 16.0, 0.57, 0.19, 0.19, 0.05, s + 3);
        const FusedOptions o = pattern(Score::value, Edge::identity(), Normalize::none, Aggregate::mean, 1);
        auto p = fused::random_problem<double, std::int64_t>(a.rows(), a.cols(), 0.0, 0, 17, o, s + 4);
        p.a = a.to(Executor::cpu());
        expect_matches_reference(p, s + 5);
    }
}

// The long rows' chunk states are held to the chunk budget, half of one nnz-sized f32 array
// (the unfused cuSPARSE pipeline's least intermediate): on R-MAT 18 with 4 heads of 128, chunks
// of 16 times the mean row took the forward's peak to twice that pipeline's. The forward's
// workspace (counters, lists, states) is measured as the pool's high-water mark; the slack covers
// the counters and the pool's rounding of the three allocations.
TEST_F(CudaFusedmm, ForwardWorkspaceWithinTheChunkBudget) {
    const Executor gpu = Executor::cuda(0);
    const auto a = generate_rmat<float, std::int32_t>(18, 16.0, 0.57, 0.19, 0.19, 0.05, seed("cuda_fusedmm_chunk_budget")).to(gpu);
    const int heads = 4;
    const index_t d = 8, dz = 128;
    const FusedOptions o = pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, heads);
    const auto s = seed("cuda_fusedmm_chunk_budget_inputs");
    const Dense<float> x = random_dense<float>(a.rows(), heads * d, s).to(gpu), y = random_dense<float>(a.cols(), heads * d, s + 1).to(gpu),
                       z = random_dense<float>(a.cols(), heads * dz, s + 2).to(gpu);
    Dense<float> e(gpu, a.rows(), heads * dz);
    FusedSaved<float, std::int32_t> saved;
    saved.row_max = Dense<float>(gpu, a.rows(), heads);
    saved.row_sum = Dense<float>(gpu, a.rows(), heads);
    const FusedPlan<float, std::int32_t> plan(gpu, a.view(), o);
    gpu.synchronize();
    const std::size_t before = device_memory_use(0).current;
    reset_device_memory_peak(0);
    plan.forward(x.view(), y.view(), z.view(), e.view(), saved.out());
    gpu.synchronize();
    const std::size_t workspace = device_memory_use(0).peak - before;
    const std::size_t budget = std::max<std::size_t>(64 << 10, static_cast<std::size_t>(a.nnz()) * sizeof(float) / 2);
    EXPECT_LE(workspace, budget + (3u << 20)) << "nnz " << a.nnz() << ", budget " << budget;
}

// The backward pass cuts long rows and long columns (A's columns, walked over Aᵀ) into chunks
// whose shares of the sums a combine kernel adds: every score with its gradients, softmax on and
// off, sum, mean and max, several heads, odd widths, saved attention on every other case. Row 3
// and column 0 are full; rows and columns of about 128 and 129 entries (the hub columns and rows
// they meet add a few) and the longer ones are cut at a threshold from the small-graph floor (16
// entries) up, doubled until the chunks' states fit the budget.
template <class V, class I>
Csr<V, I> with_hub_rows_and_columns(std::uint64_t s) {
    return with_long_rows<V, I>(1500, 400, {{3, 400}, {40, 129}, {41, 128}, {150, 260}}, s, {{0, 1500}, {17, 129}, {18, 128}, {201, 700}});
}

template <class V, class I>
void check_backward_split(const FusedOptions& o, index_t d, index_t dz, std::uint64_t s) {
    auto p = fused::random_problem<V, I>(1500, 400, 1.0, d, dz, o, s);
    p.a = with_hub_rows_and_columns<V, I>(s + 1);
    expect_matches_reference(p, s + 2);
}

TEST_F(CudaFusedmm, BackwardSplitsLongRowsAndColumns) {
    const auto s = seed("cuda_fusedmm_backward_split");
    const std::pair<index_t, index_t> widths[] = {{16, 32}, {5, 7}, {33, 37}, {8, 1}};
    const Edge edges[] = {Edge::scale(0.5f), Edge::leaky_relu(0.2f), Edge::sigmoid(), Edge::tanh()};
    std::uint64_t k = 0;
    for (Score score : {Score::dot, Score::add, Score::neg_sqdist, Score::value})
        for (Normalize n : {Normalize::none, Normalize::softmax})
            for (Aggregate g : {Aggregate::sum, Aggregate::mean, Aggregate::max}) {
                const int heads = k % 3 == 0 ? 1 : k % 3 == 1 ? 3 : 4;
                const FusedOptions o = pattern(score, edges[k % 4], n, g, heads, k % 2 == 1);
                const auto [d, dz] = widths[(k + k / 4) % 4];
                // Max in f64, so that no two candidates tie within rounding (the winners must equal the reference's).
                if (g == Aggregate::max)
                    check_backward_split<double, std::int64_t>(o, d, dz, s + 3 * k);
                else if (k % 3 == 2)
                    check_backward_split<float, std::int64_t>(o, d, dz, s + 3 * k);
                else
                    check_backward_split<float, std::int32_t>(o, d, dz, s + 3 * k);
                ++k;
            }
}

// f64 and bf16, and rows wider than a group's registers (tiles along y: each tile gives its own
// share of dX, dY and dZ; the sigma pass's shares are the first tile's).
TEST_F(CudaFusedmm, BackwardSplitInEveryTypeAndInTiles) {
    const auto s = seed("cuda_fusedmm_backward_split_types");
    std::uint64_t k = 0;
    for (const FusedOptions& o : {pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, 4),
                                  pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 2),
                                  pattern(Score::neg_sqdist, Edge::sigmoid(), Normalize::none, Aggregate::mean, 1),
                                  pattern(Score::value, Edge::identity(), Normalize::softmax, Aggregate::mean, 3)}) {
        check_backward_split<double, std::int32_t>(o, 8, 16, s + k);
        check_backward_split<bf16, std::int32_t>(o, 8, 16, s + k + 3);
        check_backward_split<bf16, std::int64_t>(o, 5, 3, s + k + 6);
        k += 9;
    }
    for (const FusedOptions& o : {pattern(Score::dot, Edge::tanh(), Normalize::softmax, Aggregate::sum, 1),
                                  pattern(Score::neg_sqdist, Edge::identity(), Normalize::none, Aggregate::sum, 2, true)}) {
        check_backward_split<double, std::int32_t>(o, 300, 270, s + k);
        k += 3;
    }
}

// Only some gradients asked for, on hub rows and columns: each launch's chunks and combines must
// stand without the others (dY alone needs σ from the row kernel; dX alone no column kernel).
TEST_F(CudaFusedmm, BackwardSplitWithPartialGradients) {
    const auto s = seed("cuda_fusedmm_backward_split_partial");
    const FusedOptions o = pattern(Score::dot, Edge::scale(0.5f), Normalize::softmax, Aggregate::sum, 2);
    auto p = fused::random_problem<double, std::int32_t>(1500, 400, 1.0, 8, 8, o, s);
    p.a = with_hub_rows_and_columns<double, std::int32_t>(s + 1);
    const Dense<double> de = random_dense<double>(1500, 16, s + 2);
    const Outcome want = run(Executor::reference(), p, de);
    const Executor gpu = Executor::cuda(0);
    const auto a = p.a.to(gpu);
    const Dense<double> x = p.x.to(gpu), y = p.y.to(gpu), z = p.z.to(gpu), ded = de.to(gpu);
    Dense<double> e(gpu, 1500, 16), dx(gpu, 1500, 16), dy(gpu, 400, 16), dz(gpu, 400, 16);
    const FusedPlan<double, std::int32_t> plan(gpu, a.view(), o);
    const auto saved = plan.forward(x.view(), y.view(), z.view(), e.view());
    plan.backward(ded.view(), saved, x.view(), y.view(), z.view(), {}, dy.view(), {});
    EXPECT_TRUE(all_close(to_doubles(dy), want.grads.dy, 1e-9, 1e-11, 16)) << "dY alone";
    plan.backward(ded.view(), saved, x.view(), y.view(), z.view(), dx.view(), {}, {});
    EXPECT_TRUE(all_close(to_doubles(dx), want.grads.dx, 1e-9, 1e-11, 16)) << "dX alone";
    plan.backward(ded.view(), saved, x.view(), y.view(), z.view(), {}, {}, dz.view());
    EXPECT_TRUE(all_close(to_doubles(dz), want.grads.dz, 1e-9, 1e-11, 16)) << "dZ alone";
}

// R-MAT's hubs are rows and columns both. The shares are added in chunk order, so two backward
// passes (and two whole runs) agree to the bit.
TEST_F(CudaFusedmm, BackwardOnRmatHubsIsDeterministic) {
    const auto s = seed("cuda_fusedmm_backward_rmat");
    const Executor gpu = Executor::cuda(0);
    std::uint64_t k = 0;
    for (const FusedOptions& o : {pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, 4),
                                  pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 4),
                                  pattern(Score::neg_sqdist, Edge::sigmoid(), Normalize::none, Aggregate::sum, 1),
                                  pattern(Score::value, Edge::identity(), Normalize::none, Aggregate::mean, 2)}) {
        SCOPED_TRACE(fused::describe(o));
        const auto a = generate_rmat<float, std::int32_t>(12, 8.0, 0.57, 0.19, 0.19, 0.05, s + k);
        auto p = fused::random_problem<float, std::int32_t>(a.rows(), a.cols(), 0.0, 16, 17, o, s + k + 1);
        p.a = a.to(Executor::cpu());
        expect_matches_reference(p, s + k + 2);

        const Dense<float> de = random_dense<float>(a.rows(), p.z.cols(), s + k + 3);
        const Outcome first = run(gpu, p, de), second = run(gpu, p, de);
        EXPECT_EQ(first.grads.dx, second.grads.dx) << "dX";
        EXPECT_EQ(first.grads.dy, second.grads.dy) << "dY";
        EXPECT_EQ(first.grads.dz, second.grads.dz) << "dZ";
        EXPECT_EQ(first.grads.da, second.grads.da) << "dA";

        const auto ad = a.to(gpu);
        const Dense<float> x = p.x.to(gpu), y = p.y.to(gpu), z = p.z.to(gpu), ded = de.to(gpu);
        Dense<float> e(gpu, a.rows(), p.z.cols());
        const FusedPlan<float, std::int32_t> plan(gpu, ad.view(), o);
        const auto saved = plan.forward(x.view(), y.view(), z.view(), e.view());
        std::vector<double> grads[2][4];
        for (auto& g : grads) {
            Dense<float> dx(gpu, x.rows(), x.cols()), dy(gpu, y.rows(), y.cols()), dz(gpu, z.rows(), z.cols()), da(gpu, a.nnz(), 1);
            plan.backward(ded.view(), saved, x.view(), y.view(), z.view(), dx.view(), dy.view(), dz.view(), da.view());
            g[0] = to_doubles(dx);
            g[1] = to_doubles(dy);
            g[2] = to_doubles(dz);
            g[3] = to_doubles(da);
        }
        for (int q = 0; q < 4; ++q) EXPECT_EQ(grads[0][q], grads[1][q]) << "gradient " << q << " of the same plan and statistics";

        // A plan given Aᵀ's pattern (kept by the caller, in device memory) builds none and agrees bit for bit.
        const fused::KeptTransposed<std::int32_t> host_at = fused::kept_transposed(p.a);
        const Array<std::int32_t> col_ptr(gpu, host_at.col_ptr), row_idx(gpu, host_at.row_idx), entry(gpu, host_at.entry);
        FusedPlan<float, std::int32_t> kept(gpu, ad.view(), o);
        kept.use_transposed_pattern(col_ptr.data(), row_idx.data(), entry.data());
        Dense<float> dx(gpu, x.rows(), x.cols()), dy(gpu, y.rows(), y.cols()), dz(gpu, z.rows(), z.cols()), da(gpu, a.nnz(), 1);
        kept.backward(ded.view(), saved, x.view(), y.view(), z.view(), dx.view(), dy.view(), dz.view(), da.view());
        EXPECT_EQ(to_doubles(dx), grads[0][0]) << "dX with a kept pattern";
        EXPECT_EQ(to_doubles(dy), grads[0][1]) << "dY with a kept pattern";
        EXPECT_EQ(to_doubles(dz), grads[0][2]) << "dZ with a kept pattern";
        EXPECT_EQ(to_doubles(da), grads[0][3]) << "dA with a kept pattern";
        k += 4;
    }
}

// Under softmax, a backward given E takes σ = <dE_i, E_i> from it; the gradients still match the
// reference: every softmax combination, long rows cut into chunks, R-MAT hubs, f64, column-major.
TEST_F(CudaFusedmm, BackwardGivenTheOutputTakesSigmaFromIt) {
    const auto s = seed("cuda_fusedmm_backward_sigma_from_output");
    std::uint64_t k = 0;
    for (FusedOptions o : fused::all_combinations()) {
        if (o.normalize != Normalize::softmax) continue;
        o.heads = 2;
        expect_matches_reference(fused::random_problem<float, std::int32_t>(120, 90, 6.0, 4, 3, o, s + k), s + k + 1, Layout::row_major, true);
        k += 2;
    }
    const auto rmat = generate_rmat<float, std::int32_t>(12, 8.0, 0.57, 0.19, 0.19, 0.05, s + k);
    for (const FusedOptions& o : {pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, 4),
                                  pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::mean, 4),
                                  pattern(Score::value, Edge::exp(), Normalize::softmax, Aggregate::max, 1)}) {
        auto p = fused::random_problem<float, std::int32_t>(rmat.rows(), rmat.cols(), 0.0, 8, 8, o, s + k);
        p.a = rmat.to(Executor::cpu());
        expect_matches_reference(p, s + k + 1, Layout::row_major, true);
        // A row of 100 000 entries among 2000: its chunks read σ too.
        auto wide = fused::random_problem<float, std::int32_t>(2000, 100000, 0.0, 8, 8, o, s + k + 2);
        wide.a = with_long_rows<float, std::int32_t>(2000, 100000, {{1234, 100000}}, s + k + 3);
        expect_matches_reference(wide, s + k + 4, Layout::row_major, true);
        k += 5;
    }
    for (FusedOptions o : {pattern(Score::neg_sqdist, Edge::sigmoid(), Normalize::softmax, Aggregate::sum, 2),
                           pattern(Score::dot, Edge::tanh(), Normalize::softmax, Aggregate::max, 2)}) {
        expect_matches_reference(fused::random_problem<double, std::int64_t>(80, 70, 5.0, 3, 4, o, s + k), s + k + 1, Layout::row_major, true);
        expect_matches_reference(fused::random_problem<float, std::int32_t>(80, 70, 5.0, 3, 4, o, s + k + 2), s + k + 3, Layout::col_major,
                                 true);
        k += 4;
    }
}

// FusedOptions::backward_edge_terms: the row kernel stores c α and ds per entry and head, the column
// kernel reads them. Same gradients as the reference for every combination (the option changes
// nothing under max aggregation or on the general path), with long rows and columns in chunks,
// R-MAT hubs, E given or not, partial gradients, f64, bf16 and int64.
TEST_F(CudaFusedmm, BackwardWithEdgeTermsMatchesTheReference) {
    const auto s = seed("cuda_fusedmm_backward_edge_terms");
    std::uint64_t k = 0;
    for (FusedOptions o : fused::all_combinations()) {
        o.backward_edge_terms = true;
        o.heads = k % 2 == 0 ? 1 : 4;
        expect_matches_reference(fused::random_problem<float, std::int32_t>(150, 110, 7.0, 4, 8, o, s + k), s + k + 1, Layout::row_major,
                                 k % 3 == 0);
        k += 2;
    }
    const auto rmat = generate_rmat<float, std::int32_t>(12, 8.0, 0.57, 0.19, 0.19, 0.05, s + k);
    for (FusedOptions o : {pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, 4),
                           pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 4),
                           pattern(Score::neg_sqdist, Edge::sigmoid(), Normalize::none, Aggregate::mean, 2),
                           pattern(Score::value, Edge::identity(), Normalize::softmax, Aggregate::mean, 1)}) {
        o.backward_edge_terms = true;
        SCOPED_TRACE("edge terms: " + fused::describe(o));
        auto p = fused::random_problem<float, std::int32_t>(rmat.rows(), rmat.cols(), 0.0, 32, 32, o, s + k);
        p.a = rmat.to(Executor::cpu());
        expect_matches_reference(p, s + k + 1, Layout::row_major, true);
        check_backward_split<float, std::int32_t>(o, 16, 32, s + k + 2);
        check_backward_split<double, std::int64_t>(o, 8, 16, s + k + 5);
        check_backward_split<bf16, std::int32_t>(o, 8, 16, s + k + 8);
        k += 11;
    }
    // dZ alone (dX and dY not wanted): no ds is needed and the option steps aside; dX and dZ without dY.
    const FusedOptions o = [] {
        FusedOptions f = pattern(Score::dot, Edge::scale(0.5f), Normalize::softmax, Aggregate::sum, 2);
        f.backward_edge_terms = true;
        return f;
    }();
    const auto p = fused::random_problem<float, std::int32_t>(300, 200, 9.0, 16, 16, o, s + k);
    const Dense<float> de = random_dense<float>(p.a.rows(), p.z.cols(), s + k + 1);
    const Outcome want = run(Executor::reference(), p, de);
    const Executor gpu = Executor::cuda(0);
    const auto a = p.a.to(gpu);
    const Dense<float> x = p.x.to(gpu), y = p.y.to(gpu), z = p.z.to(gpu), ded = de.to(gpu);
    Dense<float> e(gpu, p.a.rows(), p.z.cols());
    const FusedPlan<float, std::int32_t> plan(gpu, a.view(), o);
    const auto saved = plan.forward(x.view(), y.view(), z.view(), e.view());
    const Tolerance g = gradient_tolerance<float>();
    {
        Dense<float> dz(gpu, z.rows(), z.cols());
        plan.backward(ded.view(), saved, x.view(), y.view(), z.view(), {}, {}, dz.view(), {});
        EXPECT_TRUE(all_close(to_doubles(dz), want.grads.dz, g.rtol, g.atol, z.cols())) << "dZ alone";
    }
    {
        Dense<float> dx(gpu, x.rows(), x.cols()), dz(gpu, z.rows(), z.cols());
        plan.backward(ded.view(), saved, x.view(), y.view(), z.view(), dx.view(), {}, dz.view(), {});
        EXPECT_TRUE(all_close(to_doubles(dx), want.grads.dx, g.rtol, g.atol, x.cols())) << "dX with dZ";
        EXPECT_TRUE(all_close(to_doubles(dz), want.grads.dz, g.rtol, g.atol, z.cols())) << "dZ with dX";
    }
}

template <class V>
void check_16_bit(const std::string& name) {
    const auto s = seed(name);
    std::uint64_t k = 0;
    for (const FusedOptions& o : {pattern(Score::dot, Edge::scale(0.5f), Normalize::softmax, Aggregate::sum, 4),
                                  pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::mean, 2, true),
                                  pattern(Score::dot, Edge::sigmoid(), Normalize::none, Aggregate::sum, 1),
                                  pattern(Score::value, Edge::identity(), Normalize::none, Aggregate::sum, 1)}) {
        expect_matches_reference(fused::random_problem<V, std::int32_t>(100, 80, 5.0, 8, 8, o, s + k), s + k + 1);
        expect_matches_reference(fused::random_problem<V, std::int64_t>(100, 80, 5.0, 16, 64, o, s + k + 2), s + k + 3);
        expect_matches_reference(fused::random_problem<V, std::int32_t>(60, 50, 4.0, 5, 3, o, s + k + 4), s + k + 5);
        k += 6;
    }
}

TEST_F(CudaFusedmm, Float16Storage) { check_16_bit<f16>("cuda_fusedmm_f16"); }
TEST_F(CudaFusedmm, BFloat16Storage) { check_16_bit<bf16>("cuda_fusedmm_bf16"); }

TEST_F(CudaFusedmm, ColumnMajorOperands) {
    const auto s = seed("cuda_fusedmm_col_major");
    std::uint64_t k = 0;
    for (const FusedOptions& o : {pattern(Score::neg_sqdist, Edge::sigmoid(), Normalize::softmax, Aggregate::sum, 2),
                                  pattern(Score::value, Edge::scale(2.0f), Normalize::none, Aggregate::mean, 2),
                                  pattern(Score::dot, Edge::identity(), Normalize::none, Aggregate::max, 1)}) {
        expect_matches_reference(fused::random_problem<double, std::int32_t>(40, 30, 4.0, 4, 6, o, s + k), s + k + 1, Layout::col_major);
        k += 2;
    }
}

// Scores of ±1000 overflow exp in f32: only the running max keeps the softmax finite.
TEST_F(CudaFusedmm, SoftmaxIsStableForLargeScores) {
    const Executor gpu = Executor::cuda(0), host = Executor::cpu();
    const Csr<float, std::int32_t> a(host, 3, 2, {0, 2, 4, 6}, {0, 1, 0, 1, 0, 1}, {1000.f, 1000.f, 1000.f, 0.f, -1000.f, -1000.f});
    const Dense<float> z(host, 2, 2, {1.f, 2.f, 3.f, 4.f});
    const auto ad = a.to(gpu);
    const auto zd = z.to(gpu);
    Dense<float> e(gpu, 3, 2);
    fusedmm<float, std::int32_t>(gpu, ad.view(), {}, {}, zd.view(), e.view(),
                                 pattern(Score::value, Edge::identity(), Normalize::softmax, Aggregate::sum, 1));
    EXPECT_TRUE(all_close(to_doubles(e), {2.0, 3.0, 1.0, 2.0, 2.0, 3.0}, 1e-6, 1e-6, 2));
}

// The kernels gather Y and Z rows by 32-bit byte strides: a leading dimension past 2 GiB of
// row is refused with the operand named, before any launch (one row of Z: nothing past its 4
// values is read).
TEST_F(CudaFusedmm, RowStridesPastTwoGibibytesAreRefused) {
    const Executor gpu = Executor::cuda(0), host = Executor::cpu();
    const auto a = Csr<float, std::int32_t>(host, 1, 1, {0, 1}, {0}, {1.5f}).to(gpu);
    const Dense<float> z = Dense<float>(host, 1, 4, {1.f, 2.f, 3.f, 4.f}).to(gpu);
    Dense<float> e(gpu, 1, 4);
    const DenseView<const float> z_wide{z.view().data, 1, 4, index_t{1} << 29, Layout::row_major, z.view().space};
    const FusedOptions o = pattern(Score::value, Edge::identity(), Normalize::softmax, Aggregate::sum, 1);
    try {
        fusedmm<float, std::int32_t>(gpu, a.view(), {}, {}, z_wide, e.view(), o);
        ADD_FAILURE() << "a 2 GiB row stride was accepted";
    } catch (const Error& err) {
        EXPECT_NE(std::string(err.what()).find("z's rows are 2147483648 bytes apart"), std::string::npos) << err.what();
    }
    fusedmm<float, std::int32_t>(gpu, a.view(), {}, {}, z.view(), e.view(), o);  // the same call with Z's own stride
    EXPECT_TRUE(all_close(to_doubles(e), {1.0, 2.0, 3.0, 4.0}, 1e-6, 1e-6, 4));
}

// Only some gradients asked for: the others stay untouched, the asked ones match.
TEST_F(CudaFusedmm, PartialGradients) {
    const auto s = seed("cuda_fusedmm_partial");
    const FusedOptions o = pattern(Score::dot, Edge::tanh(), Normalize::softmax, Aggregate::sum, 2);
    const auto p = fused::random_problem<double, std::int32_t>(80, 60, 5.0, 8, 8, o, s);
    const Dense<double> de = random_dense<double>(80, 16, s + 1);
    const Outcome want = run(Executor::reference(), p, de);
    const Executor gpu = Executor::cuda(0);
    const auto a = p.a.to(gpu);
    const Dense<double> x = p.x.to(gpu), y = p.y.to(gpu), z = p.z.to(gpu), ded = de.to(gpu);
    Dense<double> e(gpu, 80, 16), dy(gpu, 60, 16);
    const FusedPlan<double, std::int32_t> plan(gpu, a.view(), o);
    const auto saved = plan.forward(x.view(), y.view(), z.view(), e.view());
    plan.backward(ded.view(), saved, x.view(), y.view(), z.view(), {}, dy.view(), {});
    EXPECT_TRUE(all_close(to_doubles(dy), want.grads.dy, 1e-9, 1e-11, 16));
}

// The saved arrays in the caller's device memory (FusedSavedOut / FusedSavedIn, what the Python
// binding hands over: PyTorch's tensors) give what the plan's own arrays give, bit for bit.
TEST_F(CudaFusedmm, SavedArraysInTheCallersMemory) {
    const Executor gpu = Executor::cuda(0);
    const auto s = seed("cuda_fusedmm_saved_views");
    for (const FusedOptions& o : {pattern(Score::dot, Edge::identity(), Normalize::softmax, Aggregate::max, 2, true),
                                  pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 4)}) {
        const auto p = fused::random_problem<float, std::int32_t>(300, 250, 6.0, o.score == Score::add ? 1 : 8, 8, o, s);
        const auto a = p.a.to(gpu);
        const Dense<float> x = p.x.to(gpu), y = p.y.to(gpu), z = p.z.to(gpu);
        const FusedPlan<float, std::int32_t> plan(gpu, a.view(), o);
        Dense<float> e(gpu, 300, z.cols()), e_own(gpu, 300, z.cols());
        const FusedSaved<float, std::int32_t> allocated = plan.forward(x.view(), y.view(), z.view(), e.view());
        FusedSaved<float, std::int32_t> own;
        own.row_max = Dense<float>(gpu, 300, o.heads);
        own.row_sum = Dense<float>(gpu, 300, o.heads);
        if (o.aggregate == Aggregate::max) own.argmax = Dense<std::int32_t>(gpu, 300, z.cols());
        if (o.save_attention) own.attention = Dense<float>(gpu, p.a.nnz(), o.heads);
        plan.forward(x.view(), y.view(), z.view(), e_own.view(), own.out());
        EXPECT_EQ(as_doubles(e_own.to(Executor::cpu())), as_doubles(e.to(Executor::cpu())));
        EXPECT_EQ(as_doubles(own.row_max.to(Executor::cpu())), as_doubles(allocated.row_max.to(Executor::cpu())));
        EXPECT_EQ(as_doubles(own.row_sum.to(Executor::cpu())), as_doubles(allocated.row_sum.to(Executor::cpu())));
        if (o.aggregate == Aggregate::max) {
            EXPECT_EQ(own.argmax.to(Executor::cpu()).values().to_vector(), allocated.argmax.to(Executor::cpu()).values().to_vector());
        }

        const Dense<float> de = random_dense<float>(300, z.cols(), s + 1).to(gpu);
        Dense<float> dz(gpu, z.rows(), z.cols()), dz_own(gpu, z.rows(), z.cols());
        plan.backward(de.view(), allocated, x.view(), y.view(), z.view(), {}, {}, dz.view(), {}, e.view());
        plan.backward(de.view(), own.view(), x.view(), y.view(), z.view(), {}, {}, dz_own.view(), {}, e_own.view());
        EXPECT_EQ(as_doubles(dz_own.to(Executor::cpu())), as_doubles(dz.to(Executor::cpu())));
    }
}

}  // namespace
}  // namespace spk::test
