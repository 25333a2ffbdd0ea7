#pragma once
// Sparse and dense matrices: non-owning views (what kernels take) and owning containers
// (what readers and generators return). Index type I is int32_t or int64_t and is used for
// row_ptr too, so a matrix with more than 2^31 non-zeros needs I = int64_t.
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "spk/array.hpp"
#include "spk/types.hpp"

namespace spk {

using index_t = std::int64_t;  // shapes and counts in the API

enum class Layout { row_major, col_major };

template <class T>
struct DenseView {
    T* data = nullptr;
    index_t rows = 0, cols = 0;
    index_t ld = 0;  // distance between consecutive rows (row-major) or columns (col-major)
    Layout layout = Layout::row_major;
    MemorySpace space = MemorySpace::host();

    T& operator()(index_t i, index_t j) const noexcept { return layout == Layout::row_major ? data[i * ld + j] : data[j * ld + i]; }
    bool empty() const noexcept { return rows == 0 || cols == 0; }
    operator DenseView<const T>() const noexcept requires(!std::is_const_v<T>) { return {data, rows, cols, ld, layout, space}; }
};

template <class V>
class Dense {
public:
    Dense() = default;
    Dense(const Executor& exec, index_t rows, index_t cols, Layout layout = Layout::row_major)
        : data_(exec, static_cast<std::size_t>(rows * cols)), rows_(rows), cols_(cols), layout_(layout) {}
    // From host values stored in the given layout with a tight leading dimension.
    Dense(const Executor& exec, index_t rows, index_t cols, const std::vector<V>& host, Layout layout = Layout::row_major);

    index_t rows() const { return rows_; }
    index_t cols() const { return cols_; }
    Layout layout() const { return layout_; }
    index_t ld() const { return layout_ == Layout::row_major ? cols_ : rows_; }
    Array<V>& values() { return data_; }
    const Array<V>& values() const { return data_; }
    DenseView<V> view() { return {data_.data(), rows_, cols_, ld(), layout_, data_.space()}; }
    DenseView<const V> view() const { return {data_.data(), rows_, cols_, ld(), layout_, data_.space()}; }
    DenseView<const V> cview() const { return view(); }
    Dense to(const Executor& exec) const;

private:
    Array<V> data_;
    index_t rows_ = 0, cols_ = 0;
    Layout layout_ = Layout::row_major;
};

// API convention: free functions deduce V and I from the sparse argument (a CsrView<const V, I>)
// and take dense arguments as std::type_identity_t<DenseView<...>>, so a DenseView<V> converts
// to DenseView<const V> without a deduction conflict.

// CSR. values may be null for a pattern-only matrix where an operation allows it.
template <class V, class I>
struct CsrView {
    index_t rows = 0, cols = 0, nnz = 0;
    const I* row_ptr = nullptr;  // rows + 1
    const I* col_idx = nullptr;  // nnz
    V* values = nullptr;         // nnz
    MemorySpace space = MemorySpace::host();
    bool sorted = true;  // column indices strictly increasing within each row

    operator CsrView<const V, I>() const noexcept requires(!std::is_const_v<V>) {
        return {rows, cols, nnz, row_ptr, col_idx, values, space, sorted};
    }
};

template <class V, class I>
class Csr {
public:
    Csr() = default;
    // Allocates rows+1 offsets and nnz entries in exec's memory space (contents unset).
    Csr(const Executor& exec, index_t rows, index_t cols, index_t nnz);
    // From host arrays (copied into exec's memory space).
    Csr(const Executor& exec, index_t rows, index_t cols, const std::vector<I>& row_ptr, const std::vector<I>& col_idx,
        const std::vector<V>& values, bool sorted = true);

    index_t rows() const { return rows_; }
    index_t cols() const { return cols_; }
    index_t nnz() const { return static_cast<index_t>(col_idx_.size()); }
    bool sorted() const { return sorted_; }
    void set_sorted(bool s) { sorted_ = s; }
    Array<I>& row_ptr() { return row_ptr_; }
    Array<I>& col_idx() { return col_idx_; }
    Array<V>& values() { return values_; }
    const Array<I>& row_ptr() const { return row_ptr_; }
    const Array<I>& col_idx() const { return col_idx_; }
    const Array<V>& values() const { return values_; }
    // Kernels take read-only views of their sparse inputs; mutable_view() is for writing values.
    CsrView<const V, I> view() const {
        return {rows_, cols_, nnz(), row_ptr_.data(), col_idx_.data(), values_.data(), row_ptr_.space(), sorted_};
    }
    CsrView<V, I> mutable_view() {
        return {rows_, cols_, nnz(), row_ptr_.data(), col_idx_.data(), values_.data(), row_ptr_.space(), sorted_};
    }
    Csr to(const Executor& exec) const;

private:
    index_t rows_ = 0, cols_ = 0;
    Array<I> row_ptr_, col_idx_;
    Array<V> values_;
    bool sorted_ = true;
};

// COO triplets (host). Entries may be in any order and may repeat.
template <class V, class I>
struct Coo {
    index_t rows = 0, cols = 0;
    std::vector<I> row_idx, col_idx;
    std::vector<V> values;
    index_t nnz() const { return static_cast<index_t>(row_idx.size()); }
};

enum class Duplicates { sum, reject };

// COO to sorted CSR; duplicates are summed or rejected (InvalidArgument naming the entry).
template <class V, class I>
Csr<V, I> coo_to_csr(const Coo<V, I>& coo, Duplicates dup = Duplicates::sum);
template <class V, class I>
Coo<V, I> csr_to_coo(CsrView<const V, I> a);
// Aᵀ as CSR (equivalently A in CSC: row_ptr = column pointers). Host views; output sorted.
template <class V, class I>
Csr<V, I> transpose(CsrView<const V, I> a);
// Sorts each row's columns (and values), summing duplicates.
template <class V, class I>
Csr<V, I> sort_rows(CsrView<const V, I> a);
// Throws InvalidArgument naming `name` and the first bad entry: row_ptr[0] != 0, decreasing
// row_ptr, row_ptr[rows] != nnz, column out of range, unsorted or repeated column (when sorted).
template <class V, class I>
void validate(CsrView<const V, I> a, std::string_view name = "A");

// Value-type conversion (host), e.g. to run an f64 matrix as f16.
template <class To, class From, class I>
Csr<To, I> convert_values(CsrView<const From, I> a);

}  // namespace spk
