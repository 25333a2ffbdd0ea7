#pragma once
// Row-level building blocks of the cpu SDDMM kernels: dense rows read as contiguous Acc arrays,
// dot products and axpy over a head's d features, written so that GCC vectorises them (AVX2).
#include <cmath>
#include <type_traits>
#include <vector>

#include "cpu/value_load.hpp"
#include "spk/matrix.hpp"

namespace spk::detail::cpu {

// Row r of a dense view as contiguous Acc values: the view's own memory when it is row-major
// and already of type Acc, otherwise converted into a scratch buffer owned by the reader (one
// per thread: no allocation per row).
template <class V, class Acc> class RowReader {
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

private:
    DenseView<const V> view_;
    std::vector<Acc> scratch_;
};

// sum_k x[k] * y[k] with independent partial sums (a plain reduction would not vectorise without
// reassociation, which spk does not allow the compiler).
template <class Acc> inline Acc dot(const Acc* x, const Acc* y, index_t d) {
    constexpr int lanes = 64 / int(sizeof(Acc)); // two AVX2 registers of partial sums
    Acc part[lanes] = {};
    index_t k = 0;
    for (; k + lanes <= d; k += lanes)
        for (int l = 0; l < lanes; ++l) part[l] = std::fma(x[k + l], y[k + l], part[l]);
    Acc s = 0;
    for (int l = 0; l < lanes; ++l) s += part[l];
    for (; k < d; ++k) s = std::fma(x[k], y[k], s);
    return s;
}

// acc[k] += w * y[k], k < d.
template <class Acc> inline void axpy(Acc* acc, Acc w, const Acc* y, index_t d) {
    for (index_t k = 0; k < d; ++k) acc[k] = std::fma(w, y[k], acc[k]);
}

// Writes acc[0, cols) to row r of a dense view of any layout and value type.
template <class V, class Acc> inline void store_row(DenseView<V> view, index_t r, const Acc* acc) {
    if (view.layout == Layout::row_major)
        for (index_t k = 0; k < view.cols; ++k) view.data[r * view.ld + k] = store_as<V>(acc[k]);
    else
        for (index_t k = 0; k < view.cols; ++k) view.data[k * view.ld + r] = store_as<V>(acc[k]);
}

} // namespace spk::detail::cpu
