// The cpu FusedMM backend against the reference: every combination on random inputs, the
// patterns users run (GCN, dot-product attention, GAT, Force2Vec, t-SNE), edge cases, softmax
// stability, 16-bit storage, layouts and determinism.
#include <cmath>
#include <limits>

#include "ops/fusedmm_test_support.hpp"

namespace spk::test {
namespace {

using fused::Forward;
using fused::pattern;
using fused::Problem;

template <class T>
std::vector<double> as_doubles(const Dense<T>& d) {
    std::vector<double> out;
    for (T v : d.values().span()) out.push_back(value_cast<double>(v));
    return out;
}

template <class V, class I>
void expect_forward_close(const Forward<V, I>& got, const Forward<V, I>& want, double rtol, double atol) {
    EXPECT_TRUE(all_close(to_doubles(got.e), to_doubles(want.e), rtol, atol, std::max<index_t>(want.e.cols(), 1))) << "E";
    EXPECT_TRUE(all_close(as_doubles(got.saved.row_max), as_doubles(want.saved.row_max), rtol, atol)) << "row_max";
    EXPECT_TRUE(all_close(as_doubles(got.saved.row_sum), as_doubles(want.saved.row_sum), rtol, atol)) << "row_sum";
    EXPECT_TRUE(all_close(as_doubles(got.saved.attention), as_doubles(want.saved.attention), rtol, atol)) << "attention";
    EXPECT_EQ(as_doubles(got.saved.argmax), as_doubles(want.saved.argmax)) << "argmax";
}

void expect_grads_close(const fused::Grads& got, const fused::Grads& want, double rtol, double atol) {
    EXPECT_TRUE(all_close(got.dx, want.dx, rtol, atol)) << "dX";
    EXPECT_TRUE(all_close(got.dy, want.dy, rtol, atol)) << "dY";
    EXPECT_TRUE(all_close(got.dz, want.dz, rtol, atol)) << "dZ";
    EXPECT_TRUE(all_close(got.da, want.da, rtol, atol)) << "dA";
}

// Forward and backward of p on every host backend, compared with the reference.
template <class V, class I>
void expect_matches_reference(const Problem<V, I>& p, std::uint64_t s, double rtol, double atol, double grad_rtol = 0) {
    if (grad_rtol == 0) grad_rtol = rtol;
    const auto want = fused::forward(Executor::reference(), p);
    const Dense<V> de = random_dense<V>(p.a.rows(), p.z.cols(), s);
    const fused::Grads want_grads = fused::backward(Executor::reference(), p, want, de);
    for (const Executor& exec : fused::host_backends()) {
        SCOPED_TRACE(exec.name() + " " + fused::describe(p.options));
        const auto got = fused::forward(exec, p);
        expect_forward_close(got, want, rtol, atol);
        expect_grads_close(fused::backward(exec, p, got, de), want_grads, grad_rtol, atol);
    }
}

// f64, so that the winners of max aggregations are the same as the reference's (no near ties).
// Sizes put about half the cases above the cpu backend's serial cutoff, so both paths run.
TEST(FusedmmCpu, MatchesReferenceForEveryCombination) {
    const auto s = seed("fusedmm_cpu_combinations");
    const index_t widths[] = {1, 3, 17, 8};
    std::uint64_t k = 0;
    for (int heads : {1, 4})
        for (FusedOptions o : fused::all_combinations()) {
            o.heads = heads;
            o.save_attention = k % 2 == 1;
            const index_t d = widths[k % 4], dz = widths[(k + 1) % 4];
            if (k % 3 == 0)
                expect_matches_reference(fused::random_problem<double, std::int64_t>(300, 200, 8.0, d, dz, o, s + k), s + k + 1, 1e-10,
                                         1e-12);
            else
                expect_matches_reference(fused::random_problem<double, std::int32_t>(300, 200, 8.0, d, dz, o, s + k), s + k + 1, 1e-10,
                                         1e-12);
            ++k;
        }
}

// The patterns of the brief, in f32, on a larger graph.
TEST(FusedmmCpu, GcnAggregationEqualsSpmm) {
    const auto s = seed("fusedmm_cpu_gcn");
    const std::pair<Aggregate, Reduce> pairs[] = {
        {Aggregate::sum, Reduce::sum}, {Aggregate::mean, Reduce::mean}, {Aggregate::max, Reduce::max}};
    for (const auto& [aggregate, reduce] : pairs) {
        const auto p = fused::random_problem<float, std::int32_t>(
            300, 250, 8.0, 0, 32, pattern(Score::value, Edge::identity(), Normalize::none, aggregate, 1), s);
        Dense<float> c(Executor::cpu(), p.a.rows(), p.z.cols());
        SpmmOptions so;
        so.reduce = reduce;
        spmm<float, std::int32_t>(Executor::reference(), p.a.view(), p.z.view(), c.view(), so);
        for (const Executor& exec : fused::host_backends()) {
            SCOPED_TRACE(exec.name() + " " + fused::describe(p.options));
            EXPECT_TRUE(all_close(to_doubles(fused::forward(exec, p).e), to_doubles(c), 1e-5, 1e-6, p.z.cols()));
        }
        expect_matches_reference(p, s + 1, 1e-4, 1e-5);
    }
}

TEST(FusedmmCpu, DotProductAttentionWithFourHeads) {
    const auto s = seed("fusedmm_cpu_dot_attention");
    expect_matches_reference(fused::random_problem<float, std::int32_t>(
                                 300, 300, 10.0, 16, 8, pattern(Score::dot, Edge::scale(0.25f), Normalize::softmax, Aggregate::sum, 4), s),
                             s + 1, 1e-4, 1e-5);
}

TEST(FusedmmCpu, GraphAttentionNetwork) {
    const auto s = seed("fusedmm_cpu_gat");
    // GAT: s = el[i] + er[j] per head, leaky_relu(0.2), softmax, sum of the transformed features.
    expect_matches_reference(
        fused::random_problem<float, std::int32_t>(400, 400, 6.0, 1, 16,
                                                   pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 4), s),
        s + 1, 1e-4, 1e-5);
}

TEST(FusedmmCpu, Force2VecAndTsneStyles) {
    const auto s = seed("fusedmm_cpu_embeddings");
    std::uint64_t k = 0;
    for (Aggregate g : {Aggregate::sum, Aggregate::mean, Aggregate::max}) {
        expect_matches_reference(fused::random_problem<float, std::int32_t>(
                                     300, 300, 8.0, 32, 32, pattern(Score::dot, Edge::sigmoid(), Normalize::none, g, 1), s + k),
                                 s + k + 1, 1e-4, 1e-5);
        expect_matches_reference(fused::random_problem<float, std::int64_t>(
                                     300, 300, 8.0, 32, 32, pattern(Score::neg_sqdist, Edge::exp(), Normalize::none, g, 1), s + k + 2),
                                 s + k + 3, 1e-4, 1e-5);
        k += 4;
    }
}

TEST(FusedmmCpu, EmptyMatrix) {
    const auto s = seed("fusedmm_cpu_empty");
    for (FusedOptions o : fused::all_combinations()) {
        o.save_attention = true;
        expect_matches_reference(fused::random_problem<float, std::int32_t>(0, 0, 1.0, 3, 2, o, s), s, 0.0, 0.0);
    }
}

TEST(FusedmmCpu, RowsWithoutEntriesGiveZero) {
    FusedOptions o = pattern(Score::dot, Edge::identity(), Normalize::softmax, Aggregate::max, 2);
    o.save_attention = true;
    const auto p = fused::random_problem<float, std::int32_t>(5, 4, 0.0, 3, 2, o, 1);  // per_row 0: every row empty
    ASSERT_EQ(p.a.nnz(), 0);
    for (const Executor& exec : fused::host_backends()) {
        SCOPED_TRACE(exec.name());
        Forward<float, std::int32_t> f{Dense<float>(Executor::cpu(), 5, 4, std::vector<float>(20, 7.0f)), {}};
        f.saved = FusedPlan<float, std::int32_t>(exec, p.a.view(), o).forward(p.x.view(), p.y.view(), p.z.view(), f.e.view());
        EXPECT_EQ(to_doubles(f.e), std::vector<double>(20, 0.0));
        EXPECT_EQ(as_doubles(f.saved.argmax), std::vector<double>(20, -1.0));
        EXPECT_EQ(as_doubles(f.saved.row_max), std::vector<double>(10, -std::numeric_limits<double>::infinity()));
        EXPECT_EQ(as_doubles(f.saved.row_sum), std::vector<double>(10, 0.0));
        const fused::Grads g = fused::backward(exec, p, f, random_dense<float>(5, 4, 2));
        EXPECT_EQ(g.dx, std::vector<double>(g.dx.size(), 0.0));
        EXPECT_EQ(g.dz, std::vector<double>(g.dz.size(), 0.0));
    }
}

// Some rows of random_csr come out empty; here one row also holds every column.
TEST(FusedmmCpu, OneHugeRow) {
    const auto s = seed("fusedmm_cpu_huge_row");
    for (FusedOptions o : {pattern(Score::dot, Edge::identity(), Normalize::softmax, Aggregate::sum, 4),
                           pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::max, 4),
                           pattern(Score::neg_sqdist, Edge::exp(), Normalize::none, Aggregate::mean, 1)}) {
        auto p = fused::random_problem<double, std::int32_t>(50, 3000, 1.0, 3, 5, o, s);
        // Rebuild A with row 7 full.
        std::vector<std::int32_t> ptr{0}, col;
        std::vector<double> val;
        for (index_t i = 0; i < 50; ++i) {
            for (index_t j = 0; j < 3000; ++j)
                if (i == 7 || (i + j) % 997 == 0) {
                    col.push_back(static_cast<std::int32_t>(j));
                    val.push_back(std::sin(static_cast<double>(i * 3000 + j)));
                }
            ptr.push_back(static_cast<std::int32_t>(col.size()));
        }
        p.a = Csr<double, std::int32_t>(Executor::cpu(), 50, 3000, ptr, col, val);
        expect_matches_reference(p, s + 1, 1e-10, 1e-12);
    }
}

// A row of scores 1000 and 1000 (or -1000 and -1000) weighs both 1/2; 1000 and 0 gives all to
// the first. exp(1000) overflows float: only the running max keeps these finite.
TEST(FusedmmCpu, SoftmaxIsStableForLargeScores) {
    const Executor host = Executor::cpu();
    const Csr<float, std::int32_t> a(host, 3, 2, {0, 2, 4, 6}, {0, 1, 0, 1, 0, 1}, {1000.f, 1000.f, 1000.f, 0.f, -1000.f, -1000.f});
    const Dense<float> z(host, 2, 2, {1.f, 2.f, 3.f, 4.f});
    const FusedOptions o = pattern(Score::value, Edge::identity(), Normalize::softmax, Aggregate::sum, 1);
    for (const Executor& exec : fused::host_backends()) {
        Dense<float> e(host, 3, 2);
        fusedmm<float, std::int32_t>(exec, a.view(), {}, {}, z.view(), e.view(), o);
        EXPECT_TRUE(all_close(to_doubles(e), {2.0, 3.0, 1.0, 2.0, 2.0, 3.0}, 1e-6, 1e-6, 2)) << exec.name();
    }
}

double max_abs(const Dense<float>& d) {
    double m = 0;
    for (float v : d.values().span()) m = std::max(m, static_cast<double>(std::abs(v)));
    return m;
}

TEST(FusedmmCpu, SoftmaxIsStableForLargeRandomScores) {
    const auto s = seed("fusedmm_cpu_large_scores");
    for (Score score : {Score::dot, Score::neg_sqdist}) {
        constexpr index_t d = 16;  // features a head
        auto p = fused::random_problem<float, std::int32_t>(200, 200, 8.0, d, 8,
                                                            pattern(score, Edge::identity(), Normalize::softmax, Aggregate::sum, 2), s);
        for (auto* m : {&p.x, &p.y})
            for (float& v : m->values().span()) v *= 40.0f;  // scores up to tens of thousands
        for (const Executor& exec : fused::host_backends()) {
            const auto f = fused::forward(exec, p);
            for (double v : to_doubles(f.e)) ASSERT_TRUE(std::isfinite(v)) << exec.name();
        }
        // The forward must stay within 1e-3. The gradients go through softmax derivatives of f32
        // scores as large as |s| <= d (|x| + |y|)^2, whose rounding (|s| times f32 epsilon) is
        // above 1e-3 here; their bound is a few times that rounding.
        const double x_max = max_abs(p.x), y_max = max_abs(p.y);
        const double score_max = static_cast<double>(d) * (x_max + y_max) * (x_max + y_max);
        expect_matches_reference(p, s + 1, 1e-3, 1e-3, std::max(1e-3, 4.0 * score_max * std::numeric_limits<float>::epsilon()));
    }
}

template <class V>
void check_16_bit(const std::string& name) {
    const auto s = seed(name);
    for (FusedOptions o : {pattern(Score::dot, Edge::scale(0.5f), Normalize::softmax, Aggregate::sum, 4),
                           pattern(Score::add, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::mean, 2),
                           pattern(Score::dot, Edge::sigmoid(), Normalize::none, Aggregate::sum, 1)}) {
        const auto p = fused::random_problem<V, std::int32_t>(100, 80, 5.0, 8, 8, o, s);
        const auto want = fused::forward(Executor::reference(), p);
        for (const Executor& exec : fused::host_backends()) {
            SCOPED_TRACE(exec.name() + " " + fused::describe(o));
            const auto got = fused::forward(exec, p);
            EXPECT_TRUE(all_close(to_doubles(got.e), to_doubles(want.e), rtol_for<V>(), 2e-2, p.z.cols()));
        }
    }
}

TEST(FusedmmCpu, Float16Storage) { check_16_bit<f16>("fusedmm_cpu_f16"); }
TEST(FusedmmCpu, BFloat16Storage) { check_16_bit<bf16>("fusedmm_cpu_bf16"); }

template <class V>
Dense<V> to_col_major(const Dense<V>& d) {
    std::vector<V> host(static_cast<std::size_t>(d.rows() * d.cols()));
    for (index_t i = 0; i < d.rows(); ++i)
        for (index_t j = 0; j < d.cols(); ++j) host[j * d.rows() + i] = d.values()[static_cast<std::size_t>(i * d.cols() + j)];
    return Dense<V>(Executor::cpu(), d.rows(), d.cols(), host, Layout::col_major);
}

TEST(FusedmmCpu, ColumnMajorArgumentsGiveTheSameResult) {
    const auto s = seed("fusedmm_cpu_col_major");
    const FusedOptions o = pattern(Score::neg_sqdist, Edge::sigmoid(), Normalize::softmax, Aggregate::sum, 2);
    const auto p = fused::random_problem<double, std::int32_t>(40, 30, 4.0, 3, 5, o, s);
    const auto want = fused::forward(Executor::reference(), p);
    const Dense<double> de = random_dense<double>(40, 10, s + 1);
    const fused::Grads want_grads = fused::backward(Executor::reference(), p, want, de);
    for (const Executor& exec : fused::host_backends()) {
        const auto x = to_col_major(p.x), y = to_col_major(p.y), z = to_col_major(p.z), dec = to_col_major(de);
        Dense<double> e(Executor::cpu(), 40, 10, Layout::col_major), dx(Executor::cpu(), 40, 6, Layout::col_major),
            dy(Executor::cpu(), 30, 6, Layout::col_major), dz(Executor::cpu(), 30, 10, Layout::col_major);
        const FusedPlan<double, std::int32_t> plan(exec, p.a.view(), o);
        const auto saved = plan.forward(x.view(), y.view(), z.view(), e.view());
        plan.backward(dec.view(), saved, x.view(), y.view(), z.view(), dx.view(), dy.view(), dz.view());
        SCOPED_TRACE(exec.name());
        EXPECT_TRUE(all_close(to_doubles(e), to_doubles(want.e), 1e-12, 1e-12, 10));
        EXPECT_TRUE(all_close(to_doubles(dx), want_grads.dx, 1e-12, 1e-12, 6));
        EXPECT_TRUE(all_close(to_doubles(dy), want_grads.dy, 1e-12, 1e-12, 6));
        EXPECT_TRUE(all_close(to_doubles(dz), want_grads.dz, 1e-12, 1e-12, 10));
    }
}

// Row passes and column gathers sum in a fixed order: the bits do not depend on the thread count.
TEST(FusedmmCpu, ResultsDoNotDependOnThreadCount) {
    const auto s = seed("fusedmm_cpu_threads");
    const FusedOptions o = pattern(Score::dot, Edge::leaky_relu(0.2f), Normalize::softmax, Aggregate::sum, 4);
    const auto p = fused::random_problem<float, std::int32_t>(500, 400, 12.0, 4, 4, o, s);
    const Dense<float> de = random_dense<float>(500, 16, s + 1);
    const auto one = fused::forward(Executor::cpu(1), p);
    const fused::Grads g1 = fused::backward(Executor::cpu(1), p, one, de);
    for (int threads : {2, 3, 7}) {
        const auto many = fused::forward(Executor::cpu(threads), p);
        EXPECT_EQ(to_doubles(many.e), to_doubles(one.e)) << threads << " threads";
        const fused::Grads g = fused::backward(Executor::cpu(threads), p, many, de);
        EXPECT_EQ(g.dx, g1.dx);
        EXPECT_EQ(g.dy, g1.dy);
        EXPECT_EQ(g.dz, g1.dz);
    }
}

// A plan runs many times; A's values may change between runs.
TEST(FusedmmCpu, PlanIsReusable) {
    const auto s = seed("fusedmm_cpu_plan_reuse");
    const FusedOptions o = pattern(Score::value, Edge::sigmoid(), Normalize::softmax, Aggregate::sum, 1);
    auto p = fused::random_problem<double, std::int32_t>(50, 50, 5.0, 0, 4, o, s);
    const Dense<double> de = random_dense<double>(50, 4, s + 1);
    for (const Executor& exec : fused::host_backends()) {
        const FusedPlan<double, std::int32_t> plan(exec, p.a.view(), o);
        for (int round = 0; round < 3; ++round) {
            for (double& v : p.a.values().span()) v *= 1.5;
            Dense<double> e(Executor::cpu(), 50, 4), dz(Executor::cpu(), 50, 4), da(Executor::cpu(), p.a.nnz(), 1);
            const auto saved = plan.forward({}, {}, p.z.view(), e.view());
            plan.backward(de.view(), saved, {}, {}, p.z.view(), {}, {}, dz.view(), da.view());
            const auto want = fused::forward(Executor::reference(), p);
            const fused::Grads want_grads = fused::backward(Executor::reference(), p, want, de);
            EXPECT_TRUE(all_close(to_doubles(e), to_doubles(want.e), 1e-12, 1e-12, 4));
            EXPECT_TRUE(all_close(to_doubles(dz), want_grads.dz, 1e-12, 1e-12, 4));
            EXPECT_TRUE(all_close(to_doubles(da), want_grads.da, 1e-12, 1e-12));
        }
    }
}

}  // namespace
}  // namespace spk::test
