// Format conversions and validation on host CSR/COO.
#include <algorithm>
#include <numeric>

#include "core/instantiate.hpp"
#include "spk/error.hpp"
#include "spk/matrix.hpp"

namespace spk {

namespace {

template <class V, class I>
void require_host(CsrView<const V, I> a, const char* fn) {
    if (!a.space.is_host()) invalid_argument(std::string(fn) + ": the matrix must be in host memory, it is in " + to_string(a.space));
}

// Sort each row's (column, value) pairs; if sum_duplicates, merge equal columns.
// Returns the new row_ptr; col/val are compacted in place.
template <class V, class I>
std::vector<I> sort_and_merge(index_t rows, const std::vector<I>& row_ptr, std::vector<I>& col, std::vector<V>& val, bool has_values) {
    std::vector<I> out_ptr(static_cast<std::size_t>(rows + 1), 0);
    std::vector<std::pair<I, V>> buf;
    index_t w = 0;
    for (index_t i = 0; i < rows; ++i) {
        const index_t b = row_ptr[i], e = row_ptr[i + 1];
        buf.clear();
        for (index_t p = b; p < e; ++p) buf.emplace_back(col[p], has_values ? val[p] : V{});
        std::stable_sort(buf.begin(), buf.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (std::size_t k = 0; k < buf.size(); ++k) {  // out_ptr[i] is where row i starts in the output
            if (w > static_cast<index_t>(out_ptr[i]) && col[w - 1] == buf[k].first) {
                if (has_values) val[w - 1] = value_cast<V>(value_cast<double>(val[w - 1]) + value_cast<double>(buf[k].second));
                continue;
            }
            col[w] = buf[k].first;
            if (has_values) val[w] = buf[k].second;
            ++w;
        }
        out_ptr[i + 1] = static_cast<I>(w);
    }
    col.resize(static_cast<std::size_t>(w));
    if (has_values) val.resize(static_cast<std::size_t>(w));
    return out_ptr;
}

}  // namespace

template <class V, class I>
Csr<V, I> coo_to_csr(const Coo<V, I>& coo, Duplicates dup) {
    const index_t nnz = coo.nnz();
    if (coo.rows < 0 || coo.cols < 0) invalid_argument("coo_to_csr: negative shape");
    if (static_cast<index_t>(coo.col_idx.size()) != nnz) invalid_argument("coo_to_csr: row_idx and col_idx differ in length");
    const bool has_values = !coo.values.empty();
    if (has_values && static_cast<index_t>(coo.values.size()) != nnz) invalid_argument("coo_to_csr: values and indices differ in length");
    std::vector<I> row_ptr(static_cast<std::size_t>(coo.rows + 1), 0);
    for (index_t p = 0; p < nnz; ++p) {
        const index_t r = coo.row_idx[p], c = coo.col_idx[p];
        if (r < 0 || r >= coo.rows)
            invalid_argument("coo_to_csr: entry " + std::to_string(p) + " has row " + std::to_string(r) + " outside [0, " +
                             std::to_string(coo.rows) + ")");
        if (c < 0 || c >= coo.cols)
            invalid_argument("coo_to_csr: entry " + std::to_string(p) + " has column " + std::to_string(c) + " outside [0, " +
                             std::to_string(coo.cols) + ")");
        ++row_ptr[r + 1];
    }
    std::partial_sum(row_ptr.begin(), row_ptr.end(), row_ptr.begin());
    std::vector<I> col(static_cast<std::size_t>(nnz));
    std::vector<V> val(has_values ? static_cast<std::size_t>(nnz) : 0);
    std::vector<I> next(row_ptr.begin(), row_ptr.end() - 1);
    for (index_t p = 0; p < nnz; ++p) {
        const I q = next[coo.row_idx[p]]++;
        col[q] = coo.col_idx[p];
        if (has_values) val[q] = coo.values[p];
    }
    const std::size_t before = col.size();
    std::vector<I> ptr = sort_and_merge(coo.rows, row_ptr, col, val, has_values);
    if (dup == Duplicates::reject && col.size() != before) {
        // Find the first repeated (row, col) to name it.
        std::vector<std::pair<I, I>> rc(static_cast<std::size_t>(nnz));
        for (index_t p = 0; p < nnz; ++p) rc[p] = {coo.row_idx[p], coo.col_idx[p]};
        std::vector<index_t> order(static_cast<std::size_t>(nnz));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return rc[x] < rc[y]; });
        for (index_t k = 1; k < nnz; ++k)
            if (rc[order[k]] == rc[order[k - 1]])
                invalid_argument("coo_to_csr: entry " + std::to_string(order[k]) + " repeats (row " + std::to_string(rc[order[k]].first) +
                                 ", column " + std::to_string(rc[order[k]].second) + ") of entry " + std::to_string(order[k - 1]));
    }
    if (!has_values) val.assign(col.size(), value_cast<V>(1.0f));
    return Csr<V, I>(Executor::cpu(), coo.rows, coo.cols, ptr, col, val, true);
}

template <class V, class I>
Coo<V, I> csr_to_coo(CsrView<const V, I> a) {
    require_host(a, "csr_to_coo");
    Coo<V, I> coo;
    coo.rows = a.rows;
    coo.cols = a.cols;
    coo.row_idx.resize(static_cast<std::size_t>(a.nnz));
    coo.col_idx.assign(a.col_idx, a.col_idx + a.nnz);
    if (a.values) coo.values.assign(a.values, a.values + a.nnz);
    for (index_t i = 0; i < a.rows; ++i)
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) coo.row_idx[p] = static_cast<I>(i);
    return coo;
}

template <class V, class I>
Csr<V, I> transpose(CsrView<const V, I> a) {
    require_host(a, "transpose");
    std::vector<I> ptr(static_cast<std::size_t>(a.cols + 1), 0);
    for (index_t p = 0; p < a.nnz; ++p) ++ptr[a.col_idx[p] + 1];
    std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
    std::vector<I> col(static_cast<std::size_t>(a.nnz));
    std::vector<V> val(a.values ? static_cast<std::size_t>(a.nnz) : 0);
    std::vector<I> next(ptr.begin(), ptr.end() - 1);
    // Rows visited in order, so each transposed row comes out sorted when it has no duplicates.
    for (index_t i = 0; i < a.rows; ++i)
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const I q = next[a.col_idx[p]]++;
            col[q] = static_cast<I>(i);
            if (a.values) val[q] = a.values[p];
        }
    return Csr<V, I>(Executor::cpu(), a.cols, a.rows, ptr, col, val, true);
}

template <class V, class I>
Csr<V, I> sort_rows(CsrView<const V, I> a) {
    require_host(a, "sort_rows");
    std::vector<I> ptr(a.row_ptr, a.row_ptr + a.rows + 1);
    std::vector<I> col(a.col_idx, a.col_idx + a.nnz);
    std::vector<V> val;
    if (a.values) val.assign(a.values, a.values + a.nnz);
    std::vector<I> out_ptr = sort_and_merge(a.rows, ptr, col, val, a.values != nullptr);
    return Csr<V, I>(Executor::cpu(), a.rows, a.cols, out_ptr, col, val, true);
}

template <class V, class I>
void validate(CsrView<const V, I> a, std::string_view name) {
    const std::string n(name);
    require_host(a, "validate");
    if (a.rows < 0 || a.cols < 0) invalid_argument(n + ": negative shape");
    if (a.row_ptr == nullptr) invalid_argument(n + ": null row_ptr");
    if (a.row_ptr[0] != 0) invalid_argument(n + ": row_ptr[0] is " + std::to_string(a.row_ptr[0]) + ", expected 0");
    for (index_t i = 0; i < a.rows; ++i)
        if (a.row_ptr[i + 1] < a.row_ptr[i])
            invalid_argument(n + ": row_ptr decreases at row " + std::to_string(i) + " (" + std::to_string(a.row_ptr[i]) + " then " +
                             std::to_string(a.row_ptr[i + 1]) + ")");
    if (a.row_ptr[a.rows] != a.nnz)
        invalid_argument(n + ": row_ptr[rows] is " + std::to_string(a.row_ptr[a.rows]) + " but nnz is " + std::to_string(a.nnz));
    for (index_t i = 0; i < a.rows; ++i)
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const index_t c = a.col_idx[p];
            if (c < 0 || c >= a.cols)
                invalid_argument(n + ": entry " + std::to_string(p) + " (row " + std::to_string(i) + ") has column " + std::to_string(c) +
                                 " outside [0, " + std::to_string(a.cols) + ")");
            if (a.sorted && p > a.row_ptr[i] && a.col_idx[p - 1] >= c)
                invalid_argument(n + ": row " + std::to_string(i) + " is not sorted or repeats a column at entry " + std::to_string(p) +
                                 " (column " + std::to_string(a.col_idx[p - 1]) + " then " + std::to_string(c) + ")");
        }
}

template <class To, class From, class I>
Csr<To, I> convert_values(CsrView<const From, I> a) {
    require_host(a, "convert_values");
    std::vector<To> val(a.values ? static_cast<std::size_t>(a.nnz) : 0);
    for (std::size_t p = 0; p < val.size(); ++p) val[p] = value_cast<To>(a.values[p]);
    return Csr<To, I>(Executor::cpu(), a.rows, a.cols, std::vector<I>(a.row_ptr, a.row_ptr + a.rows + 1),
                      std::vector<I>(a.col_idx, a.col_idx + a.nnz), val, a.sorted);
}

#define SPK_INSTANTIATE(V, I)                                                  \
    template Csr<V, I> coo_to_csr(const Coo<V, I>&, Duplicates);               \
    template Coo<V, I> csr_to_coo(CsrView<const V, I>);                        \
    template Csr<V, I> transpose(CsrView<const V, I>);                         \
    template Csr<V, I> sort_rows(CsrView<const V, I>);                         \
    template void validate(CsrView<const V, I>, std::string_view);             \
    template Csr<float, I> convert_values<float, V, I>(CsrView<const V, I>);   \
    template Csr<double, I> convert_values<double, V, I>(CsrView<const V, I>); \
    template Csr<f16, I> convert_values<f16, V, I>(CsrView<const V, I>);       \
    template Csr<bf16, I> convert_values<bf16, V, I>(CsrView<const V, I>);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
