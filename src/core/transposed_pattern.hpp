#pragma once
// Aᵀ's pattern with, for every entry of Aᵀ, the number of the matching entry of A. Host backward
// passes (SDDMM, FusedMM) walk it to gather column gradients without atomics; spk::transpose does
// not serve, as it moves values and forgets where each entry came from.
#include <vector>

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

}  // namespace spk::detail
