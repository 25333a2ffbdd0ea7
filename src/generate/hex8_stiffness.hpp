#pragma once
// Element stiffness of isotropic linear elasticity on the unit cube with trilinear (8-node
// hexahedral) shape functions, integrated with 2x2x2 Gauss points. Local node l sits at
// corner (l & 1, (l >> 1) & 1, (l >> 2) & 1); unknown 3 l + c is its displacement along axis c.
#include <array>

namespace spk::detail {

constexpr int hex8_dofs = 24;
using Hex8Stiffness = std::array<double, hex8_dofs * hex8_dofs>;  // row-major, exactly symmetric

// young: Young's modulus E; poisson: Poisson's ratio nu in (-1, 0.5).
Hex8Stiffness hex8_stiffness(double young, double poisson);

}  // namespace spk::detail
