// Householder QR: H_{t-1} ... H_0 a = [R; 0], Q = H_0 ... H_{t-1} [I_k; 0] (t = min(m, k)).
#include "generate/local_qr.hpp"

#include <algorithm>
#include <cmath>

namespace spk::detail {

namespace {

// x -= (2 vᵀx / vᵀv) v on rows [j, m) of one column; v lives in rows [j, m) of `v`.
void reflect(int m, int j, const double* v, double v_norm2, double* x) {
    double s = 0;
    for (int i = j; i < m; ++i) s += v[i] * x[i];
    const double f = 2 * s / v_norm2;
    for (int i = j; i < m; ++i) x[i] -= f * v[i];
}

}  // namespace

void householder_qr(int m, int k, double* a, double* q, double* r, std::vector<double>& work) {
    const int t = std::min(m, k);
    work.assign(static_cast<std::size_t>(m) * t + t, 0.0);  // reflectors (column-major), then their squared norms
    double* v = work.data();
    double* v_norm2 = v + static_cast<std::size_t>(m) * t;
    for (int j = 0; j < t; ++j) {
        double* col = a + static_cast<std::size_t>(j) * m;
        double norm = 0;
        for (int i = j; i < m; ++i) norm += col[i] * col[i];
        norm = std::sqrt(norm);
        if (norm == 0) continue;                          // nothing to eliminate: H_j = I (v_norm2 stays 0)
        const double alpha = col[j] >= 0 ? -norm : norm;  // the sign that avoids cancellation
        double* vj = v + static_cast<std::size_t>(j) * m;
        for (int i = j; i < m; ++i) vj[i] = col[i];
        vj[j] -= alpha;
        for (int i = j; i < m; ++i) v_norm2[j] += vj[i] * vj[i];
        for (int c = j; c < k; ++c) reflect(m, j, vj, v_norm2[j], a + static_cast<std::size_t>(c) * m);
    }
    for (int i = 0; i < k; ++i)
        for (int c = 0; c < k; ++c) r[i * k + c] = i < t && c >= i ? a[static_cast<std::size_t>(c) * m + i] : 0.0;
    std::fill(q, q + static_cast<std::size_t>(m) * k, 0.0);
    for (int c = 0; c < t; ++c) {
        double* qc = q + static_cast<std::size_t>(c) * m;
        qc[c] = 1;
        for (int j = t - 1; j >= 0; --j)
            if (v_norm2[j] > 0) reflect(m, j, v + static_cast<std::size_t>(j) * m, v_norm2[j], qc);
    }
    for (int j = 0; j < t; ++j)  // make r's diagonal non-negative (q = 1/sqrt(m) for a constant)
        if (r[j * k + j] < 0) {
            for (int c = j; c < k; ++c) r[j * k + c] = -r[j * k + c];
            for (int i = 0; i < m; ++i) q[static_cast<std::size_t>(j) * m + i] = -q[static_cast<std::size_t>(j) * m + i];
        }
}

}  // namespace spk::detail
