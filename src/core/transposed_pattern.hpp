#pragma once
// Aᵀ's pattern with, for every entry of Aᵀ, the number of the matching entry of A. Host backward
// passes (SDDMM, FusedMM) walk it to gather column gradients without atomics; spk::transpose does
// not serve, as it moves values and forgets where each entry came from.
#include <vector>

#include "spk/array.hpp"
#include "spk/matrix.hpp"

namespace spk::detail {

// The three arrays where they live (host or device, as A's): what the backward kernels read.
// Null col_ptr: none given.
template <class I>
struct TransposedPatternView {
    const I* col_ptr = nullptr;  // cols(A) + 1
    const I* row_idx = nullptr;  // nnz: the row i of A, increasing within each column
    const I* entry = nullptr;    // nnz: the entry p of A (A.col_idx[p] is this column)
};

template <class I>
struct TransposedPattern {
    std::vector<I> col_ptr;
    std::vector<I> row_idx;
    std::vector<I> entry;

    TransposedPatternView<I> view() const { return {col_ptr.data(), row_idx.data(), entry.data()}; }
};

namespace cuda {

// The same three arrays in device memory, built on the device (src/cuda/common/transposed_pattern.cu:
// a stable radix sort of the entries by column). The SDDMM and FusedMM backward passes gather over
// it; transposed SpMM plans build Aᵀ from it.
template <class I>
struct DeviceTransposedPattern {
    Array<I> col_ptr;
    Array<I> row_idx;
    Array<I> entry;

    TransposedPatternView<I> view() const { return {col_ptr.data(), row_idx.data(), entry.data()}; }
};

// Built on exec's stream; the arrays are ready once the stream reaches this point.
template <class I>
DeviceTransposedPattern<I> transposed_pattern(const Executor& exec, const I* row_ptr, const I* col_idx, index_t rows, index_t cols,
                                              index_t nnz);

}  // namespace cuda

}  // namespace spk::detail
