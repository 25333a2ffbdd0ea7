// Near-nullspace vectors of the grid problems: what the coarse levels must represent exactly.
#include "generate/smoothed_aggregation.hpp"

namespace spk::detail {

std::vector<double> near_nullspace(AmgProblem problem, const Grid& grid) {
    const index_t nodes = grid.nodes();
    if (problem != AmgProblem::elasticity3d) return std::vector<double>(static_cast<std::size_t>(nodes), 1.0);
    constexpr int k = 6;
    std::vector<double> b(static_cast<std::size_t>(nodes) * 3 * k);
    // Centred coordinates keep the rotation entries small next to the translations.
    const double cx = 0.5 * static_cast<double>(grid.nx - 1), cy = 0.5 * static_cast<double>(grid.ny - 1),
                 cz = 0.5 * static_cast<double>(grid.nz - 1);
#pragma omp parallel for schedule(static)
    for (index_t v = 0; v < nodes; ++v) {
        const double x = static_cast<double>(v % grid.nx) - cx, y = static_cast<double>(v / grid.nx % grid.ny) - cy,
                     z = static_cast<double>(v / (grid.nx * grid.ny)) - cz;
        //                 translations x, y, z     rotations about z, x, y
        const double rows[3][k] = {{1, 0, 0, -y, 0, z}, {0, 1, 0, x, -z, 0}, {0, 0, 1, 0, y, -x}};
        for (int c = 0; c < 3; ++c)
            for (int j = 0; j < k; ++j) b[(3 * v + c) * k + j] = rows[c][j];
    }
    return b;
}

}  // namespace spk::detail
