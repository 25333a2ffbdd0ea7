#pragma once
// The inner loops of the cpu FusedMM kernels: short loops over one head's features that the
// compiler vectorizes (omp simd), reading storage type V and accumulating in Acc; the f32 and
// f64 dot products and the f32 weighted sums of rows in AVX2 intrinsics.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "cpu/sddmm_rows.hpp"
#include "cpu/value_load.hpp"
#include "spk/fusedmm.hpp"
#include "spk/matrix.hpp"

namespace spk::detail::cpu::fused {

// Rows of Y, Z (forward) or X, dE (backward) are scattered: the loops fetch the rows of the
// entry this many non-zeros ahead, enough to cover DRAM latency at a few ns per entry.
constexpr index_t kPrefetchDistance = 8;
// Below this many multiply-adds a parallel region costs more than it gives.
constexpr double kSerialWork = 32768;

inline int threads_for(double work, int threads) { return work < kSerialWork ? 1 : std::max(1, threads); }

template <class V>
inline void prefetch_row(const V* p, index_t count) noexcept {
    const char* c = reinterpret_cast<const char*>(p);
    for (index_t b = 0; b < count * static_cast<index_t>(sizeof(V)); b += 64) __builtin_prefetch(c + b);
}

template <class Acc, class V>
inline Acc dot(const V* x, const V* y, index_t n) noexcept {
    // f32 and f64 rows: the AVX2 dot of the SDDMM kernels (the simd loop below left the
    // attention forward 1.2x slower at k = 32).
    if constexpr (std::is_same_v<V, Acc> && (std::is_same_v<V, float> || std::is_same_v<V, double>)) return cpu::dot(x, y, n);
    Acc s = 0;
#pragma omp simd reduction(+ : s)
    for (index_t k = 0; k < n; ++k) s += load_as<Acc>(x[k]) * load_as<Acc>(y[k]);
    return s;
}

// -|x - y|^2
template <class Acc, class V>
inline Acc neg_sqdist(const V* x, const V* y, index_t n) noexcept {
    Acc s = 0;
#pragma omp simd reduction(+ : s)
    for (index_t k = 0; k < n; ++k) {
        const Acc diff = load_as<Acc>(x[k]) - load_as<Acc>(y[k]);
        s += diff * diff;
    }
    return -s;
}

// The score s_ij of head h (d features a head): xi, yj are rows of X and Y (unused for `value`);
// A(i, j) is a_values[p], read only for `value` (a_values may be null otherwise).
template <class Acc, class V>
inline Acc score(Score kind, const V* xi, const V* yj, const V* a_values, index_t p, index_t h, index_t d) noexcept {
    switch (kind) {
        case Score::dot:
            return dot<Acc>(xi + h * d, yj + h * d, d);
        case Score::add:
            return load_as<Acc>(xi[h]) + load_as<Acc>(yj[h]);
        case Score::neg_sqdist:
            return neg_sqdist<Acc>(xi + h * d, yj + h * d, d);
        case Score::value:
            return load_as<Acc>(a_values[p]);
    }
    return Acc(0);
}

// Σ_k [arg[k] == j] x[k] y[k]: the part of a dot product over the features that column j won.
template <class Acc, class V, class I>
inline Acc masked_dot(const V* x, const V* y, const I* arg, I j, index_t n) noexcept {
    Acc s = 0;
#pragma omp simd reduction(+ : s)
    for (index_t k = 0; k < n; ++k) s += arg[k] == j ? load_as<Acc>(x[k]) * load_as<Acc>(y[k]) : Acc(0);
    return s;
}

// acc += w x
template <class Acc, class V>
inline void axpy(Acc w, const V* x, Acc* acc, index_t n) noexcept {
#pragma omp simd
    for (index_t k = 0; k < n; ++k) acc[k] += w * load_as<Acc>(x[k]);
}

// acc += [arg == j] w x
template <class Acc, class V, class I>
inline void masked_axpy(Acc w, const V* x, const I* arg, I j, Acc* acc, index_t n) noexcept {
#pragma omp simd
    for (index_t k = 0; k < n; ++k) acc[k] += arg[k] == j ? w * load_as<Acc>(x[k]) : Acc(0);
}

// acc += w (x - y): the distance score's gradient (w = -2 ds for X, 2 ds for Y).
template <class Acc, class V>
inline void axpy_difference(Acc w, const V* x, const V* y, Acc* acc, index_t n) noexcept {
#pragma omp simd
    for (index_t k = 0; k < n; ++k) acc[k] += w * (load_as<Acc>(x[k]) - load_as<Acc>(y[k]));
}

// acc[k] = Σ_q w[q * w_stride] z_{col[q]}[k] for k < n (z_j: z + col[q] * ldz; f32 rows), R
// vectors of 8 in registers while a row's entries stream past: kept in memory, each entry's adds
// waited on the previous entry's stores (the CPU forward's weighted sum of Z rows).
template <int R, class I>
inline void weighted_sum_tile(const float* z, index_t ldz, const I* col, const float* w, index_t w_stride, index_t count, float* acc) {
    __m256 t[R];
    for (int r = 0; r < R; ++r) t[r] = _mm256_setzero_ps();
    for (index_t q = 0; q < count; ++q) {
        const float* zr = z + static_cast<index_t>(col[q]) * ldz;
        const __m256 wq = _mm256_set1_ps(w[q * w_stride]);
        for (int r = 0; r < R; ++r) t[r] = _mm256_fmadd_ps(wq, _mm256_loadu_ps(zr + 8 * r), t[r]);
    }
    for (int r = 0; r < R; ++r) _mm256_storeu_ps(acc + 8 * r, t[r]);
}

template <class I>
inline void weighted_sum(const float* z, index_t ldz, const I* col, const float* w, index_t w_stride, index_t count, float* acc, index_t n) {
    index_t k = 0;
    for (; k + 64 <= n; k += 64) weighted_sum_tile<8>(z + k, ldz, col, w, w_stride, count, acc + k);
    if (k + 32 <= n) {
        weighted_sum_tile<4>(z + k, ldz, col, w, w_stride, count, acc + k);
        k += 32;
    }
    for (; k + 8 <= n; k += 8) weighted_sum_tile<1>(z + k, ldz, col, w, w_stride, count, acc + k);
    for (; k < n; ++k) {
        float s = 0;
        for (index_t q = 0; q < count; ++q) s = std::fma(w[q * w_stride], z[static_cast<index_t>(col[q]) * ldz + k], s);
        acc[k] = s;
    }
}

template <class Acc>
inline void scale(Acc* acc, Acc c, index_t n) noexcept {
#pragma omp simd
    for (index_t k = 0; k < n; ++k) acc[k] *= c;
}

// best = w z, arg = j: the first entry of a max aggregation.
template <class Acc, class V, class I>
inline void max_init(Acc w, const V* z, Acc* best, I* arg, I j, index_t n) noexcept {
#pragma omp simd
    for (index_t k = 0; k < n; ++k) {
        best[k] = w * load_as<Acc>(z[k]);
        arg[k] = j;
    }
}

// best = max(best, w z) element-wise, remembering the winner; the first maximum wins ties and
// a NaN takes over and stays (as in the reference).
template <class Acc, class V, class I>
inline void max_update(Acc w, const V* z, Acc* best, I* arg, I j, index_t n) noexcept {
#pragma omp simd
    for (index_t k = 0; k < n; ++k) {
        const Acc v = w * load_as<Acc>(z[k]);
        const bool take = v > best[k] || (v != v && best[k] == best[k]);
        best[k] = take ? v : best[k];
        arg[k] = take ? j : arg[k];
    }
}

template <class V, class Acc>
inline void store_row(const Acc* acc, Acc factor, V* out, index_t n) noexcept {
#pragma omp simd
    for (index_t k = 0; k < n; ++k) out[k] = store_as<V>(acc[k] * factor);
}

}  // namespace spk::detail::cpu::fused
