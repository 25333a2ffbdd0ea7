#pragma once
// Software prefetch that the compiler keeps. GCC 12 may delete a call to a helper that reads memory
// and then only prefetches (it finds no effect, and the call's result is unused): the CPU SDDMM's
// prefetch of Y's rows (RowReader::prefetch) compiled to no instruction at all that way, in
// sddmm.cpp and sddmm_backward.cpp, and a test helper of the same shape lost its prefetches too.
// An asm statement is an effect it keeps. Loops where __builtin_prefetch survives (SpMM's and
// FusedMM's, checked with objdump) keep it: the asm statement also fixes its place among the
// loop's instructions, which cost FusedMM 5-13% on one core. The library is built for x86-64
// (value_load.hpp uses its intrinsics too).
#include <algorithm>
#include <cstddef>

#include "spk/matrix.hpp"

namespace spk::detail::cpu {

// Starts loading the cache line holding p into all cache levels; p may point anywhere (a prefetch
// never faults), so callers may prefetch past an array's end.
inline void prefetch_line(const void* p) noexcept { asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p))); }

// The lines of the `bytes` bytes from p.
inline void prefetch_bytes(const void* p, std::size_t bytes) noexcept {
    for (std::size_t q = 0; q < bytes; q += 64) prefetch_line(static_cast<const char*>(p) + q);
}

// Bytes of dense rows (or of B's rows in SpGEMM) around the current row taken to be cached: about
// half a core's L2.
constexpr double kCachedRowBytes = 256.0 * 1024;

// Rows of `row_bytes` bytes within this many rows of the current one are taken to be cached.
inline index_t cached_rows(double row_bytes) { return static_cast<index_t>(kCachedRowBytes / std::max(row_bytes, 1.0)); }

// Whether the rows of the other operand that A's columns select are worth prefetching: where
// most columns lie farther than `near` from their row (random and power-law graphs), or where
// each such row is read fewer than 4 times in all (A's mean column holds fewer than 4 entries:
// road networks), so that even rows near the current one were mostly never read before. Where
// A's columns lie near their rows and each row is read many times (meshes, bands), the rows just
// read for the rows before are still cached, and a prefetch an entry, or even the test for one,
// only adds instructions to loops of a few cycles an entry (one core, SDDMM at d = 32: laplace3d
// 8.0 -> 9.8 ms, bcsstk33 2.4 -> 3.0 with every row prefetched). Reads the first 16 entries of
// 64 rows spread over A.
template <class V, class I>
bool rows_worth_prefetching(const CsrView<V, I>& a, index_t near) {
    if (a.rows == 0 || a.nnz == 0) return false;
    if (a.nnz < 4 * a.cols) return true;
    const index_t step = std::max<index_t>(1, a.rows / 64);
    index_t far = 0, sampled = 0;
    for (index_t i = 0; i < a.rows; i += step) {
        const index_t begin = a.row_ptr[i], end = std::min<index_t>(a.row_ptr[i + 1], begin + 16);
        for (index_t p = begin; p < end; ++p) {
            const index_t j = a.col_idx[p];
            far += j > i + near || j < i - near;
            ++sampled;
        }
    }
    return 2 * far > sampled;
}

}  // namespace spk::detail::cpu
