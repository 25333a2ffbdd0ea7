// FusedMM backward: central finite differences in f64 for every combination on every host
// backend, and the saved-attention path against the recomputing one.
#include "ops/fusedmm_test_support.hpp"

namespace spk::test {
namespace {

// L = Σ E ⊙ G, so dL/dθ is what backward(dE = G) returns.
template <class V, class I>
double loss(const Executor& exec, const fused::Problem<V, I>& p, const std::vector<double>& g) {
    const auto e = to_doubles(fused::forward(exec, p).e);
    double l = 0.0;
    for (std::size_t k = 0; k < e.size(); ++k) l += e[k] * g[k];
    return l;
}

// L at values[k] = x (a buffer inside p), values[k] restored.
template <class I>
double loss_at(const Executor& exec, fused::Problem<double, I>& p, Array<double>& values, std::size_t k, double x,
               const std::vector<double>& g) {
    const double old = values[k];
    values[k] = x;
    const double l = loss(exec, p, g);
    values[k] = old;
    return l;
}

// What each element of the gradient `got` with respect to `values` should be: the central
// difference of L; or, where L has a kink within the step (max and min aggregation change the
// entry they take where two candidates cross), and `got` is not close to the central difference,
// the one-sided difference of the side that `got` matches, at a step ten times smaller: the
// gradient at a kink is the slope of the side where the backward's chosen entry stays chosen.
// Elements that match neither keep the central difference, which all_close then reports.
template <class I>
std::vector<double> expected_gradient(const std::vector<double>& got, const Executor& exec, fused::Problem<double, I>& p,
                                      Array<double>& values, const std::vector<double>& g, double rtol, double atol) {
    constexpr double h = 1e-6, one_sided = h / 10;
    const auto close = [&](double a, double e) { return std::abs(a - e) <= atol + rtol * std::abs(e); };
    const double here = loss(exec, p, g);
    std::vector<double> out(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
        const double x = values[k];
        out[k] = (loss_at(exec, p, values, k, x + h, g) - loss_at(exec, p, values, k, x - h, g)) / (2 * h);
        if (k >= got.size() || close(got[k], out[k])) continue;
        const double forward = (loss_at(exec, p, values, k, x + one_sided, g) - here) / one_sided;
        const double backward = (here - loss_at(exec, p, values, k, x - one_sided, g)) / one_sided;
        if (close(got[k], forward))
            out[k] = forward;
        else if (close(got[k], backward))
            out[k] = backward;
    }
    return out;
}

template <class I>
void check_against_finite_differences(const Executor& exec, fused::Problem<double, I>& p, std::uint64_t s) {
    const auto f = fused::forward(exec, p);
    const Dense<double> de = random_dense<double>(p.a.rows(), p.z.cols(), s);
    const std::vector<double> g = to_doubles(de);
    const fused::Grads got = fused::backward(exec, p, f, de);
    constexpr double rtol = 1e-5, atol = 1e-6;
    const auto expected = [&](const std::vector<double>& grad, Array<double>& values) {
        return expected_gradient(grad, exec, p, values, g, rtol, atol);
    };
    EXPECT_TRUE(all_close(got.dx, expected(got.dx, p.x.values()), rtol, atol, std::max<index_t>(p.x.cols(), 1))) << "dX";
    EXPECT_TRUE(all_close(got.dy, expected(got.dy, p.y.values()), rtol, atol, std::max<index_t>(p.y.cols(), 1))) << "dY";
    EXPECT_TRUE(all_close(got.dz, expected(got.dz, p.z.values()), rtol, atol, std::max<index_t>(p.z.cols(), 1))) << "dZ";
    EXPECT_TRUE(all_close(got.da, expected(got.da, p.a.values()), rtol, atol)) << "dA";
}

// The reference and the one-thread cpu backend; the cpu test compares more threads with the
// reference (finite differences run thousands of tiny calls, where thread start-up dominates).
std::vector<Executor> reference_and_host_backends() { return {Executor::reference(), fused::host_backends().front()}; }

TEST(FusedmmBackward, MatchesFiniteDifferencesForEveryCombination) {
    const auto s = seed("fusedmm_backward_fd");
    std::uint64_t k = 0;
    for (const Executor& exec : reference_and_host_backends())
        for (int heads : {1, 2})
            for (FusedOptions o : fused::all_combinations()) {
                o.heads = heads;
                auto p = fused::random_problem<double, std::int32_t>(5, 4, 2.0, 2, 3, o, s + 10 * k++);
                SCOPED_TRACE(exec.name() + " " + fused::describe(o));
                check_against_finite_differences(exec, p, s + 10 * k + 5);
            }
}

TEST(FusedmmBackward, MatchesFiniteDifferencesWithSavedAttention) {
    const auto s = seed("fusedmm_backward_fd_saved");
    std::uint64_t k = 0;
    for (const Executor& exec : reference_and_host_backends())
        for (FusedOptions o : fused::all_combinations()) {
            o.heads = 2;
            o.save_attention = true;
            auto p = fused::random_problem<double, std::int64_t>(5, 4, 2.0, 2, 3, o, s + 10 * k++);
            SCOPED_TRACE(exec.name() + " " + fused::describe(o));
            check_against_finite_differences(exec, p, s + 10 * k + 5);
        }
}

// With negative slope leaky_relu maps both signs of s to positive weights, so the saved path must
// recompute the score to know the slope.
TEST(FusedmmBackward, LeakyReluWithNegativeSlopeAndSavedAttention) {
    const auto s = seed("fusedmm_backward_negative_slope");
    for (const Executor& exec : reference_and_host_backends()) {
        FusedOptions o;
        o.score = Score::dot;
        o.edge = Edge::leaky_relu(-0.5f);
        o.save_attention = true;
        auto p = fused::random_problem<double, std::int32_t>(6, 5, 2.0, 3, 2, o, s);
        SCOPED_TRACE(exec.name());
        check_against_finite_differences(exec, p, s + 1);
    }
}

TEST(FusedmmBackward, SavedAttentionAgreesWithRecomputation) {
    const auto s = seed("fusedmm_backward_saved_vs_recomputed");
    std::uint64_t k = 0;
    for (const Executor& exec : reference_and_host_backends())
        for (FusedOptions o : fused::all_combinations()) {
            o.heads = 4;
            auto p = fused::random_problem<double, std::int32_t>(40, 30, 4.0, 3, 5, o, s + k++);
            const Dense<double> de = random_dense<double>(p.a.rows(), p.z.cols(), s + 1000 + k);
            const fused::Grads plain = fused::backward(exec, p, fused::forward(exec, p), de);
            p.options.save_attention = true;
            const fused::Grads saved = fused::backward(exec, p, fused::forward(exec, p), de);
            SCOPED_TRACE(exec.name() + " " + fused::describe(o));
            EXPECT_TRUE(all_close(saved.dx, plain.dx, 1e-12, 1e-12)) << "dX";
            EXPECT_TRUE(all_close(saved.dy, plain.dy, 1e-12, 1e-12)) << "dY";
            EXPECT_TRUE(all_close(saved.dz, plain.dz, 1e-12, 1e-12)) << "dZ";
            EXPECT_TRUE(all_close(saved.da, plain.da, 1e-12, 1e-12)) << "dA";
        }
}

// A pattern of Aᵀ the caller keeps gives the very same gradients as the one the plan builds.
TEST(FusedmmBackward, KeptTransposedPatternGivesTheSameGradients) {
    const auto s = seed("fusedmm_backward_kept_transposed");
    std::uint64_t k = 0;
    for (const Executor& exec : fused::host_backends())
        for (FusedOptions o : fused::all_combinations()) {
            o.heads = 2;
            const auto p = fused::random_problem<float, std::int32_t>(50, 40, 4.0, 3, 4, o, s + k++);
            const fused::KeptTransposed<std::int32_t> at = fused::kept_transposed(p.a);
            const auto f = fused::forward(exec, p);
            const Dense<float> de = random_dense<float>(p.a.rows(), p.z.cols(), s + 1000 + k);
            const fused::Grads built = fused::backward(exec, p, f, de), kept = fused::backward(exec, p, f, de, &at);
            SCOPED_TRACE(exec.name() + " " + fused::describe(o));
            EXPECT_TRUE(all_close(kept.dy, built.dy, 0.0, 0.0)) << "dY";
            EXPECT_TRUE(all_close(kept.dz, built.dz, 0.0, 0.0)) << "dZ";
            EXPECT_TRUE(all_close(kept.dx, built.dx, 0.0, 0.0)) << "dX";
            EXPECT_TRUE(all_close(kept.da, built.da, 0.0, 0.0)) << "dA";
        }
}

TEST(FusedmmBackward, KeptTransposedPatternMustBeWhole) {
    const auto p = fused::random_problem<float, std::int32_t>(10, 8, 3.0, 2, 2, FusedOptions{}, seed("fusedmm_kept_transposed_missing"));
    FusedPlan<float, std::int32_t> plan(Executor::cpu(1), p.a.view(), p.options);
    const std::vector<std::int32_t> col_ptr(9, 0);
    expect_error([&] { plan.use_transposed_pattern(col_ptr.data(), nullptr, nullptr); }, ErrorKind::InvalidArgument, "row_idx");
}

// Gradients not asked for are skipped; the others are the same as when all are asked for.
TEST(FusedmmBackward, SkipsGradientsNotAskedFor) {
    const auto s = seed("fusedmm_backward_skip");
    for (const Executor& exec : reference_and_host_backends()) {
        FusedOptions o;
        o.normalize = Normalize::softmax;
        o.heads = 2;
        const auto p = fused::random_problem<float, std::int32_t>(30, 20, 3.0, 4, 3, o, s);
        const auto f = fused::forward(exec, p);
        const Dense<float> de = random_dense<float>(p.a.rows(), p.z.cols(), s + 1);
        const fused::Grads all = fused::backward(exec, p, f, de);
        Dense<float> dy(Executor::cpu(), p.y.rows(), p.y.cols());
        FusedPlan<float, std::int32_t>(exec, p.a.view(), o)
            .backward(de.view(), f.saved, p.x.view(), p.y.view(), p.z.view(), {}, dy.view(), {});
        SCOPED_TRACE(exec.name());
        EXPECT_TRUE(all_close(to_doubles(dy), all.dy, 0.0, 0.0));
    }
}

}  // namespace
}  // namespace spk::test
