// Constructors and copies of the owning matrix types.
#include "spk/matrix.hpp"

#include "core/instantiate.hpp"
#include "spk/error.hpp"

namespace spk {

template <class V>
Dense<V>::Dense(const Executor& exec, index_t rows, index_t cols, const std::vector<V>& host, Layout layout)
    : rows_(rows), cols_(cols), layout_(layout) {
    if (rows < 0 || cols < 0) invalid_argument("Dense: negative shape");
    if (static_cast<index_t>(host.size()) != rows * cols)
        invalid_argument("Dense: " + std::to_string(host.size()) + " values given for a " + std::to_string(rows) + " x " +
                         std::to_string(cols) + " matrix");
    data_ = Array<V>(exec, host);
}

template <class V>
Dense<V> Dense<V>::to(const Executor& exec) const {
    Dense out;
    out.data_ = data_.to(exec);
    out.rows_ = rows_;
    out.cols_ = cols_;
    out.layout_ = layout_;
    return out;
}

template <class V, class I>
Csr<V, I>::Csr(const Executor& exec, index_t rows, index_t cols, index_t nnz)
    : rows_(rows),
      cols_(cols),
      row_ptr_(exec, static_cast<std::size_t>(rows + 1)),
      col_idx_(exec, static_cast<std::size_t>(nnz)),
      values_(exec, static_cast<std::size_t>(nnz)) {}

template <class V, class I>
Csr<V, I>::Csr(const Executor& exec, index_t rows, index_t cols, const std::vector<I>& row_ptr, const std::vector<I>& col_idx,
               const std::vector<V>& values, bool sorted)
    : rows_(rows), cols_(cols), sorted_(sorted) {
    if (rows < 0 || cols < 0) invalid_argument("Csr: negative shape");
    if (static_cast<index_t>(row_ptr.size()) != rows + 1)
        invalid_argument("Csr: row_ptr has " + std::to_string(row_ptr.size()) +
                         " entries, expected rows + 1 = " + std::to_string(rows + 1));
    if (!values.empty() && values.size() != col_idx.size())
        invalid_argument("Csr: " + std::to_string(values.size()) + " values for " + std::to_string(col_idx.size()) + " column indices");
    row_ptr_ = Array<I>(exec, row_ptr);
    col_idx_ = Array<I>(exec, col_idx);
    values_ = Array<V>(exec, values);
}

template <class V, class I>
Csr<V, I> Csr<V, I>::to(const Executor& exec) const {
    Csr out;
    out.rows_ = rows_;
    out.cols_ = cols_;
    out.row_ptr_ = row_ptr_.to(exec);
    out.col_idx_ = col_idx_.to(exec);
    out.values_ = values_.to(exec);
    out.sorted_ = sorted_;
    return out;
}

template class Dense<float>;
template class Dense<double>;
template class Dense<f16>;
template class Dense<bf16>;
template class Dense<std::int32_t>;
template class Dense<std::int64_t>;
#define SPK_INSTANTIATE(V, I) template class Csr<V, I>;
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
