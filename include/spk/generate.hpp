#pragma once
// Matrix generators, deterministic by seed. Every generator is also reachable through a spec
// string (what `spk gen` and the benchmark suites use), e.g.
//   "uniform:rows=1000000,cols=1000000,per_row=16,seed=1"   "rmat:scale=20,edge_factor=16"
//   "powerlaw:rows=100000,per_row=16,exponent=2.1"  "banded:n=100000,half_width=5"
//   "blockdiag:blocks=1000,block=32"  "laplace3d:n=128"  "bigstar2d:n=1000"  "brick3d:n=64"
//   "elasticity3d:n=40"
#include <cstdint>
#include <string>
#include <string_view>

#include "spk/matrix.hpp"

namespace spk {

template <class V, class I> Csr<V, I> generate_uniform(index_t rows, index_t cols, double per_row, std::uint64_t seed);
// R-MAT: 2^scale vertices, edge_factor * 2^scale edges drawn with quadrant probabilities
// a, b, c, d (duplicates merged, so nnz is a little lower).
template <class V, class I>
Csr<V, I> generate_rmat(int scale, double edge_factor, double a, double b, double c, double d, std::uint64_t seed);
// Row lengths drawn from a power law with the given exponent and mean.
template <class V, class I> Csr<V, I> generate_powerlaw(index_t rows, index_t cols, double per_row, double exponent, std::uint64_t seed);
template <class V, class I> Csr<V, I> generate_banded(index_t n, index_t half_width, std::uint64_t seed);
template <class V, class I> Csr<V, I> generate_block_diagonal(index_t blocks, index_t block_size, std::uint64_t seed);

// The AMG problems of the second paper, as Trilinos' Galeri defines them (grid nx x ny x nz).
enum class AmgProblem { laplace3d, bigstar2d, brick3d, elasticity3d };
template <class V, class I> Csr<V, I> generate_amg_matrix(AmgProblem problem, index_t nx, index_t ny, index_t nz);

// A with its smoothed-aggregation prolongator (as MueLu builds it by default) and R = Pᵀ.
template <class V, class I> struct AmgOperators {
    Csr<V, I> a, p, r;
};
template <class V, class I> AmgOperators<V, I> generate_amg(AmgProblem problem, index_t nx, index_t ny, index_t nz);

// From a spec string as above; throws InvalidArgument naming an unknown kind or parameter.
template <class V, class I> Csr<V, I> generate(std::string_view spec);

} // namespace spk
