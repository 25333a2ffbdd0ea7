// Elasticity3D: 3D linear elasticity on (nx-1) x (ny-1) x (nz-1) unit-cube trilinear elements,
// three interleaved unknowns per node (row 3 node + c: displacement along axis c).
//
// Boundary treatment: none is imposed. Boundary nodes keep only the element contributions they
// have (free, traction-free faces), so the six rigid-body motions lie in the null space and
// every row sums to zero - the elasticity analogue of the stencil problems' boundary rule.
// Each row is assembled on its own from the elements around its node (no global scatter), and
// contributions are added in the same element order for (i, j) and (j, i), so A is exactly
// symmetric.
#include <algorithm>

#include "core/instantiate.hpp"
#include "generate/csr_builder.hpp"
#include "generate/grid_problems.hpp"
#include "generate/hex8_stiffness.hpp"

namespace spk::detail {

namespace {

constexpr double young_modulus = 1.0;
constexpr double poisson_ratio = 0.25;

// Nodes within distance one of x along an axis of n nodes.
index_t span(index_t x, index_t n) { return std::min(x + 1, n - 1) - std::max<index_t>(x - 1, 0) + 1; }

}  // namespace

template <class V, class I>
Csr<V, I> elasticity_matrix(const Grid& grid) {
    const Hex8Stiffness ke = hex8_stiffness(young_modulus, poisson_ratio);
    struct NodeDof {
        index_t ix, iy, iz;
        int c;
    };
    auto locate = [&](index_t row) {
        const index_t node = row / 3;
        return NodeDof{node % grid.nx, node / grid.nx % grid.ny, node / (grid.nx * grid.ny), static_cast<int>(row % 3)};
    };
    return build_csr_by_rows<V, I>(
        "elasticity3d", 3 * grid.nodes(), 3 * grid.nodes(),
        [&](index_t row) {
            const NodeDof d = locate(row);
            return 3 * span(d.ix, grid.nx) * span(d.iy, grid.ny) * span(d.iz, grid.nz);
        },
        [&](index_t row, I* cols, V* vals) {
            const NodeDof d = locate(row);
            // coupling[neighbour slot (dx+1) + 3 (dy+1) + 9 (dz+1)][component of the neighbour]
            double coupling[27][3] = {};
            for (index_t ez = std::max<index_t>(d.iz - 1, 0); ez <= std::min(d.iz, grid.nz - 2); ++ez)
                for (index_t ey = std::max<index_t>(d.iy - 1, 0); ey <= std::min(d.iy, grid.ny - 2); ++ey)
                    for (index_t ex = std::max<index_t>(d.ix - 1, 0); ex <= std::min(d.ix, grid.nx - 2); ++ex) {
                        const int local_row = 3 * static_cast<int>((d.ix - ex) + 2 * (d.iy - ey) + 4 * (d.iz - ez)) + d.c;
                        for (int l = 0; l < 8; ++l) {
                            const index_t qx = ex + (l & 1), qy = ey + ((l >> 1) & 1), qz = ez + ((l >> 2) & 1);
                            const index_t slot = (qx - d.ix + 1) + 3 * (qy - d.iy + 1) + 9 * (qz - d.iz + 1);
                            for (int c = 0; c < 3; ++c) coupling[slot][c] += ke[local_row * hex8_dofs + 3 * l + c];
                        }
                    }
            index_t k = 0;
            for (index_t dz = -1; dz <= 1; ++dz)
                for (index_t dy = -1; dy <= 1; ++dy)
                    for (index_t dx = -1; dx <= 1; ++dx) {
                        const index_t qx = d.ix + dx, qy = d.iy + dy, qz = d.iz + dz;
                        if (qx < 0 || qx >= grid.nx || qy < 0 || qy >= grid.ny || qz < 0 || qz >= grid.nz) continue;
                        const index_t q = grid.node(qx, qy, qz);
                        for (int c = 0; c < 3; ++c, ++k) {
                            cols[k] = static_cast<I>(3 * q + c);
                            vals[k] = value_cast<V>(coupling[(dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)][c]);
                        }
                    }
        });
}

#define SPK_INSTANTIATE(V, I) template Csr<V, I> elasticity_matrix<V, I>(const Grid&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail
