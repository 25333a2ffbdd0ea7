#pragma once
// A warp's 32 * E words sorted in registers: word t of lane l sits at place l * E + t of a bitonic
// network, exchanged by shuffles where the partner lies in another lane and by register swaps
// where it lies in the same lane. No shared memory and no barrier a stage, where a shared-memory
// sort reads and writes both halves of every pair of every stage. Used to order a warp row of C
// (numeric_kernels.cuh) and to count a row's distinct columns (short_rows.cuh).
#include <cuda_runtime.h>

#include "cuda/spgemm/device_table.cuh"

namespace spk::detail::cuda::spgemm {

// Sorts the warp's words ascending (every lane of the warp calls it; W: unsigned or unsigned long long).
template <int E, class W>
__device__ __forceinline__ void warp_bitonic_sort(W (&word)[E]) {
    static_assert(E > 0 && (E & (E - 1)) == 0, "E words a lane, a power of two");
    constexpr int N = 32 * E;
    const int lane = static_cast<int>(threadIdx.x & 31);
#pragma unroll
    for (int k = 2; k <= N; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            if (j >= E) {  // partner in lane ^ (j / E), same register
                const bool lower = (lane & (j / E)) == 0;
#pragma unroll
                for (int t = 0; t < E; ++t) {
                    const bool ascending = ((lane * E + t) & k) == 0;
                    const W other = __shfl_xor_sync(kFullMask, word[t], j / E);
                    word[t] = lower == ascending ? (other < word[t] ? other : word[t]) : (other > word[t] ? other : word[t]);
                }
            } else {  // partner in register t ^ j of this lane
#pragma unroll
                for (int t = 0; t < E; ++t) {
                    if (t & j) continue;
                    const int u = t | j;
                    const bool ascending = ((lane * E + t) & k) == 0;
                    const W a = word[t], b = word[u];
                    word[t] = ascending == (a < b) ? a : b;
                    word[u] = ascending == (a < b) ? b : a;
                }
            }
        }
    }
}

}  // namespace spk::detail::cuda::spgemm
