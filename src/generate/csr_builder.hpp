#pragma once
// Builds a CSR matrix directly when each row's length is known before its entries: count the
// non-zeros, allocate once, prefix-sum the row lengths, fill the rows - every pass parallel
// over rows and without an intermediate COO or sort. This is what lets the stencil generators
// reach tens of millions of rows.
#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_memory.hpp"
#include "spk/error.hpp"
#include "spk/matrix.hpp"

namespace spk::detail {

// InvalidArgument when `count` (rows, columns or non-zeros) does not fit the index type I.
template <class I>
void require_fits_index(index_t count, std::string_view what, std::string_view generator) {
    if (count > static_cast<index_t>(std::numeric_limits<I>::max()))
        invalid_argument(std::string(generator) + ": " + std::string(what) + " = " + std::to_string(count) + " does not fit " +
                         std::string(index_traits<I>::name) + " indices" + (sizeof(I) < 8 ? " (use int64)" : ""));
}

// In-place inclusive prefix sum over fixed-size blocks: the blocks are summed in parallel, then
// offset. The totals must fit T (callers check nnz first).
template <class T>
void inclusive_scan_parallel(T* x, index_t n) {
    constexpr index_t block = index_t{1} << 16;
    const index_t blocks = (n + block - 1) / block;
    std::vector<index_t> offset(static_cast<std::size_t>(blocks) + 1, 0);
#pragma omp parallel for schedule(static)
    for (index_t b = 0; b < blocks; ++b) {
        const index_t end = std::min(n, (b + 1) * block);
        for (index_t i = b * block + 1; i < end; ++i) x[i] += x[i - 1];
        offset[b + 1] = static_cast<index_t>(x[end - 1]);
    }
    for (index_t b = 0; b < blocks; ++b) offset[b + 1] += offset[b];
#pragma omp parallel for schedule(static)
    for (index_t b = 1; b < blocks; ++b) {
        const index_t end = std::min(n, (b + 1) * block);
        for (index_t i = b * block; i < end; ++i) x[i] += static_cast<T>(offset[b]);
    }
}

// row_length(i) -> index_t, and fill_row(i, I* cols, V* values) writing exactly that many
// entries with strictly increasing columns. Both must be pure functions of i (they run on any
// thread, and row_length runs twice). uneven_rows: schedule the fill dynamically.
template <class V, class I, bool uneven_rows = false, class RowLength, class FillRow>
Csr<V, I> build_csr_by_rows(std::string_view generator, index_t rows, index_t cols, RowLength row_length, FillRow fill_row) {
    require_fits_index<I>(rows, "rows", generator);
    require_fits_index<I>(cols, "cols", generator);
    // Before a pass over the rows: their offsets alone must fit the host's memory.
    const double offset_bytes = (static_cast<double>(rows) + 1) * sizeof(I);
    if (beyond_host_memory(offset_bytes))
        out_of_memory(std::string(generator) + ": " + std::to_string(rows) + " rows need " + gigabytes(offset_bytes) +
                      " of row offsets, more than the host's " + gigabytes(host_memory_bytes()));
    index_t nnz = 0;
    double nnz_estimate = 0;  // the same sum in double: an index_t sum past 2^63 would wrap
#pragma omp parallel for schedule(static) reduction(+ : nnz, nnz_estimate)
    for (index_t i = 0; i < rows; ++i) {
        const index_t len = row_length(i);
        nnz += len;
        nnz_estimate += static_cast<double>(len);
    }
    if (nnz_estimate > static_cast<double>(std::numeric_limits<index_t>::max()))
        invalid_argument(std::string(generator) + ": about " + std::to_string(nnz_estimate) + " non-zeros, more than any index type holds");
    require_fits_index<I>(nnz, "nnz", generator);

    Csr<V, I> out(Executor::cpu(), rows, cols, nnz);
    I* row_ptr = out.row_ptr().data();
    I* col_idx = out.col_idx().data();
    V* values = out.values().data();
    row_ptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < rows; ++i) row_ptr[i + 1] = static_cast<I>(row_length(i));
    inclusive_scan_parallel(row_ptr + 1, rows);
    if constexpr (uneven_rows) {
#pragma omp parallel for schedule(dynamic, 64)
        for (index_t i = 0; i < rows; ++i) fill_row(i, col_idx + row_ptr[i], values + row_ptr[i]);
    } else {
#pragma omp parallel for schedule(static)
        for (index_t i = 0; i < rows; ++i) fill_row(i, col_idx + row_ptr[i], values + row_ptr[i]);
    }
    return out;
}

}  // namespace spk::detail
