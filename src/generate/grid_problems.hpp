#pragma once
// The AMG model problems on a structured grid of nx x ny x nz nodes, numbered x fastest
// (node = ix + nx * (iy + ny * iz)), as Trilinos' Galeri numbers them.
#include "spk/generate.hpp"
#include "spk/matrix.hpp"

namespace spk::detail {

struct Grid {
    index_t nx = 1, ny = 1, nz = 1;
    index_t nodes() const { return nx * ny * nz; }
    index_t node(index_t ix, index_t iy, index_t iz) const { return ix + nx * (iy + ny * iz); }
};

// InvalidArgument unless the grid suits the problem (every extent >= 1, bigstar2d flat,
// elasticity3d at least 2 nodes per direction, no overflow of the node count).
Grid checked_grid(AmgProblem problem, index_t nx, index_t ny, index_t nz);

// Unknowns per node (3 for elasticity3d, else 1) and near-nullspace vectors (6 or 1).
int dofs_per_node(AmgProblem problem);
int nullspace_dim(AmgProblem problem);

// laplace3d, bigstar2d or brick3d: the stencil on interior rows, diagonal = -(sum of the
// off-diagonals) on every row.
template <class V, class I>
Csr<V, I> stencil_matrix(AmgProblem problem, const Grid& grid);
// elasticity3d: assembled trilinear hexahedral elements, free boundaries.
template <class V, class I>
Csr<V, I> elasticity_matrix(const Grid& grid);

}  // namespace spk::detail
