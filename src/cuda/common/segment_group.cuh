#pragma once
// Segment-group reduction primitives (third paper, §4): reductions over groups of R
// consecutive lanes of a warp, R in {1, 2, 4, 8, 16, 32}, separated from the warp's tiling.
// Every lane named in `mask` must call them; by default that is the whole warp. A group of G
// lanes working alone passes its own mask (group_mask<G>()), so other groups may diverge.
//   group_reduce<R>(v, op)           all lanes of a group end with op over the group
//   group_transpose_sum<R, U>(v[U])  U sums over the group at once; lanes hold one each
//   segment_reduce<R>(v, key, op)    lanes holding equal consecutive keys form a segment; the
//                                    first lane of each segment (its head) ends with its total
//   group_atomic_add<R>(addr, key, v) segment_reduce + one atomicAdd per segment head
//   warp_inclusive_sum(v)            prefix sums over the 32 lanes
#include <cuda_runtime.h>

namespace spk::detail::cuda {

constexpr unsigned full_mask = 0xffffffffu;

template <int R>
__device__ __forceinline__ int group_lane() {
    return static_cast<int>(threadIdx.x) & (R - 1);
}

// The lanes of this thread's group of G consecutive lanes (groups are aligned within the warp).
template <int G>
__device__ __forceinline__ unsigned group_mask() {
    if constexpr (G == 32)
        return full_mask;
    else
        return ((1u << G) - 1u) << (static_cast<unsigned>(threadIdx.x) & 31u & ~static_cast<unsigned>(G - 1));
}

template <int R, class T, class Op>
__device__ __forceinline__ T group_reduce(T v, Op op, unsigned mask = full_mask) {
    static_assert(R >= 1 && R <= 32 && (R & (R - 1)) == 0, "group size must be a power of two up to 32");
#pragma unroll
    for (int offset = R / 2; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(mask, v, offset, R));
    return v;
}

template <int R, class T>
__device__ __forceinline__ T group_sum(T v, unsigned mask = full_mask) {
    return group_reduce<R>(
        v, [](T a, T b) { return a + b; }, mask);
}

// U sums over a group of R lanes at once (U <= R, both powers of two): the lanes of the group each
// hold U values, and value u's total over the group ends in lanes u*(R/U) .. (u+1)*(R/U)-1, which
// is what lane l returns for u = group_lane / (R/U). Each of the first log2(U) steps sends half
// the values a lane still holds to its partner and keeps the other half, so the U sums take
// (U - 1) + log2(R/U) shuffles, where U group_sums take U * log2(R) (12 against 20 at R = 32,
// U = 4). The additions pair the lanes in another order than group_sum's: the sums agree to the
// rounding. v is left holding partial sums.
template <int R, int U, int OFFSET = R / 2, class T>
__device__ __forceinline__ T group_transpose_sum(T (&v)[U], unsigned mask = full_mask) {
    static_assert(R >= 1 && R <= 32 && (R & (R - 1)) == 0, "group size must be a power of two up to 32");
    static_assert(U >= 1 && U <= R && (U & (U - 1)) == 0, "the values per lane must be a power of two up to the group size");
    if constexpr (U == 1 && OFFSET == 0) {
        return v[0];
    } else if constexpr (U == 1) {
        return group_sum<OFFSET * 2>(v[0], mask);  // the remaining log2(R/U) steps, offsets OFFSET .. 1
    } else {
        // Lanes with the OFFSET bit set keep the upper half of the values, their partners the lower.
        const bool upper = (group_lane<R>() & OFFSET) != 0;
        T kept[U / 2];
#pragma unroll
        for (int i = 0; i < U / 2; ++i) {
            const T send = upper ? v[i] : v[i + U / 2];
            kept[i] = (upper ? v[i + U / 2] : v[i]) + __shfl_xor_sync(mask, send, OFFSET, R);
        }
        return group_transpose_sum<R, U / 2, OFFSET / 2>(kept, mask);
    }
}

// Inclusive prefix sum over the whole warp (every lane calls it): lane l ends with the sum of
// lanes 0..l.
template <class T>
__device__ __forceinline__ T warp_inclusive_sum(T v) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
        const T up = __shfl_up_sync(full_mask, v, offset);
        if (lane >= offset) v += up;
    }
    return v;
}

// Segmented inclusive scan from the right within each group: after it, the head lane of each run
// of equal keys holds the run's total. Keys must be non-decreasing within a group (true for the
// row index of consecutive non-zeros), which is what makes log2(R) steps enough.
template <int R, class T, class K, class Op>
__device__ __forceinline__ T segment_reduce(T v, K key, Op op, unsigned mask = full_mask) {
    static_assert(R >= 1 && R <= 32 && (R & (R - 1)) == 0, "group size must be a power of two up to 32");
    const int lane = group_lane<R>();
#pragma unroll
    for (int offset = 1; offset < R; offset *= 2) {
        const T other = __shfl_down_sync(mask, v, offset, R);
        const K other_key = __shfl_down_sync(mask, key, offset, R);
        if (lane + offset < R && other_key == key) v = op(v, other);
    }
    return v;
}

// True for the lane that starts a run of equal keys within its group.
template <int R, class K>
__device__ __forceinline__ bool segment_head(K key, unsigned mask = full_mask) {
    const K prev = __shfl_up_sync(mask, key, 1, R);
    return group_lane<R>() == 0 || prev != key;
}

template <int R, class T, class K>
__device__ __forceinline__ void group_atomic_add(T* out, K key, T v, unsigned mask = full_mask) {
    const T total = segment_reduce<R>(
        v, key, [](T a, T b) { return a + b; }, mask);
    if (segment_head<R>(key, mask)) atomicAdd(out, total);
}

}  // namespace spk::detail::cuda
