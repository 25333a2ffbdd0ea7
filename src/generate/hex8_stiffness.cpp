// K_e = sum over Gauss points g of w_g B(g)ᵀ D B(g): B maps the 24 nodal displacements to the
// 6 strains (xx, yy, zz, and engineering shears xy, yz, xz), D is Hooke's law for an isotropic
// material. The Jacobian of the unit cube is the identity.
#include "generate/hex8_stiffness.hpp"

#include <cmath>

namespace spk::detail {

Hex8Stiffness hex8_stiffness(double young, double poisson) {
    const double lambda = young * poisson / ((1 + poisson) * (1 - 2 * poisson));
    const double mu = young / (2 * (1 + poisson));
    double d[6][6] = {};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) d[i][j] = lambda;
        d[i][i] = lambda + 2 * mu;
        d[i + 3][i + 3] = mu;
    }
    const double gauss[2] = {0.5 - 0.5 / std::sqrt(3.0), 0.5 + 0.5 / std::sqrt(3.0)};
    const double weight = 1.0 / 8;  // each of the 8 points carries an eighth of the unit volume

    Hex8Stiffness k{};
    for (double x : gauss)
        for (double y : gauss)
            for (double z : gauss) {
                double b[6][hex8_dofs] = {};
                for (int l = 0; l < 8; ++l) {
                    // N_l = fx fy fz with f = t at the far corner and 1 - t at the near one.
                    const int cx = l & 1, cy = (l >> 1) & 1, cz = (l >> 2) & 1;
                    const double fx = cx ? x : 1 - x, fy = cy ? y : 1 - y, fz = cz ? z : 1 - z;
                    const double gx = (cx ? 1 : -1) * fy * fz, gy = (cy ? 1 : -1) * fx * fz, gz = (cz ? 1 : -1) * fx * fy;
                    b[0][3 * l] = gx;
                    b[1][3 * l + 1] = gy;
                    b[2][3 * l + 2] = gz;
                    b[3][3 * l] = gy, b[3][3 * l + 1] = gx;
                    b[4][3 * l + 1] = gz, b[4][3 * l + 2] = gy;
                    b[5][3 * l] = gz, b[5][3 * l + 2] = gx;
                }
                double db[6][hex8_dofs] = {};
                for (int r = 0; r < 6; ++r)
                    for (int s = 0; s < 6; ++s)
                        for (int j = 0; j < hex8_dofs; ++j) db[r][j] += d[r][s] * b[s][j];
                for (int i = 0; i < hex8_dofs; ++i)
                    for (int j = 0; j < hex8_dofs; ++j)
                        for (int r = 0; r < 6; ++r) k[i * hex8_dofs + j] += weight * b[r][i] * db[r][j];
            }
    // Symmetrise exactly, so the assembled matrix is exactly symmetric too.
    for (int i = 0; i < hex8_dofs; ++i)
        for (int j = 0; j < i; ++j) k[i * hex8_dofs + j] = k[j * hex8_dofs + i] = 0.5 * (k[i * hex8_dofs + j] + k[j * hex8_dofs + i]);
    return k;
}

}  // namespace spk::detail
