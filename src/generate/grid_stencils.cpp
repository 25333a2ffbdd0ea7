// Laplace3D, BigStar2D and Brick3D (Galeri's stencils), one row per node, built directly as
// CSR. Stencil points are visited in (dz, dy, dx) order, which is increasing column order.
#include <algorithm>
#include <tuple>
#include <vector>

#include "core/instantiate.hpp"
#include "generate/csr_builder.hpp"
#include "generate/grid_problems.hpp"

namespace spk::detail {

namespace {

struct StencilPoint {
    int dx, dy, dz;
    double value;  // ignored for the centre, whose value is -(sum of the row's off-diagonals)
    bool centre() const { return dx == 0 && dy == 0 && dz == 0; }
};

std::vector<StencilPoint> stencil_points(AmgProblem problem) {
    std::vector<StencilPoint> points{{0, 0, 0, 0.0}};
    switch (problem) {
        case AmgProblem::laplace3d:
            for (int s : {-1, 1}) points.insert(points.end(), {{s, 0, 0, -1.0}, {0, s, 0, -1.0}, {0, 0, s, -1.0}});
            break;
        case AmgProblem::bigstar2d:
            for (int s : {-1, 1}) {
                points.insert(points.end(), {{s, 0, 0, -8.0}, {0, s, 0, -8.0}, {2 * s, 0, 0, 1.0}, {0, 2 * s, 0, 1.0}});
                for (int t : {-1, 1}) points.push_back({s, t, 0, 2.0});
            }
            break;
        case AmgProblem::brick3d:
            for (int dz = -1; dz <= 1; ++dz)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx)
                        if (dx != 0 || dy != 0 || dz != 0) points.push_back({dx, dy, dz, -1.0});
            break;
        case AmgProblem::elasticity3d:
            break;  // assembled from elements, not a stencil
    }
    std::sort(points.begin(), points.end(),
              [](const StencilPoint& p, const StencilPoint& q) { return std::tie(p.dz, p.dy, p.dx) < std::tie(q.dz, q.dy, q.dx); });
    return points;
}

bool inside(index_t x, int d, index_t n) { return x + d >= 0 && x + d < n; }

}  // namespace

template <class V, class I>
Csr<V, I> stencil_matrix(AmgProblem problem, const Grid& grid) {
    const std::vector<StencilPoint> points = stencil_points(problem);
    auto for_each_point = [&](index_t node, auto&& visit) {
        const index_t ix = node % grid.nx, iy = node / grid.nx % grid.ny, iz = node / (grid.nx * grid.ny);
        for (const StencilPoint& p : points)
            if (inside(ix, p.dx, grid.nx) && inside(iy, p.dy, grid.ny) && inside(iz, p.dz, grid.nz))
                visit(p, grid.node(ix + p.dx, iy + p.dy, iz + p.dz));
    };
    return build_csr_by_rows<V, I>(
        to_string(problem), grid.nodes(), grid.nodes(),
        [&](index_t node) {
            index_t len = 0;
            for_each_point(node, [&](const StencilPoint&, index_t) { ++len; });
            return len;
        },
        [&](index_t node, I* c, V* v) {
            index_t k = 0, diag = 0;
            double off_sum = 0;
            for_each_point(node, [&](const StencilPoint& p, index_t col) {
                c[k] = static_cast<I>(col);
                if (p.centre())
                    diag = k;
                else {
                    v[k] = value_cast<V>(p.value);
                    off_sum += p.value;
                }
                ++k;
            });
            v[diag] = value_cast<V>(-off_sum);
        });
}

#define SPK_INSTANTIATE(V, I) template Csr<V, I> stencil_matrix<V, I>(AmgProblem, const Grid&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail
