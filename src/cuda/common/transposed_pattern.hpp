#pragma once
// Aᵀ's pattern on the device, with the map back to A's entries (the device counterpart of
// core/transposed_pattern.hpp): the SDDMM and FusedMM backward passes gather dY (and dZ) per
// column of A over it instead of scattering with atomics. Within a column, rows come in
// increasing order, so the gathered sums come out the same on every run.
#include <cuda_runtime.h>

#include "spk/array.hpp"
#include "spk/matrix.hpp"

namespace spk::detail::cuda {

template <class I>
struct DeviceTransposedPattern {
    Array<I> col_ptr;  // cols + 1
    Array<I> row_idx;  // nnz: row of A
    Array<I> entry;    // nnz: entry number in A
};

// Built on exec's stream (a stable radix sort of the entries by column); the arrays are ready
// once the stream reaches this point.
template <class I>
DeviceTransposedPattern<I> transposed_pattern(const Executor& exec, const I* row_ptr, const I* col_idx, index_t rows, index_t cols,
                                              index_t nnz);

}  // namespace spk::detail::cuda
