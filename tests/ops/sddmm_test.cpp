// SDDMM forward and backward: the reference against a dense oracle and finite differences,
// every backend under test against the reference (heads, scaling, layouts, 16-bit types, edge
// cases, NaN), and bad input.
#include <cmath>
#include <limits>

#include "ops/spmm_test_support.hpp"

namespace spk {
namespace {

using test::absolute;
using test::doubles_of;
using test::view_of;

using test::expect_error;

using test::Strided;

SddmmOptions options(bool scale_by_a, int heads) {
    SddmmOptions o;
    o.scale_by_a = scale_by_a;
    o.heads = heads;
    return o;
}

// out (nnz x heads, row-major doubles) of sddmm on exec, from host inputs.
template <class V, class I>
std::vector<double> run_sddmm(const Executor& exec, const Csr<V, I>& a, const Strided<V>& x, const Strided<V>& y, const SddmmOptions& o,
                              Layout out_layout = Layout::row_major, index_t out_pad = 0) {
    const Csr<V, I> a_dev = a.to(exec);
    Array<V> x_dev(exec, x.data), y_dev(exec, y.data);
    const Strided<V> out_shape(a.nnz(), o.heads, out_layout, out_pad, value_cast<V>(std::numeric_limits<double>::quiet_NaN()));
    Array<V> out_dev(exec, out_shape.data);
    sddmm(exec, a_dev.view(), DenseView<const V>(view_of(x_dev, x)), DenseView<const V>(view_of(y_dev, y)), view_of(out_dev, out_shape), o);
    return doubles_of(out_dev.to_vector(), out_shape);
}

struct Gradients {
    std::vector<double> dx, dy, da;
};

// Gradients on exec; dx, dy, da computed only where the flag asks (the others left empty). The
// outputs start as NaN: every element must be overwritten.
template <class V, class I>
Gradients run_backward(const Executor& exec, const Csr<V, I>& a, const Strided<V>& x, const Strided<V>& y, const Strided<V>& d_out,
                       const SddmmOptions& o, bool want_dx = true, bool want_dy = true, bool want_da = true) {
    const V nan = value_cast<V>(std::numeric_limits<double>::quiet_NaN());
    const Csr<V, I> a_dev = a.to(exec);
    Array<V> x_dev(exec, x.data), y_dev(exec, y.data), g_dev(exec, d_out.data);
    const Strided<V> dx_shape(x.rows, x.cols, x.layout, 1, nan), dy_shape(y.rows, y.cols, Layout::col_major, 2, nan),
        da_shape(a.nnz(), 1, Layout::row_major, 0, nan);
    Array<V> dx_dev(exec, dx_shape.data), dy_dev(exec, dy_shape.data), da_dev(exec, da_shape.data);
    sddmm_backward(exec, a_dev.view(), DenseView<const V>(view_of(x_dev, x)), DenseView<const V>(view_of(y_dev, y)),
                   DenseView<const V>(view_of(g_dev, d_out)), want_dx ? view_of(dx_dev, dx_shape) : DenseView<V>{},
                   want_dy ? view_of(dy_dev, dy_shape) : DenseView<V>{}, want_da ? view_of(da_dev, da_shape) : DenseView<V>{}, o);
    Gradients g;
    if (want_dx) g.dx = doubles_of(dx_dev.to_vector(), dx_shape);
    if (want_dy) g.dy = doubles_of(dy_dev.to_vector(), dy_shape);
    if (want_da) g.da = doubles_of(da_dev.to_vector(), da_shape);
    return g;
}

// Forward and backward on every backend under test against the reference.
template <class V, class I>
void expect_sddmm_matches_reference(const Csr<V, I>& a, const Strided<V>& x, const Strided<V>& y, const SddmmOptions& o, std::uint64_t seed,
                                    Layout out_layout = Layout::row_major) {
    const auto g = test::random_strided<V>(a.nnz(), o.heads, Layout::row_major, 0, seed);
    const auto out_expected = run_sddmm(Executor::reference(), a, x, y, o);
    const auto out_bound = run_sddmm(Executor::reference(), absolute(a), absolute(x), absolute(y), o);
    const auto grad_expected = run_backward(Executor::reference(), a, x, y, g, o);
    const auto grad_bound = run_backward(Executor::reference(), absolute(a), absolute(x), absolute(y), absolute(g), o);
    const double rtol = test::rtol_for<V>();
    for (const Executor& exec : test::backends_under_test()) {
        SCOPED_TRACE(exec.name() + " heads " + std::to_string(o.heads) + " features " + std::to_string(x.cols) +
                     (o.scale_by_a ? " scaled" : "") + " X " + (x.layout == Layout::row_major ? "row" : "col") + "-major");
        EXPECT_TRUE(test::close_within_bound(run_sddmm(exec, a, x, y, o, out_layout, 3), out_expected, out_bound, rtol, o.heads));
        const auto grad = run_backward(exec, a, x, y, g, o);
        EXPECT_TRUE(test::close_within_bound(grad.dx, grad_expected.dx, grad_bound.dx, rtol, x.cols)) << "dx";
        EXPECT_TRUE(test::close_within_bound(grad.dy, grad_expected.dy, grad_bound.dy, rtol, y.cols)) << "dy";
        EXPECT_TRUE(test::close_within_bound(grad.da, grad_expected.da, grad_bound.da, rtol, 1)) << "da";
    }
}

// ---------------------------------------------------------------------------------------------
TEST(SddmmReference, MatchesDenseOracle) {
    const std::uint64_t seed = test::seed("sddmm_reference_oracle");
    const auto a = test::random_csr<double, std::int32_t>(9, 7, 3.0, seed);
    for (const int heads : {1, 3})
        for (const bool scale : {false, true}) {
            const auto x = test::random_strided<double>(9, 2 * heads, Layout::col_major, 1, seed + 1);
            const auto y = test::random_strided<double>(7, 2 * heads, Layout::row_major, 2, seed + 2);
            std::vector<double> want;
            for (index_t i = 0; i < a.rows(); ++i)
                for (index_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p)
                    for (int h = 0; h < heads; ++h) {
                        const index_t j = a.col_idx()[p];
                        const double dot = x.at(i, 2 * h) * y.at(j, 2 * h) + x.at(i, 2 * h + 1) * y.at(j, 2 * h + 1);
                        want.push_back((scale ? a.values()[p] : 1.0) * dot);
                    }
            EXPECT_TRUE(test::all_close(run_sddmm(Executor::reference(), a, x, y, options(scale, heads)), want, 1e-14, 1e-14, heads));
        }
}

// L = sum_{p,h} dOut(p, h) * out(p, h) is linear in each of X, Y and A's values, so central
// differences give its gradients up to rounding.
TEST(SddmmReference, BackwardMatchesFiniteDifferences) {
    const std::uint64_t seed = test::seed("sddmm_reference_fd");
    auto a = test::random_csr<double, std::int32_t>(5, 6, 2.0, seed);
    for (const int heads : {1, 2})
        for (const bool scale : {false, true}) {
            const SddmmOptions o = options(scale, heads);
            auto x = test::random_strided<double>(5, 3 * heads, Layout::row_major, 0, seed + 1);
            auto y = test::random_strided<double>(6, 3 * heads, Layout::row_major, 0, seed + 2);
            const auto g = test::random_strided<double>(a.nnz(), heads, Layout::row_major, 0, seed + 3);
            const auto loss = [&] {
                const auto out = run_sddmm(Executor::reference(), a, x, y, o);
                double l = 0;
                for (std::size_t k = 0; k < out.size(); ++k) l += g.data[k] * out[k];
                return l;
            };
            const double eps = 1e-4;
            const auto derivative = [&](double& v) {
                const double saved = v;
                v = saved + eps;
                const double up = loss();
                v = saved - eps;
                const double down = loss();
                v = saved;
                return (up - down) / (2 * eps);
            };
            const auto grad = run_backward(Executor::reference(), a, x, y, g, o);
            for (index_t k = 0; k < static_cast<index_t>(x.data.size()); ++k)
                EXPECT_NEAR(grad.dx[k], derivative(x.data[k]), 1e-8) << "dx " << k;
            for (index_t k = 0; k < static_cast<index_t>(y.data.size()); ++k)
                EXPECT_NEAR(grad.dy[k], derivative(y.data[k]), 1e-8) << "dy " << k;
            if (scale) {
                for (index_t p = 0; p < a.nnz(); ++p) EXPECT_NEAR(grad.da[p], derivative(a.values()[p]), 1e-8) << "da " << p;
            }
        }
}

// ---------------------------------------------------------------------------------------------
template <class T>
class SddmmBackend : public ::testing::Test {};
TYPED_TEST_SUITE(SddmmBackend, test::BackendTypes);

TYPED_TEST(SddmmBackend, HeadsScalingAndLayouts) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("sddmm_backend_small");
    const auto a = test::random_csr<V, I>(40, 30, 4.0, seed);
    for (const int heads : {1, 2, 4})
        for (const index_t d : {1, 3, 16, 33})
            for (const bool scale : {false, true})
                for (const Layout layout : {Layout::row_major, Layout::col_major}) {
                    const auto x = test::random_strided<V>(a.rows(), heads * d, layout, 0, seed + 1);
                    const auto y = test::random_strided<V>(a.cols(), heads * d, layout, 2, seed + 2);
                    expect_sddmm_matches_reference(a, x, y, options(scale, heads), seed + 3, layout);
                }
}

// Large enough that the cpu backend runs its threads; includes one long row.
TYPED_TEST(SddmmBackend, Threaded) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("sddmm_backend_threaded");
    std::vector<I> ptr{0}, col;
    std::vector<V> val;
    std::mt19937_64 rng(seed);
    for (index_t i = 0; i < 500; ++i) {
        const index_t len = i == 17 ? 350 : static_cast<index_t>(rng() % 12);
        for (index_t k = 0; k < len; ++k) {
            col.push_back(static_cast<I>(i == 17 ? k : static_cast<index_t>(rng() % 400)));
            val.push_back(value_cast<V>(0.5 + static_cast<double>(rng() % 100) / 100.0));
        }
        std::sort(col.end() - len, col.end());
        col.erase(std::unique(col.end() - len, col.end()), col.end());
        val.resize(col.size());
        ptr.push_back(static_cast<I>(col.size()));
    }
    const Csr<V, I> a(Executor::cpu(), 500, 400, ptr, col, val);
    for (const int heads : {1, 4}) {
        const auto x = test::random_strided<V>(500, heads * 32, Layout::row_major, 0, seed + 1);
        const auto y = test::random_strided<V>(400, heads * 32, Layout::row_major, 0, seed + 2);
        expect_sddmm_matches_reference(a, x, y, options(true, heads), seed + 3);
    }
}

TYPED_TEST(SddmmBackend, EmptyShapesAndRows) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("sddmm_backend_empty");
    const Csr<V, I> empty(Executor::cpu(), 0, 0, std::vector<I>{0}, {}, {});
    const Csr<V, I> no_entries(Executor::cpu(), 6, 4, std::vector<I>(7, 0), {}, {});
    const auto some_empty_rows = test::random_csr<V, I>(12, 9, 1.0, seed);
    for (const Csr<V, I>* a : {&empty, &no_entries, &some_empty_rows})
        for (const index_t features : {0, 4}) {
            const auto x = test::random_strided<V>(a->rows(), features, Layout::row_major, 0, seed + 1);
            const auto y = test::random_strided<V>(a->cols(), features, Layout::row_major, 0, seed + 2);
            expect_sddmm_matches_reference(*a, x, y, options(true, features == 0 ? 1 : 2), seed + 3);
        }
}

TYPED_TEST(SddmmBackend, PatternOnlyMatrixWithoutScaling) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("sddmm_backend_pattern");
    const auto valued = test::random_csr<V, I>(30, 25, 4.0, seed);
    const Csr<V, I> pattern(Executor::cpu(), 30, 25, valued.row_ptr().to_vector(), valued.col_idx().to_vector(), {});
    ASSERT_EQ(pattern.view().values, nullptr);
    const auto x = test::random_strided<V>(30, 8, Layout::row_major, 0, seed + 1);
    const auto y = test::random_strided<V>(25, 8, Layout::row_major, 0, seed + 2);
    const auto g = test::random_strided<V>(pattern.nnz(), 2, Layout::row_major, 0, seed + 3);
    const auto o = options(false, 2);
    const auto expected = run_sddmm(Executor::reference(), valued, x, y, o);
    const auto grad_expected = run_backward(Executor::reference(), valued, x, y, g, o);
    for (const Executor& exec : test::backends_under_test()) {
        EXPECT_TRUE(test::all_close(run_sddmm(exec, pattern, x, y, o), expected, test::rtol_for<V>(), test::rtol_for<V>() * 8, 2))
            << exec.name();
        const auto grad = run_backward(exec, pattern, x, y, g, o);
        EXPECT_TRUE(test::all_close(grad.dx, grad_expected.dx, test::rtol_for<V>(), test::rtol_for<V>() * 8, 8)) << exec.name();
        EXPECT_TRUE(test::all_close(grad.dy, grad_expected.dy, test::rtol_for<V>(), test::rtol_for<V>() * 8, 8)) << exec.name();
        EXPECT_TRUE(test::all_close(grad.da, grad_expected.da, test::rtol_for<V>(), test::rtol_for<V>() * 8, 1)) << exec.name();
    }
}

// Each gradient alone gives the same values as all three together.
TYPED_TEST(SddmmBackend, GradientsCanBeSkipped) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("sddmm_backend_skip");
    const auto a = test::random_csr<V, I>(20, 15, 3.0, seed);
    const auto x = test::random_strided<V>(20, 6, Layout::row_major, 0, seed + 1);
    const auto y = test::random_strided<V>(15, 6, Layout::row_major, 0, seed + 2);
    const auto g = test::random_strided<V>(a.nnz(), 3, Layout::row_major, 0, seed + 3);
    const auto o = options(true, 3);
    for (const Executor& exec : test::backends_under_test()) {
        const auto all = run_backward(exec, a, x, y, g, o);
        EXPECT_EQ(run_backward(exec, a, x, y, g, o, true, false, false).dx, all.dx) << exec.name();
        EXPECT_EQ(run_backward(exec, a, x, y, g, o, false, true, false).dy, all.dy) << exec.name();
        EXPECT_EQ(run_backward(exec, a, x, y, g, o, false, false, true).da, all.da) << exec.name();
    }
}

TYPED_TEST(SddmmBackend, NanAndInfPropagateLikeTheReference) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("sddmm_backend_nan");
    const auto a = test::random_csr<V, I>(25, 20, 4.0, seed);
    auto x = test::random_strided<V>(25, 8, Layout::row_major, 0, seed + 1);
    auto y = test::random_strided<V>(20, 8, Layout::row_major, 0, seed + 2);
    x.at(3, 1) = value_cast<V>(std::numeric_limits<double>::quiet_NaN());
    y.at(5, 6) = value_cast<V>(std::numeric_limits<double>::infinity());
    expect_sddmm_matches_reference(a, x, y, options(true, 2), seed + 3);
}

// ---------------------------------------------------------------------------------------------
class SddmmBadInput : public ::testing::Test {
protected:
    Executor exec = Executor::cpu(1);
    Csr<float, std::int32_t> a = test::random_csr<float, std::int32_t>(4, 3, 2.0, 7);
    Dense<float> x{exec, 4, 6}, y{exec, 3, 6}, out{exec, a.nnz(), 2}, d_out{exec, a.nnz(), 2};
    SddmmOptions two_heads = options(true, 2);
};

TEST_F(SddmmBadInput, WrongShapes) {
    Dense<float> x_bad(exec, 5, 6), y_bad(exec, 3, 4), out_bad(exec, a.nnz(), 3);
    expect_error([&] { sddmm(exec, a.view(), x_bad.view(), y.view(), out.view(), two_heads); }, ErrorKind::ShapeMismatch, "X");
    expect_error([&] { sddmm(exec, a.view(), x.view(), y_bad.view(), out.view(), two_heads); }, ErrorKind::ShapeMismatch, "Y");
    expect_error([&] { sddmm(exec, a.view(), x.view(), y.view(), out_bad.view(), two_heads); }, ErrorKind::ShapeMismatch, "out");
    expect_error([&] { sddmm(exec, a.view(), x.view(), y.view(), out.view(), options(true, 4)); }, ErrorKind::ShapeMismatch, "heads");
    expect_error([&] { sddmm(exec, a.view(), x.view(), y.view(), out.view(), options(true, 0)); }, ErrorKind::InvalidArgument, "heads");
}

TEST_F(SddmmBadInput, NullDataAndMissingValues) {
    const DenseView<const float> x_null{nullptr, 4, 6, 6};
    expect_error([&] { sddmm(exec, a.view(), x_null, y.view(), out.view(), two_heads); }, ErrorKind::InvalidArgument, "X");
    auto pattern = a.view();
    pattern.values = nullptr;
    expect_error([&] { sddmm(exec, pattern, x.view(), y.view(), out.view(), two_heads); }, ErrorKind::InvalidArgument, "A");
    EXPECT_NO_THROW(sddmm(exec, pattern, x.view(), y.view(), out.view(), options(false, 2)));
}

TEST_F(SddmmBadInput, BackwardShapes) {
    Dense<float> dx(exec, 4, 6), dy(exec, 3, 6), da(exec, a.nnz(), 1);
    Dense<float> g_bad(exec, a.nnz(), 1), dx_bad(exec, 4, 5), dy_bad(exec, 4, 6), da_bad(exec, a.nnz(), 2);
    const auto run = [&](const Dense<float>& g, DenseView<float> dxv, DenseView<float> dyv, DenseView<float> dav) {
        sddmm_backward(exec, a.view(), x.view(), y.view(), g.view(), dxv, dyv, dav, two_heads);
    };
    expect_error([&] { run(g_bad, dx.view(), dy.view(), da.view()); }, ErrorKind::ShapeMismatch, "d_out");
    expect_error([&] { run(d_out, dx_bad.view(), dy.view(), da.view()); }, ErrorKind::ShapeMismatch, "dx");
    expect_error([&] { run(d_out, dx.view(), dy_bad.view(), da.view()); }, ErrorKind::ShapeMismatch, "dy");
    expect_error([&] { run(d_out, dx.view(), dy.view(), da_bad.view()); }, ErrorKind::ShapeMismatch, "da");
    EXPECT_NO_THROW(run(d_out, {}, {}, da.view()));
}

}  // namespace
}  // namespace spk
