#pragma once
// Thin QR of a small dense block (one aggregate's near-nullspace) by Householder reflections.
#include <vector>

namespace spk::detail {

// a: m x k, column-major, overwritten. On return q (m x k, column-major) has orthonormal
// columns and r (k x k, row-major) is upper triangular with a non-negative diagonal, q r = a.
// Rank-deficient a still gives orthonormal q (and zeros on r's diagonal). When m < k, the
// columns of q past m and the rows of r past m are zero. work: scratch, resized as needed.
void householder_qr(int m, int k, double* a, double* q, double* r, std::vector<double>& work);

}  // namespace spk::detail
