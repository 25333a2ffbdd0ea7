// The Galeri AMG problems: shapes and nnz, interior stencils, the zero-row-sum boundary rule,
// symmetry, and the elasticity assembly against an element-by-element dense assembly.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "generate/generate_test_helpers.hpp"
#include "generate/grid_problems.hpp"
#include "generate/hex8_stiffness.hpp"
#include "generate/smoothed_aggregation.hpp"
#include "support/test_support.hpp"

namespace spk {
namespace {

using test::entry;
using test::row_sum;

template <class V, class I>
void expect_row_sums_zero(const Csr<V, I>& a, double tol) {
    for (index_t i = 0; i < a.rows(); ++i) ASSERT_NEAR(row_sum(a, i), 0.0, tol) << "row " << i;
}

template <class E>
void expect_invalid(E&& call, const std::string& fragment) {
    try {
        call();
        ADD_FAILURE() << "no error, expected one mentioning '" << fragment << "'";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

index_t node(index_t nx, index_t ny, index_t x, index_t y, index_t z) { return x + nx * (y + ny * z); }

TEST(Laplace3D, ShapeNnzStencilAndRowSums) {
    const auto a = generate_amg_matrix<double, std::int32_t>(AmgProblem::laplace3d, 10, 10, 10);
    EXPECT_NO_THROW(validate(a.view()));
    EXPECT_EQ(a.rows(), 1000);
    EXPECT_EQ(a.nnz(), 7 * 1000 - 6 * 100);
    const index_t c = node(10, 10, 4, 5, 6);
    EXPECT_EQ(a.row_ptr()[c + 1] - a.row_ptr()[c], 7);
    EXPECT_EQ(entry(a, c, c), 6.0);
    for (index_t d : {1, 10, 100}) {
        EXPECT_EQ(entry(a, c, c - d), -1.0);
        EXPECT_EQ(entry(a, c, c + d), -1.0);
    }
    EXPECT_EQ(entry(a, 0, 0), 3.0);  // corner: three neighbours
    expect_row_sums_zero(a, 0.0);
    EXPECT_TRUE(test::exactly_symmetric(a));
}

TEST(Laplace3D, BoxGridFlatGridAndSingleNode) {
    const index_t nx = 4, ny = 5, nz = 6, n = nx * ny * nz;
    const auto a = generate_amg_matrix<float, std::int64_t>(AmgProblem::laplace3d, nx, ny, nz);
    EXPECT_EQ(a.nnz(), n + 2 * ((nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)));
    expect_row_sums_zero(a, 0.0);
    const auto flat = generate_amg_matrix<double, std::int32_t>(AmgProblem::laplace3d, 6, 5, 1);  // 5-point
    const index_t c = node(6, 5, 2, 2, 0);
    EXPECT_EQ(flat.row_ptr()[c + 1] - flat.row_ptr()[c], 5);
    EXPECT_EQ(entry(flat, c, c), 4.0);
    const auto one = generate_amg_matrix<double, std::int32_t>(AmgProblem::laplace3d, 1, 1, 1);
    ASSERT_EQ(one.nnz(), 1);
    EXPECT_EQ(one.values()[0], 0.0);
}

TEST(BigStar2D, ShapeNnzStencilAndRowSums) {
    const index_t nx = 7, ny = 9, n = nx * ny;
    const auto a = generate_amg_matrix<double, std::int32_t>(AmgProblem::bigstar2d, nx, ny, 1);
    EXPECT_NO_THROW(validate(a.view()));
    EXPECT_EQ(a.rows(), n);
    EXPECT_EQ(a.nnz(), n + 2 * ((nx - 1) * ny + nx * (ny - 1)) + 4 * (nx - 1) * (ny - 1) + 2 * ((nx - 2) * ny + nx * (ny - 2)));
    const index_t c = node(nx, ny, 3, 4, 0);
    EXPECT_EQ(a.row_ptr()[c + 1] - a.row_ptr()[c], 13);
    EXPECT_EQ(entry(a, c, c), 20.0);
    for (index_t d : {index_t{1}, nx}) {
        EXPECT_EQ(entry(a, c, c - d), -8.0);
        EXPECT_EQ(entry(a, c, c + d), -8.0);
        EXPECT_EQ(entry(a, c, c - 2 * d), 1.0);
        EXPECT_EQ(entry(a, c, c + 2 * d), 1.0);
    }
    for (index_t d : {nx - 1, nx + 1}) {
        EXPECT_EQ(entry(a, c, c - d), 2.0);
        EXPECT_EQ(entry(a, c, c + d), 2.0);
    }
    // Corner: -8 -8 (direct) +2 (diagonal) +1 +1 (distance two) -> diagonal 12.
    EXPECT_EQ(entry(a, 0, 0), 12.0);
    expect_row_sums_zero(a, 0.0);
    EXPECT_TRUE(test::exactly_symmetric(a));
    const auto h = generate_amg_matrix<f16, std::int32_t>(AmgProblem::bigstar2d, nx, ny, 1);
    for (index_t p = 0; p < a.nnz(); ++p) ASSERT_EQ(static_cast<float>(h.values()[p]), a.values()[p]);
}

TEST(Brick3D, ShapeNnzStencilAndRowSums) {
    const index_t nx = 5, ny = 4, nz = 6;
    const auto a = generate_amg_matrix<double, std::int32_t>(AmgProblem::brick3d, nx, ny, nz);
    EXPECT_NO_THROW(validate(a.view()));
    EXPECT_EQ(a.nnz(), (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
    const index_t c = node(nx, ny, 2, 1, 3);
    ASSERT_EQ(a.row_ptr()[c + 1] - a.row_ptr()[c], 27);
    for (index_t p = a.row_ptr()[c]; p < a.row_ptr()[c + 1]; ++p) EXPECT_EQ(a.values()[p], a.col_idx()[p] == c ? 26.0 : -1.0);
    EXPECT_EQ(entry(a, 0, 0), 7.0);
    expect_row_sums_zero(a, 0.0);
    EXPECT_TRUE(test::exactly_symmetric(a));
}

TEST(Hex8Stiffness, SymmetricAndExactForLinearFields) {
    const auto k = detail::hex8_stiffness(1.0, 0.25);
    for (int i = 0; i < 24; ++i)
        for (int j = 0; j < 24; ++j) ASSERT_EQ(k[i * 24 + j], k[j * 24 + i]);
    // A linear displacement u(x) = G x has constant strain; the energy uᵀKu must equal
    // εᵀDε over the unit volume (2x2x2 Gauss integrates it exactly), zero for rotations.
    const double nu = 0.25, lambda = nu / ((1 + nu) * (1 - 2 * nu)), mu = 1 / (2 * (1 + nu));
    std::mt19937_64 rng(test::seed("hex8"));
    std::uniform_real_distribution<double> dist(-1, 1);
    for (int trial = 0; trial < 5; ++trial) {
        double g[3][3];
        for (auto& row : g)
            for (double& x : row) x = dist(rng);
        std::array<double, 24> u{};
        for (int l = 0; l < 8; ++l) {
            const double x[3] = {double(l & 1), double((l >> 1) & 1), double((l >> 2) & 1)};
            for (int c = 0; c < 3; ++c) u[3 * l + c] = g[c][0] * x[0] + g[c][1] * x[1] + g[c][2] * x[2];
        }
        double energy = 0;
        for (int i = 0; i < 24; ++i)
            for (int j = 0; j < 24; ++j) energy += u[i] * k[i * 24 + j] * u[j];
        const double exx = g[0][0], eyy = g[1][1], ezz = g[2][2];
        const double gxy = g[0][1] + g[1][0], gyz = g[1][2] + g[2][1], gxz = g[0][2] + g[2][0];
        const double expected = lambda * (exx + eyy + ezz) * (exx + eyy + ezz) + 2 * mu * (exx * exx + eyy * eyy + ezz * ezz) +
                                mu * (gxy * gxy + gyz * gyz + gxz * gxz);
        EXPECT_NEAR(energy, expected, 1e-12 * (1 + std::abs(expected)));
    }
}

TEST(Elasticity3D, MatchesElementByElementAssembly) {
    const index_t nx = 3, ny = 4, nz = 3, dofs = 3 * nx * ny * nz;
    const auto a = generate_amg_matrix<double, std::int32_t>(AmgProblem::elasticity3d, nx, ny, nz);
    EXPECT_NO_THROW(validate(a.view()));
    EXPECT_EQ(a.rows(), dofs);
    EXPECT_EQ(a.nnz(), 9 * (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
    const auto k = detail::hex8_stiffness(1.0, 0.25);
    std::vector<double> expected(static_cast<std::size_t>(dofs * dofs), 0.0);
    for (index_t ez = 0; ez + 1 < nz; ++ez)
        for (index_t ey = 0; ey + 1 < ny; ++ey)
            for (index_t ex = 0; ex + 1 < nx; ++ex)
                for (int l = 0; l < 8; ++l)
                    for (int m = 0; m < 8; ++m) {
                        const index_t p = node(nx, ny, ex + (l & 1), ey + ((l >> 1) & 1), ez + ((l >> 2) & 1));
                        const index_t q = node(nx, ny, ex + (m & 1), ey + ((m >> 1) & 1), ez + ((m >> 2) & 1));
                        for (int c = 0; c < 3; ++c)
                            for (int d = 0; d < 3; ++d) expected[(3 * p + c) * dofs + 3 * q + d] += k[(3 * l + c) * 24 + 3 * m + d];
                    }
    EXPECT_TRUE(test::all_close(test::dense_of(a), expected, 1e-12, 1e-14, dofs));
    EXPECT_TRUE(test::exactly_symmetric(a));
    expect_row_sums_zero(a, 1e-13);
    const index_t interior = 3 * node(nx, ny, 1, 2, 1) + 1;
    EXPECT_EQ(a.row_ptr()[interior + 1] - a.row_ptr()[interior], 81);
}

TEST(Elasticity3D, RigidBodyModesInNullSpace) {
    const detail::Grid grid{4, 3, 5};
    const auto a = generate_amg_matrix<double, std::int64_t>(AmgProblem::elasticity3d, grid.nx, grid.ny, grid.nz);
    const std::vector<double> b = detail::near_nullspace(AmgProblem::elasticity3d, grid);
    for (int mode = 0; mode < 6; ++mode)
        for (index_t i = 0; i < a.rows(); ++i) {
            double s = 0;
            for (index_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p) s += a.values()[p] * b[a.col_idx()[p] * 6 + mode];
            ASSERT_NEAR(s, 0.0, 1e-12) << "mode " << mode << ", row " << i;
        }
}

TEST(AmgProblems, SameOnOneAndTwoThreads) {
    for (AmgProblem p : {AmgProblem::laplace3d, AmgProblem::brick3d, AmgProblem::elasticity3d}) {
        const auto one = test::with_threads(1, [&] { return generate_amg_matrix<float, std::int32_t>(p, 5, 6, 7); });
        const auto two = test::with_threads(2, [&] { return generate_amg_matrix<float, std::int32_t>(p, 5, 6, 7); });
        EXPECT_TRUE(test::identical(one, two)) << to_string(p);
    }
    const auto one = test::with_threads(1, [&] { return generate_amg_matrix<double, std::int64_t>(AmgProblem::bigstar2d, 30, 20, 1); });
    const auto two = test::with_threads(2, [&] { return generate_amg_matrix<double, std::int64_t>(AmgProblem::bigstar2d, 30, 20, 1); });
    EXPECT_TRUE(test::identical(one, two));
}

TEST(AmgProblems, BadGrids) {
    expect_invalid([] { generate_amg_matrix<float, std::int32_t>(AmgProblem::laplace3d, 0, 3, 3); }, "nx must be >= 1");
    expect_invalid([] { generate_amg_matrix<float, std::int32_t>(AmgProblem::brick3d, 3, -1, 3); }, "ny must be >= 1");
    expect_invalid([] { generate_amg_matrix<float, std::int32_t>(AmgProblem::bigstar2d, 3, 3, 2); }, "nz = 1");
    expect_invalid([] { generate_amg_matrix<float, std::int32_t>(AmgProblem::elasticity3d, 3, 3, 1); }, "nz must be >= 2");
    expect_invalid([] { generate_amg_matrix<float, std::int32_t>(AmgProblem::laplace3d, 2000, 2000, 2000); }, "int64");
    expect_invalid([] { generate_amg_matrix<float, std::int64_t>(AmgProblem::laplace3d, 1LL << 40, 1LL << 40, 4); }, "too many nodes");
}

}  // namespace
}  // namespace spk
