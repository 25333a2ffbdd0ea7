// generate_amg_matrix: grid checks and dispatch to the stencil or element assembly.
#include <limits>
#include <string>

#include "core/instantiate.hpp"
#include "generate/grid_problems.hpp"
#include "spk/error.hpp"

namespace spk {

std::string_view to_string(AmgProblem problem) noexcept {
    switch (problem) {
        case AmgProblem::laplace3d:
            return "laplace3d";
        case AmgProblem::bigstar2d:
            return "bigstar2d";
        case AmgProblem::brick3d:
            return "brick3d";
        case AmgProblem::elasticity3d:
            return "elasticity3d";
    }
    return "?";
}

namespace detail {

Grid checked_grid(AmgProblem problem, index_t nx, index_t ny, index_t nz) {
    const std::string name(to_string(problem));
    const index_t least = problem == AmgProblem::elasticity3d ? 2 : 1;
    for (auto [axis, n] : {std::pair{"nx", nx}, std::pair{"ny", ny}, std::pair{"nz", nz}})
        if (n < least)
            invalid_argument(name + ": " + axis + " must be >= " + std::to_string(least) +
                             (least == 2 ? " (elements need two nodes a side)" : "") + ", got " + std::to_string(n));
    if (problem == AmgProblem::bigstar2d && nz != 1) invalid_argument("bigstar2d: a 2D problem needs nz = 1, got " + std::to_string(nz));
    constexpr index_t most = std::numeric_limits<index_t>::max() / 3;
    if (nx > most / ny || nx * ny > most / nz)
        invalid_argument(name + ": the grid " + std::to_string(nx) + " x " + std::to_string(ny) + " x " + std::to_string(nz) +
                         " has too many nodes");
    return Grid{nx, ny, nz};
}

int dofs_per_node(AmgProblem problem) { return problem == AmgProblem::elasticity3d ? 3 : 1; }
int nullspace_dim(AmgProblem problem) { return problem == AmgProblem::elasticity3d ? 6 : 1; }

}  // namespace detail

template <class V, class I>
Csr<V, I> generate_amg_matrix(AmgProblem problem, index_t nx, index_t ny, index_t nz) {
    const detail::Grid grid = detail::checked_grid(problem, nx, ny, nz);
    if (problem == AmgProblem::elasticity3d) return detail::elasticity_matrix<V, I>(grid);
    return detail::stencil_matrix<V, I>(problem, grid);
}

#define SPK_INSTANTIATE(V, I) template Csr<V, I> generate_amg_matrix<V, I>(AmgProblem, index_t, index_t, index_t);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
