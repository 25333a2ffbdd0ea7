// Random rows with uniformly drawn columns: uniform row lengths (generate_uniform) and
// power-law row lengths (generate_powerlaw). Each row draws from its own counter-based stream.
#include <cmath>
#include <string>

#include "core/instantiate.hpp"
#include "generate/counter_rng.hpp"
#include "generate/csr_builder.hpp"
#include "generate/distinct_sample.hpp"
#include "spk/error.hpp"
#include "spk/generate.hpp"

namespace spk {

namespace {

using detail::CounterRng;

void check_rows_cols_per_row(const char* fn, index_t rows, index_t cols, double per_row) {
    if (rows < 0) invalid_argument(std::string(fn) + ": rows must be >= 0, got " + std::to_string(rows));
    if (cols < 0) invalid_argument(std::string(fn) + ": cols must be >= 0, got " + std::to_string(cols));
    if (!std::isfinite(per_row) || per_row < 0)
        invalid_argument(std::string(fn) + ": per_row must be a finite number >= 0, got " + std::to_string(per_row));
    if (per_row > static_cast<double>(cols))
        invalid_argument(std::string(fn) + ": per_row = " + std::to_string(per_row) + " exceeds cols = " + std::to_string(cols));
}

// floor(x) or floor(x) + 1 with probability frac(x): an integer whose mean is exactly x.
index_t round_randomly(double x, CounterRng& rng) {
    const double base = std::floor(x);
    return static_cast<index_t>(base) + (rng.unit() <= x - base ? 1 : 0);
}

// E[min(X, cap)] for X = x_min * U^(-1/s), a Pareto variable with P(X > x) = (x_min / x)^s.
double capped_pareto_mean(double x_min, double s, double cap) {
    if (x_min >= cap) return cap;
    if (x_min <= 0) return 0;
    // x_min + integral_{x_min}^{cap} (x_min/x)^s dx, written with expm1 to stay exact near s = 1.
    const double log_ratio = std::log(cap / x_min);
    const double tail = s == 1.0 ? log_ratio : std::expm1((1.0 - s) * log_ratio) / (1.0 - s);
    return x_min * (1.0 + tail);
}

// The Pareto scale whose capped mean is `mean` (the capped mean grows with the scale).
double pareto_scale_for_mean(double mean, double s, double cap) {
    if (mean <= 0) return 0;
    double lo = 0, hi = cap;
    for (int it = 0; it < 200 && lo < hi; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi) break;
        (capped_pareto_mean(mid, s, cap) < mean ? lo : hi) = mid;
    }
    return hi;
}

// Columns sample_sorted_distinct draws, values entry_value(seed, i, j).
template <class V, class I>
void fill_random_row(CounterRng& rng, std::uint64_t seed, index_t i, index_t len, index_t cols, I* c, V* v) {
    detail::sample_sorted_distinct(rng, len, cols, c);
    for (index_t k = 0; k < len; ++k) v[k] = value_cast<V>(detail::entry_value(seed, i, c[k]));
}

}  // namespace

template <class V, class I>
Csr<V, I> generate_uniform(index_t rows, index_t cols, double per_row, std::uint64_t seed) {
    check_rows_cols_per_row("generate_uniform", rows, cols, per_row);
    auto length = [&](CounterRng& rng) { return round_randomly(per_row, rng); };
    return detail::build_csr_by_rows<V, I>(
        "generate_uniform", rows, cols,
        [&](index_t i) {
            CounterRng rng(seed, detail::RngDomain::uniform, static_cast<std::uint64_t>(i));
            return length(rng);
        },
        [&](index_t i, I* c, V* v) {
            CounterRng rng(seed, detail::RngDomain::uniform, static_cast<std::uint64_t>(i));
            fill_random_row(rng, seed, i, length(rng), cols, c, v);
        });
}

template <class V, class I>
Csr<V, I> generate_powerlaw(index_t rows, index_t cols, double per_row, double exponent, std::uint64_t seed) {
    check_rows_cols_per_row("generate_powerlaw", rows, cols, per_row);
    if (!std::isfinite(exponent) || exponent <= 1.0)
        invalid_argument("generate_powerlaw: exponent must be a finite number > 1, got " + std::to_string(exponent));
    const double shape = exponent - 1.0;  // tail exponent of P(len > x)
    const double cap = static_cast<double>(cols);
    const double x_min = pareto_scale_for_mean(per_row, shape, cap);
    auto length = [&](CounterRng& rng) {
        const double x = x_min * std::pow(rng.unit(), -1.0 / shape);
        return x >= cap ? cols : round_randomly(x, rng);  // below cap, so at most cols
    };
    return detail::build_csr_by_rows<V, I, /*uneven_rows=*/true>(
        "generate_powerlaw", rows, cols,
        [&](index_t i) {
            CounterRng rng(seed, detail::RngDomain::powerlaw, static_cast<std::uint64_t>(i));
            return length(rng);
        },
        [&](index_t i, I* c, V* v) {
            CounterRng rng(seed, detail::RngDomain::powerlaw, static_cast<std::uint64_t>(i));
            fill_random_row(rng, seed, i, length(rng), cols, c, v);
        });
}

#define SPK_INSTANTIATE(V, I)                                                           \
    template Csr<V, I> generate_uniform<V, I>(index_t, index_t, double, std::uint64_t); \
    template Csr<V, I> generate_powerlaw<V, I>(index_t, index_t, double, double, std::uint64_t);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
