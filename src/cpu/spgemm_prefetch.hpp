#pragma once
// Software prefetch of the rows of B that A's entries select, for both SpGEMM phases. Where A's
// columns are scattered (random graphs, R-MAT) every entry of A opens a row of B far from the
// last, and a row walk waits on two dependent misses per entry (B's row pointer, then the row):
// rows of a few products each are bound by that latency, not by the work on them. Prefetching
// in A's entry order, which is the order both phases visit the entries in (across rows too),
// keeps those misses in flight ahead of the walk. Where A's columns lie near their rows (meshes,
// bands) B's rows are still cached from the rows before, and nothing is prefetched.
#include "cpu/prefetch.hpp"
#include "spk/matrix.hpp"

namespace spk::detail::cpu {

// Entries of A ahead of the walk whose rows of B are prefetched; their row pointers are prefetched
// twice as far ahead, so that they are in cache when the row's address is computed.
constexpr index_t kPrefetchEntries = 16;

// Whether the phases should prefetch B's rows for A (rows_worth_prefetching at B's mean row size).
template <class V, class I>
bool prefetch_b_rows_for(const CsrView<const V, I>& a, const CsrView<const V, I>& b) {
    const double row_bytes = b.rows > 0 ? static_cast<double>(b.nnz) / static_cast<double>(b.rows) * (sizeof(I) + sizeof(V)) : 0.0;
    return rows_worth_prefetching(a, cached_rows(row_bytes));
}

// Call at entry q of A (any order of rows, each entry once): prefetches B's row pointer for entry
// q + 2D and B's row (its column indices, and its values when WithValues) for entry q + D.
template <bool WithValues, class V, class I>
inline void prefetch_b_rows(const CsrView<const V, I>& a, const CsrView<const V, I>& b, index_t q) {
    const index_t ahead = q + kPrefetchEntries, further = q + 2 * kPrefetchEntries;
    if (further < a.nnz) prefetch_line(b.row_ptr + a.col_idx[further]);
    if (ahead < a.nnz) {
        const index_t start = b.row_ptr[a.col_idx[ahead]];
        prefetch_line(b.col_idx + start);
        if constexpr (WithValues) prefetch_line(b.values + start);
    }
}

}  // namespace spk::detail::cpu
