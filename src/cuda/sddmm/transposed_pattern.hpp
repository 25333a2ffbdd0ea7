#pragma once
// Aᵀ's pattern on the device with, for each of its entries, the number of the matching entry of A:
// the gradient dY walks it row by row (a gather with one owner per output row) instead of adding
// into dY atomically. Built by a stable radix sort of A's entries by column, so every column
// lists its rows in increasing order and dY's sums come out the same on every run.
#include "spk/array.hpp"
#include "spk/executor.hpp"
#include "spk/matrix.hpp"

namespace spk::detail::cuda {

template <class I>
struct DeviceTransposedPattern {
    Array<I> col_ptr;  // cols(A) + 1
    Array<I> row_idx;  // nnz: A's row, increasing within each column
    Array<I> entry;    // nnz: A's entry p (A.col_idx[p] is the column)
};

// Runs on the executor's stream and waits for it (its scratch arrays are freed on return).
template <class I>
DeviceTransposedPattern<I> transposed_pattern(const Executor& exec, const I* row_ptr, const I* col_idx, index_t rows, index_t cols,
                                              index_t nnz);

}  // namespace spk::detail::cuda
