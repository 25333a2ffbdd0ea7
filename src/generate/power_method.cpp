// lambda_max(D⁻¹A) by the power method, deterministic on any thread count.
#include <cmath>

#include "core/instantiate.hpp"
#include "generate/counter_rng.hpp"
#include "generate/diagonal.hpp"
#include "generate/smoothed_aggregation.hpp"

namespace spk::detail {

namespace {

// xᵀy summed per fixed block of entries, then over blocks in order: the same rounding
// whatever the number of threads.
double blocked_dot(const std::vector<double>& x, const std::vector<double>& y) {
    constexpr index_t block = 4096;
    const index_t n = static_cast<index_t>(x.size());
    const index_t blocks = (n + block - 1) / block;
    std::vector<double> partial(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static)
    for (index_t b = 0; b < blocks; ++b) {
        double s = 0;
        for (index_t i = b * block; i < std::min(n, (b + 1) * block); ++i) s += x[i] * y[i];
        partial[b] = s;
    }
    double s = 0;
    for (double p : partial) s += p;
    return s;
}

void scale(std::vector<double>& x, double f) {
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < static_cast<index_t>(x.size()); ++i) x[i] *= f;
}

}  // namespace

template <class V, class I>
double estimate_lambda_max(CsrView<const V, I> a, int iterations) {
    const std::vector<double> inv_diag = inverse_diagonal(a, "estimate_lambda_max");
    const index_t n = a.rows;
    if (n == 0) return 0.0;
    std::vector<double> x(static_cast<std::size_t>(n)), z(static_cast<std::size_t>(n));
    // A fixed pseudo-random start: the constant vector would be an eigenvector (with eigenvalue
    // 0) of the singular grid problems.
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) x[i] = 2 * CounterRng(0, RngDomain::power_iteration, static_cast<std::uint64_t>(i)).unit() - 1;
    scale(x, 1 / std::sqrt(blocked_dot(x, x)));
    double lambda = 0;
    for (int it = 0; it < iterations; ++it) {
#pragma omp parallel for schedule(static)
        for (index_t i = 0; i < n; ++i) {
            double s = 0;
            for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) s += value_cast<double>(a.values[p]) * x[a.col_idx[p]];
            z[i] = inv_diag[i] * s;
        }
        lambda = blocked_dot(x, z);  // Rayleigh quotient: x has unit norm
        const double norm = std::sqrt(blocked_dot(z, z));
        if (norm == 0) break;
        x.swap(z);
        scale(x, 1 / norm);
    }
    return lambda;
}

#define SPK_INSTANTIATE(V, I) template double estimate_lambda_max<V, I>(CsrView<const V, I>, int);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail
