#pragma once
// Aᵀ's pattern with, for every entry of Aᵀ, the number of the matching entry of A. Host backward
// passes (SDDMM, FusedMM) walk it to gather column gradients without atomics; spk::transpose does
// not serve, as it moves values and forgets where each entry came from.
#include <vector>

namespace spk::detail {

template <class I>
struct TransposedPattern {
    std::vector<I> col_ptr;  // cols(A) + 1
    std::vector<I> row_idx;  // nnz: the row i of A, increasing within each column
    std::vector<I> entry;    // nnz: the entry p of A (A.col_idx[p] is this column)
};

}  // namespace spk::detail
