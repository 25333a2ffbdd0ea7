#pragma once
// A row's products spread over a warp: each lane holds one entry of A and the length of the row
// of B it reaches; product g of the row (in lane order) belongs to the last lane whose first
// product is at most g. Shared by the medium rows of the symbolic phase (short_rows.cuh) and of
// the numeric phase (expand_sort.cuh, numeric_kernels.cuh).
#include "cuda/spgemm/device_table.cuh"

namespace spk::detail::cuda::spgemm {

// The sum of count over this lane and the lanes below it (every lane of the warp calls it).
__device__ __forceinline__ unsigned warp_inclusive_sum(unsigned count) {
    const int lane = static_cast<int>(threadIdx.x & 31);
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned below = __shfl_up_sync(kFullMask, count, o);
        if (lane >= o) count += below;
    }
    return count;
}

// The last lane whose first (ascending over the lanes) is at most g: a binary search by shuffles.
__device__ __forceinline__ int lane_of_product(unsigned first, unsigned g) {
    int e = 0;
#pragma unroll
    for (int step = 16; step > 0; step >>= 1)
        if (__shfl_sync(kFullMask, first, e + step) <= g) e += step;
    return e;
}

}  // namespace spk::detail::cuda::spgemm
