#pragma once
// Builds Aᵀ's pattern with the map back to A's entries (core/transposed_pattern.hpp): a counting
// sort by column, in parallel. Each of P threads counts the columns of its own range of rows;
// a column's entries then go first from range 0, then range 1, ..., so that every column lists
// its rows in increasing order whatever P is: sums over a column run in a fixed order, and the
// results do not depend on the thread count. The P x cols counters are kept within nnz by taking
// fewer ranges when A has more columns than entries per range.
#include <algorithm>
#include <vector>

#include "core/transposed_pattern.hpp"
#include "cpu/row_partition.hpp"
#include "spk/matrix.hpp"

namespace spk::detail::cpu {

template <class V, class I>
TransposedPattern<I> transposed_pattern(CsrView<const V, I> a, int threads) {
    const index_t cols = a.cols, nnz = a.nnz;
    TransposedPattern<I> t;
    t.col_ptr.assign(static_cast<std::size_t>(cols + 1), I(0));
    t.row_idx.resize(static_cast<std::size_t>(nnz));
    t.entry.resize(static_cast<std::size_t>(nnz));
    const index_t parts = std::clamp<index_t>(nnz / std::max<index_t>(cols, 1), 1, std::max(threads, 1));
    const std::vector<index_t> bounds = balanced_row_splits(a.row_ptr, a.rows, parts);
    // next[r * cols + j]: range r's count of column j, then the position of its next entry of column j.
    std::vector<I> next(static_cast<std::size_t>(parts * cols), I(0));
    const auto range = [&](index_t r) { return next.data() + r * cols; };
#pragma omp parallel num_threads(static_cast <int>(parts))
    {
#pragma omp for schedule(static, 1)
        for (index_t r = 0; r < parts; ++r) {
            I* count = range(r);
            for (index_t p = a.row_ptr[bounds[r]]; p < a.row_ptr[bounds[r + 1]]; ++p) ++count[a.col_idx[p]];
        }
        // Per column: each range's offset within the column, and the column's length.
#pragma omp for schedule(static)
        for (index_t j = 0; j < cols; ++j) {
            I sum = 0;
            for (index_t r = 0; r < parts; ++r) {
                const I c = range(r)[j];
                range(r)[j] = sum;
                sum += c;
            }
            t.col_ptr[static_cast<std::size_t>(j + 1)] = sum;
        }
#pragma omp single
        for (index_t j = 0; j < cols; ++j) t.col_ptr[static_cast<std::size_t>(j + 1)] += t.col_ptr[static_cast<std::size_t>(j)];
#pragma omp for schedule(static)
        for (index_t j = 0; j < cols; ++j)
            for (index_t r = 0; r < parts; ++r) range(r)[j] += t.col_ptr[static_cast<std::size_t>(j)];
#pragma omp for schedule(static, 1)
        for (index_t r = 0; r < parts; ++r) {
            I* slot = range(r);
            for (index_t i = bounds[r]; i < bounds[r + 1]; ++i)
                for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
                    const std::size_t q = static_cast<std::size_t>(slot[a.col_idx[p]]++);
                    t.row_idx[q] = static_cast<I>(i);
                    t.entry[q] = static_cast<I>(p);
                }
        }
    }
    return t;
}

}  // namespace spk::detail::cpu
