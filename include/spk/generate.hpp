#pragma once
// Matrix generators, deterministic by seed: the same arguments give the same matrix on any
// thread count (every row or edge draws from its own counter-based random stream). Output is
// CSR with sorted, unique columns, built row by row in parallel.
//
// Every generator is also reachable through a spec string "kind:name=value,name=value" (what
// `spk gen` and the benchmark suites use), e.g.
//   "uniform:rows=1000000,cols=1000000,per_row=16,seed=1"   "rmat:scale=20,edge_factor=16"
//   "powerlaw:rows=100000,per_row=16,exponent=2.1"  "banded:n=100000,half_width=5"
//   "blockdiag:blocks=1000,block=32"  "laplace3d:n=128"  "bigstar2d:n=1000"  "brick3d:n=64"
//   "elasticity3d:n=40"
// Kinds and parameters (defaults in brackets; sizes without a default are required):
//   uniform       rows (or n), cols [rows], per_row [16], seed [1]
//   rmat          scale, edge_factor [16], a [0.57], b [0.19], c [0.19], d [0.05], seed [1]
//   powerlaw      rows (or n), cols [rows], per_row [16], exponent [2.1], seed [1]
//   banded        n, half_width, seed [1]
//   blockdiag     blocks, block, seed [1]
//   laplace3d, brick3d, elasticity3d   nx, ny, nz (n sets all three; nx/ny/nz override it)
//   bigstar2d     nx, ny (n sets both)
// Unknown kinds, unknown or repeated parameters, missing sizes and malformed numbers throw
// InvalidArgument naming them.
#include <cstdint>
#include <string>
#include <string_view>

#include "spk/matrix.hpp"

namespace spk {

// rows x cols, each row with floor(per_row) or ceil(per_row) distinct columns drawn uniformly
// (mean per_row); values uniform in (0, 1].
template <class V, class I>
Csr<V, I> generate_uniform(index_t rows, index_t cols, double per_row, std::uint64_t seed);
// R-MAT: 2^scale vertices, edge_factor * 2^scale edges drawn with quadrant probabilities
// a, b, c, d (duplicates merged, so nnz is a little lower; self-loops kept). Values in (0, 1].
template <class V, class I>
Csr<V, I> generate_rmat(int scale, double edge_factor, double a, double b, double c, double d, std::uint64_t seed);
// Row lengths drawn from a power law P(len > x) ~ x^(1 - exponent) (exponent > 1) whose mean,
// after capping at cols, is per_row; columns uniform, values in (0, 1].
template <class V, class I>
Csr<V, I> generate_powerlaw(index_t rows, index_t cols, double per_row, double exponent, std::uint64_t seed);
// n x n band |i - j| <= half_width, symmetric, off-diagonals uniform in (-1, 1], diagonal
// 1 + sum of the row's |off-diagonals| (strictly diagonally dominant, so SPD).
template <class V, class I>
Csr<V, I> generate_banded(index_t n, index_t half_width, std::uint64_t seed);
// blocks dense block_size x block_size blocks on the diagonal, values as in generate_banded.
template <class V, class I>
Csr<V, I> generate_block_diagonal(index_t blocks, index_t block_size, std::uint64_t seed);

// The AMG problems of the second paper, as Trilinos' Galeri defines them, on a grid of
// nx x ny x nz nodes numbered x fastest (bigstar2d needs nz = 1; use ny = nz = 1 for lower
// dimensions of the 3D problems). Interior rows carry the stencil:
//   laplace3d     7-point: centre 6, the 6 face neighbours -1
//   bigstar2d     13-point: centre 20, 4 direct neighbours -8, 4 diagonal +2, 4 at distance two +1
//   brick3d       27-point: centre 26, the 26 others -1
//   elasticity3d  trilinear hexahedra (E = 1, nu = 0.25, unit cubes, 2x2x2 Gauss), 3 interleaved
//                 unknowns (x, y, z displacement) per node, up to 81 non-zeros a row
// Boundary rows of the stencil problems get diagonal = -(sum of their off-diagonals), so every
// row sums to zero; elasticity has free (traction-free) boundaries, so rigid-body motions are
// in its null space and its rows sum to zero too. elasticity3d needs nx, ny, nz >= 2.
enum class AmgProblem { laplace3d, bigstar2d, brick3d, elasticity3d };
std::string_view to_string(AmgProblem problem) noexcept;
template <class V, class I>
Csr<V, I> generate_amg_matrix(AmgProblem problem, index_t nx, index_t ny, index_t nz);

// A with its smoothed-aggregation prolongator (as MueLu builds it by default) and R = Pᵀ:
// uncoupled aggregation of the node graph, tentative prolongator from the near-nullspace
// (constants, or the 6 rigid-body modes for elasticity) by QR per aggregate, then
// P = (I - omega D⁻¹A) P_tent with omega = 4 / (3 lambda_max(D⁻¹A)) from 10 power iterations.
// The product is formed by spk::spgemm on the cpu executor.
template <class V, class I>
struct AmgOperators {
    Csr<V, I> a, p, r;
    index_t aggregates = 0;   // coarse nodes; P has aggregates * (1 or 6) columns
    double lambda_max = 0.0;  // the power-method estimate of the largest eigenvalue of D⁻¹A
    double omega = 0.0;       // the damping factor applied
};
template <class V, class I>
AmgOperators<V, I> generate_amg(AmgProblem problem, index_t nx, index_t ny, index_t nz);

// From a spec string as above; throws InvalidArgument naming an unknown kind or parameter.
template <class V, class I>
Csr<V, I> generate(std::string_view spec);
// A, P and R from an AMG spec (laplace3d, bigstar2d, brick3d, elasticity3d); InvalidArgument
// for other kinds.
template <class V, class I>
AmgOperators<V, I> amg_from_spec(std::string_view spec);
// Whether the spec's kind is one of the AMG problems (only the kind is looked at).
bool is_amg_spec(std::string_view spec);

}  // namespace spk
