#pragma once
// Row-level building blocks of the cpu SDDMM kernels: dense rows read as contiguous Acc arrays,
// dot products and axpy over a head's d features, written so that GCC vectorises them (AVX2).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "cpu/prefetch.hpp"
#include "cpu/value_load.hpp"
#include "spk/matrix.hpp"

namespace spk::detail::cpu {

// Row r of a dense view as contiguous Acc values: the view's own memory when it is row-major
// and already of type Acc, otherwise converted into a scratch buffer owned by the reader (one
// per thread: no allocation per row).
template <class V, class Acc>
class RowReader {
public:
    explicit RowReader(DenseView<const V> view) : view_(view) {
        if (!(std::is_same_v<V, Acc> && view.layout == Layout::row_major)) scratch_.resize(static_cast<std::size_t>(view.cols));
    }
    const Acc* operator()(index_t r) {
        if (view_.cols == 0) return nullptr;
        if constexpr (std::is_same_v<V, Acc>)
            if (view_.layout == Layout::row_major) return view_.data + r * view_.ld;
        if (view_.layout == Layout::row_major) {
            load_row(view_.data + r * view_.ld, scratch_.data(), static_cast<long>(view_.cols));
        } else {
            for (index_t k = 0; k < view_.cols; ++k) scratch_[static_cast<std::size_t>(k)] = load_as<Acc>(view_.data[k * view_.ld + r]);
        }
        return scratch_.data();
    }

    // Starts loading row r's memory (row-major views; the first 512 bytes) ahead of its use, for
    // rows visited in a scattered order (rows_worth_prefetching in cpu/prefetch.hpp says when).
    void prefetch(index_t r) const {
        if (view_.layout != Layout::row_major) return;
        const index_t bytes = std::min<index_t>(view_.cols * index_t(sizeof(V)), 512);
        prefetch_bytes(view_.data + r * view_.ld, static_cast<std::size_t>(bytes));
    }

private:
    DenseView<const V> view_;
    std::vector<Acc> scratch_;
};

// sum_k x[k] * y[k]. Written with AVX2 intrinsics: GCC does not vectorise this reduction by
// itself (spk does not let the compiler reassociate), and a scalar dot costs 8x.
inline float dot(const float* x, const float* y, index_t d) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    index_t k = 0;
    for (; k + 16 <= d; k += 16) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(y + k), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k + 8), _mm256_loadu_ps(y + k + 8), s1);
    }
    if (k + 8 <= d) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(y + k), s0);
        k += 8;
    }
    s0 = _mm256_add_ps(s0, s1);
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_movehdup_ps(h));
    float s = _mm_cvtss_f32(h);
    for (; k < d; ++k) s = std::fma(x[k], y[k], s);
    return s;
}

inline double dot(const double* x, const double* y, index_t d) {
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
    index_t k = 0;
    for (; k + 8 <= d; k += 8) {
        s0 = _mm256_fmadd_pd(_mm256_loadu_pd(x + k), _mm256_loadu_pd(y + k), s0);
        s1 = _mm256_fmadd_pd(_mm256_loadu_pd(x + k + 4), _mm256_loadu_pd(y + k + 4), s1);
    }
    if (k + 4 <= d) {
        s0 = _mm256_fmadd_pd(_mm256_loadu_pd(x + k), _mm256_loadu_pd(y + k), s0);
        k += 4;
    }
    s0 = _mm256_add_pd(s0, s1);
    __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s0), _mm256_extractf128_pd(s0, 1));
    double s = _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
    for (; k < d; ++k) s = std::fma(x[k], y[k], s);
    return s;
}

// acc[k] += w * y[k], k < d.
template <class Acc>
inline void axpy(Acc* acc, Acc w, const Acc* y, index_t d) {
    for (index_t k = 0; k < d; ++k) acc[k] = std::fma(w, y[k], acc[k]);
}

// Writes acc[0, cols) to row r of a dense view of any layout and value type.
template <class V, class Acc>
inline void store_row(DenseView<V> view, index_t r, const Acc* acc) {
    if (view.layout == Layout::row_major)
        for (index_t k = 0; k < view.cols; ++k) view.data[r * view.ld + k] = store_as<V>(acc[k]);
    else
        for (index_t k = 0; k < view.cols; ++k) view.data[k * view.ld + r] = store_as<V>(acc[k]);
}

}  // namespace spk::detail::cpu
