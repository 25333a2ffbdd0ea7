// Smoothed aggregation: aggregation, the tentative prolongator, lambda_max, the smoothed P
// against a dense computation, and R = Pᵀ.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "generate/generate_test_helpers.hpp"
#include "generate/local_qr.hpp"
#include "generate/smoothed_aggregation.hpp"
#include "support/test_support.hpp"

namespace spk {
namespace {

struct Case {
    AmgProblem problem;
    index_t nx, ny, nz;
};
const Case cases[] = {{AmgProblem::laplace3d, 5, 4, 3},
                      {AmgProblem::bigstar2d, 7, 6, 1},
                      {AmgProblem::brick3d, 4, 4, 4},
                      {AmgProblem::elasticity3d, 3, 3, 3}};

std::string name(const Case& c) {
    return std::string(to_string(c.problem)) + " " + std::to_string(c.nx) + "x" + std::to_string(c.ny) + "x" + std::to_string(c.nz);
}

// Dense row-major product (m x n) * (n x k).
std::vector<double> matmul(const std::vector<double>& x, const std::vector<double>& y, index_t m, index_t n, index_t k) {
    std::vector<double> z(static_cast<std::size_t>(m * k), 0.0);
    for (index_t i = 0; i < m; ++i)
        for (index_t l = 0; l < n; ++l)
            for (index_t j = 0; j < k; ++j) z[i * k + j] += x[i * n + l] * y[l * k + j];
    return z;
}

std::vector<double> transposed(const std::vector<double>& x, index_t m, index_t n) {
    std::vector<double> t(x.size());
    for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < n; ++j) t[j * m + i] = x[i * n + j];
    return t;
}

std::vector<double> identity(index_t n) {
    std::vector<double> e(static_cast<std::size_t>(n * n), 0.0);
    for (index_t i = 0; i < n; ++i) e[i * n + i] = 1;
    return e;
}

TEST(Aggregation, PathAndSquareByHand) {
    // Path 0-1-2-3-4: root 0 takes {0, 1}; 2 touches aggregate 0; root 3 takes {2, 3, 4}.
    const auto path = generate_amg_matrix<double, std::int32_t>(AmgProblem::laplace3d, 5, 1, 1);
    const auto p = detail::aggregate_uncoupled(path.view(), 1);
    EXPECT_EQ(p.count, 2);
    EXPECT_EQ(p.of_node, (std::vector<std::int32_t>{0, 0, 1, 1, 1}));
    // 3 x 3 grid: root 0 takes {0, 1, 3}; root 5 takes {2, 4, 5, 8}; then 6 joins aggregate 0
    // (via 3) and 7 joins aggregate 1 (two edges, to 4 and 8).
    const auto square = generate_amg_matrix<double, std::int32_t>(AmgProblem::laplace3d, 3, 3, 1);
    const auto s = detail::aggregate_uncoupled(square.view(), 1);
    EXPECT_EQ(s.count, 2);
    EXPECT_EQ(s.of_node, (std::vector<std::int32_t>{0, 0, 1, 0, 1, 1, 0, 1, 1}));
    // A single node has no neighbour: phase 3 gives it its own aggregate.
    const auto one = generate_amg_matrix<double, std::int32_t>(AmgProblem::laplace3d, 1, 1, 1);
    const auto o = detail::aggregate_uncoupled(one.view(), 1);
    EXPECT_EQ(o.count, 1);
    EXPECT_EQ(o.of_node, (std::vector<std::int32_t>{0}));
}

TEST(Aggregation, EveryNodeInExactlyOneAggregate) {
    for (const Case& c : cases) {
        const auto a = generate_amg_matrix<double, std::int64_t>(c.problem, c.nx, c.ny, c.nz);
        const int block = c.problem == AmgProblem::elasticity3d ? 3 : 1;
        const auto agg = detail::aggregate_uncoupled(a.view(), block);
        ASSERT_EQ(static_cast<index_t>(agg.of_node.size()), a.rows() / block) << name(c);
        std::vector<index_t> size(static_cast<std::size_t>(agg.count), 0);
        for (std::int64_t id : agg.of_node) {
            ASSERT_TRUE(id >= 0 && id < agg.count) << name(c);
            ++size[id];
        }
        for (index_t s : size) EXPECT_GE(s, 2) << name(c);  // no singletons on these grids
        const auto again = test::with_threads(1, [&] { return detail::aggregate_uncoupled(a.view(), block); });
        EXPECT_EQ(again.of_node, agg.of_node) << name(c);
    }
}

TEST(LocalQr, RankDeficientAndWideBlocks) {
    std::mt19937_64 rng(test::seed("qr"));
    std::uniform_real_distribution<double> dist(-1, 1);
    for (auto [m, k, rank] : {std::tuple{9, 3, 3}, std::tuple{6, 6, 5}, std::tuple{7, 4, 2}, std::tuple{3, 6, 3}}) {
        // a = (m x rank) (rank x k): exactly the given rank.
        std::vector<double> u(static_cast<std::size_t>(m * rank)), v(static_cast<std::size_t>(rank * k));
        for (double& x : u) x = dist(rng);
        for (double& x : v) x = dist(rng);
        const std::vector<double> a_rows = matmul(u, v, m, rank, k);
        std::vector<double> a_cols = transposed(a_rows, m, k);  // column-major for householder_qr
        std::vector<double> q_cols(static_cast<std::size_t>(m * k)), r(static_cast<std::size_t>(k * k)), work;
        detail::householder_qr(m, k, a_cols.data(), q_cols.data(), r.data(), work);
        const std::vector<double> q = transposed(q_cols, k, m);  // row-major m x k
        EXPECT_TRUE(test::all_close(matmul(q, r, m, k, k), a_rows, 1e-12, 1e-12, k)) << m << "x" << k;
        const std::vector<double> qtq = matmul(transposed(q, m, k), q, k, m, k);
        std::vector<double> expected = identity(k);
        for (index_t j = m; j < k; ++j) expected[j * k + j] = 0;  // wide: only m columns can be orthonormal
        EXPECT_TRUE(test::all_close(qtq, expected, 0, 1e-12, k)) << m << "x" << k;
        for (int i = 0; i < k; ++i) {
            EXPECT_GE(r[i * k + i], 0.0);
            for (int j = 0; j < i; ++j) EXPECT_EQ(r[i * k + j], 0.0);
        }
    }
}

TEST(TentativeProlongator, OrthonormalAndReproducesNullspace) {
    for (const Case& c : cases) {
        const auto a = generate_amg_matrix<double, std::int32_t>(c.problem, c.nx, c.ny, c.nz);
        const int block = detail::dofs_per_node(c.problem), k = detail::nullspace_dim(c.problem);
        const auto agg = detail::aggregate_uncoupled(a.view(), block);
        const std::vector<double> b = detail::near_nullspace(c.problem, detail::Grid{c.nx, c.ny, c.nz});
        const auto t = detail::tentative_prolongator<double, std::int32_t>(agg, block, b, k);
        EXPECT_NO_THROW(validate(t.p.view()));
        ASSERT_EQ(t.p.rows(), a.rows());
        ASSERT_EQ(t.p.cols(), agg.count * k);
        ASSERT_EQ(t.p.nnz(), a.rows() * k);
        // Aggregates own disjoint rows, so orthonormal columns per aggregate make P_tentᵀP_tent = I.
        const std::vector<double> p = test::dense_of(t.p);
        const index_t nc = t.p.cols();
        EXPECT_TRUE(test::all_close(matmul(transposed(p, a.rows(), nc), p, nc, a.rows(), nc), identity(nc), 0, 1e-12, nc)) << name(c);
        EXPECT_TRUE(test::all_close(matmul(p, t.coarse_nullspace, a.rows(), nc, k), b, 1e-12, 1e-12, k)) << name(c);
        for (index_t i = 0; i < a.rows(); ++i)  // row i sits in its node's aggregate's k columns
            for (int j = 0; j < k; ++j) ASSERT_EQ(t.p.col_idx()[i * k + j], agg.of_node[i / block] * k + j);
        if (k == 1) {  // constants: 1 / sqrt(aggregate size)
            std::vector<index_t> size(static_cast<std::size_t>(agg.count), 0);
            for (std::int32_t id : agg.of_node) ++size[id];
            for (index_t i = 0; i < a.rows(); ++i) ASSERT_NEAR(t.p.values()[i], 1 / std::sqrt(double(size[agg.of_node[i]])), 1e-15);
        }
    }
}

TEST(LambdaMax, NearTheLargestEigenvalueAndThreadIndependent) {
    for (const Case& c : cases) {
        const auto a = generate_amg_matrix<double, std::int32_t>(c.problem, c.nx, c.ny, c.nz);
        const double estimate = detail::estimate_lambda_max(a.view(), detail::sa_power_iterations);
        const double one_thread = test::with_threads(1, [&] { return detail::estimate_lambda_max(a.view(), detail::sa_power_iterations); });
        EXPECT_EQ(estimate, one_thread) << name(c);
        // Reference: many power iterations on the symmetric D^-1/2 A D^-1/2 (same spectrum as D⁻¹A).
        const index_t n = a.rows();
        std::vector<double> s = test::dense_of(a), x(static_cast<std::size_t>(n), 0.0), y(static_cast<std::size_t>(n));
        std::vector<double> d(static_cast<std::size_t>(n));
        for (index_t i = 0; i < n; ++i) d[i] = 1 / std::sqrt(s[i * n + i]);
        for (index_t i = 0; i < n; ++i)
            for (index_t j = 0; j < n; ++j) s[i * n + j] *= d[i] * d[j];
        for (index_t i = 0; i < n; ++i) x[i] = std::sin(1.0 + i);  // not orthogonal to the top eigenvector
        double lambda = 0;
        for (int it = 0; it < 3000; ++it) {
            double norm = 0, rq = 0;
            for (index_t i = 0; i < n; ++i) {
                y[i] = 0;
                for (index_t j = 0; j < n; ++j) y[i] += s[i * n + j] * x[j];
            }
            for (index_t i = 0; i < n; ++i) norm += y[i] * y[i], rq += x[i] * y[i];
            lambda = rq;
            for (index_t i = 0; i < n; ++i) x[i] = y[i] / std::sqrt(norm);
        }
        EXPECT_LE(estimate, lambda * (1 + 1e-10)) << name(c);
        EXPECT_GE(estimate, 0.85 * lambda) << name(c);
    }
}

TEST(SmoothedProlongator, MatchesDenseComputation) {
    for (const Case& c : cases) {
        const auto ops = generate_amg<double, std::int32_t>(c.problem, c.nx, c.ny, c.nz);
        const auto& a = ops.a;
        const index_t n = a.rows();
        const int block = detail::dofs_per_node(c.problem), k = detail::nullspace_dim(c.problem);
        const auto agg = detail::aggregate_uncoupled(a.view(), block);
        const std::vector<double> b = detail::near_nullspace(c.problem, detail::Grid{c.nx, c.ny, c.nz});
        const auto t = detail::tentative_prolongator<double, std::int32_t>(agg, block, b, k);
        EXPECT_EQ(ops.aggregates, agg.count) << name(c);
        EXPECT_EQ(ops.lambda_max, detail::estimate_lambda_max(a.view(), 10)) << name(c);
        EXPECT_DOUBLE_EQ(ops.omega, 4.0 / (3.0 * ops.lambda_max)) << name(c);

        // P = (I - omega D⁻¹A) P_tent, densely.
        std::vector<double> s = test::dense_of(a);
        for (index_t i = 0; i < n; ++i) {
            const double inv_d = 1 / s[i * n + i];
            for (index_t j = 0; j < n; ++j) s[i * n + j] = (i == j ? 1.0 : 0.0) - ops.omega * inv_d * s[i * n + j];
        }
        const index_t nc = t.p.cols();
        const std::vector<double> expected = matmul(s, test::dense_of(t.p), n, n, nc);
        ASSERT_EQ(ops.p.rows(), n);
        ASSERT_EQ(ops.p.cols(), nc);
        EXPECT_NO_THROW(validate(ops.p.view()));
        EXPECT_TRUE(test::all_close(test::dense_of(ops.p), expected, 1e-12, 1e-13, nc)) << name(c);

        // R = Pᵀ, and A B = 0 everywhere (the boundary rule), so P reproduces the nullspace too.
        EXPECT_TRUE(test::identical(ops.r, transpose(ops.p.view()))) << name(c);
        EXPECT_TRUE(test::all_close(test::dense_of(ops.r), transposed(test::dense_of(ops.p), n, nc), 0, 0, n)) << name(c);
        EXPECT_TRUE(test::all_close(matmul(test::dense_of(a), b, n, n, k), std::vector<double>(b.size(), 0.0), 0, 1e-12, k)) << name(c);
        EXPECT_TRUE(test::all_close(matmul(test::dense_of(ops.p), t.coarse_nullspace, n, nc, k), b, 1e-10, 1e-10, k)) << name(c);
    }
}

TEST(GenerateAmg, TypesShapesAndThreads) {
    const auto d = generate_amg<double, std::int64_t>(AmgProblem::brick3d, 6, 5, 4);
    const auto f = generate_amg<float, std::int32_t>(AmgProblem::brick3d, 6, 5, 4);
    const auto h = generate_amg<f16, std::int32_t>(AmgProblem::brick3d, 6, 5, 4);
    for (const auto* m : {&f.a, &f.p, &f.r}) EXPECT_NO_THROW(validate(m->view()));
    EXPECT_EQ(f.p.rows(), 120);
    EXPECT_EQ(f.p.cols(), f.aggregates);
    EXPECT_EQ(f.r.rows(), f.p.cols());
    EXPECT_EQ(f.r.cols(), f.p.rows());
    EXPECT_EQ(d.p.col_idx().to_vector().size(), static_cast<std::size_t>(f.p.nnz()));
    EXPECT_TRUE(test::all_close(test::dense_of(f.p), test::dense_of(d.p), 1e-5, 1e-6, f.p.cols()));
    EXPECT_TRUE(test::all_close(test::dense_of(h.p), test::dense_of(d.p), 1e-2, 1e-3, h.p.cols()));
    const auto one = test::with_threads(1, [] { return generate_amg<double, std::int32_t>(AmgProblem::elasticity3d, 4, 3, 3); });
    const auto two = test::with_threads(2, [] { return generate_amg<double, std::int32_t>(AmgProblem::elasticity3d, 4, 3, 3); });
    EXPECT_TRUE(test::identical(one.p, two.p));
    EXPECT_TRUE(test::identical(one.r, two.r));
    EXPECT_EQ(one.p.cols(), 6 * one.aggregates);
}

TEST(GenerateAmg, SingleNodeGrid) {
    const auto ops = generate_amg<double, std::int32_t>(AmgProblem::laplace3d, 1, 1, 1);
    EXPECT_EQ(ops.aggregates, 1);
    EXPECT_EQ(ops.omega, 0.0);  // A = 0: nothing to smooth
    ASSERT_EQ(ops.p.nnz(), 1);
    EXPECT_EQ(ops.p.values()[0], 1.0);
}

}  // namespace
}  // namespace spk
