#pragma once
// Dense-row access for the cpu tensor kernels, whose inner loops run over R consecutive
// elements so that the compiler vectorizes them.
#include <vector>

#include "spk/matrix.hpp"

namespace spk::detail {

// The transpose of a view, without copying: swap the shape and flip the layout.
template <class T>
DenseView<T> transposed(DenseView<T> m) {
    return {m.data, m.cols, m.rows, m.ld, m.layout == Layout::row_major ? Layout::col_major : Layout::row_major, m.space};
}

// Rows of a matrix as contiguous vectors: a row-major view is used in place; a column-major one
// is copied once per call into a row-major buffer (O(rows x R), small next to the O(nnz x R)
// kernel that then reads it many times).
template <class V>
class ContiguousRows {
public:
    ContiguousRows(DenseView<const V> m, int threads) : data_(m.data), ld_(m.ld) {
        if (m.layout == Layout::row_major) return;
        packed_.resize(static_cast<std::size_t>(m.rows * m.cols));
        V* out = packed_.data();
        const index_t rows = m.rows, cols = m.cols;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (index_t i = 0; i < rows; ++i)
            for (index_t j = 0; j < cols; ++j) out[i * cols + j] = m(i, j);
        data_ = packed_.data();
        ld_ = cols;
    }
    const V* row(index_t i) const { return data_ + i * ld_; }

private:
    const V* data_;
    index_t ld_;
    std::vector<V> packed_;
};

template <class V>
void store_row(DenseView<V> out, index_t i, const V* values) {
    const index_t cols = out.cols;
    if (out.layout == Layout::row_major) {
        V* o = out.data + i * out.ld;
#pragma omp simd
        for (index_t r = 0; r < cols; ++r) o[r] = values[r];
    } else {
        for (index_t r = 0; r < cols; ++r) out.data[r * out.ld + i] = values[r];
    }
}

template <class V>
void zero_rows(DenseView<V> out, index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i)
        for (index_t r = 0; r < out.cols; ++r) out(i, r) = V(0);
}

}  // namespace spk::detail
