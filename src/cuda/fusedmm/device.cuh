#pragma once
// Device helpers shared by the FusedMM kernels: the lane layout of a feature row, vector loads
// that tolerate the row's end, and a lane's share of a score.
//
// A group of G lanes (G in {4, 8, 32}) owns one row of A (forward, backward rows), one chunk of a
// long row (forward, split.cuh) or one column (backward columns), and one head. A feature row of a head is cut into chunks of G*VEC values;
// lane l holds values l*VEC .. l*VEC+VEC-1 of every chunk, so a group's accesses to one row are
// contiguous and VEC wide. Accumulated rows are kept in registers, kLaneElements values a lane
// (backward; the forward kernel keeps fewer, see forward_lane_elements): chunks_per_tile<VEC>
// chunks. Rows wider than G*kLaneElements are cut into tiles (gridDim.y),
// each recomputing the row's scores; scalar results are written by tile 0 only.
#include <cuda_runtime.h>

#include <type_traits>

#include "core/fusedmm_math.hpp"
#include "cuda/common/gather.cuh"
#include "cuda/common/segment_group.cuh"
#include "cuda/common/values.cuh"
#include "cuda/fusedmm/kernel_args.hpp"

namespace spk::detail::cuda::fused {

constexpr int kBlockThreads = 256;
// Entries handled together: their column indices, then their Y (Z) rows, are loaded before any
// of them is used, so several rows' loads are in flight per lane. The backward kernels hold two
// rows an entry (Y_j and Z_j, or X_i and dE_i) and the entry's terms, and take half the forward's
// batch: on the H200 (attention, 4 heads, k = 32 and 128) batches of 2 took the backward 9-13%
// faster without edge terms and 1-5% with them (its row kernel's spills at 80 registers fell from
// 260 to 28 bytes), while batches of 2 cost the forward 12-25%.
constexpr int kForwardBatch = 4;
constexpr int kBackwardBatch = 2;
constexpr int kLaneElements = 8;

template <int VEC>
constexpr int chunks_per_tile = kLaneElements / VEC;

// The forward kernel keeps less: one vector a lane per tile when accesses are vectors (f32's
// tile is then G x 4 values). That holds the f32 sum/mean kernels with 16-byte vectors (the hot
// ones) to 64 registers without spills, so 4 blocks (32 warps) an SM hide the gathers' latency;
// the others spill at 64 and keep the compiler's choice. Wider rows take more tiles.
__host__ __device__ constexpr int forward_lane_elements(int vec) { return vec > 1 ? vec : kLaneElements; }
template <class T, int VEC, bool MAX>
constexpr int forward_min_blocks = sizeof(T) == 4 && VEC > 1 && !MAX ? 4 : 1;

// The first of this lane's VEC values in chunk c.
template <int G, int VEC>
__device__ __forceinline__ long long chunk_start(long long c, int lane) {
    return (c * G + lane) * VEC;
}

// The entries left of a batch of B from p0 (< end) on, 1 to B: the bounds in 32 bits (64-bit
// comparisons took 4 instructions an entry, recomputed wherever a batch's valid[] was read).
template <int B>
__device__ __forceinline__ int batch_left(long long p0, long long end) {
    const long long rest = end - p0;
    return rest < B ? static_cast<int>(rest) : B;
}

template <class T, int VEC>
__device__ __forceinline__ void zero(accum_t<T> (&out)[VEC]) {
#pragma unroll
    for (int k = 0; k < VEC; ++k) out[k] = accum_t<T>(0);
}

// VEC values of base[offset ...] when `valid`, zeros otherwise (base may then be null).
template <class T, int VEC>
__device__ __forceinline__ void load_or_zero(const T* base, long long offset, bool valid, accum_t<T> (&out)[VEC]) {
    if (valid)
        load_vec<T, VEC>(base + offset, out);
    else
        zero<T, VEC>(out);
}

// This lane's part of a vector score (the group sums the parts): x·y for dot, |x - y|^2 for
// neg_sqdist (negated after the sum).
template <class A, int VEC>
__device__ __forceinline__ A score_terms(Score kind, const A (&x)[VEC], const A (&y)[VEC]) {
    A s = 0;
    if (kind == Score::dot) {
#pragma unroll
        for (int k = 0; k < VEC; ++k) s += x[k] * y[k];
    } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const A t = x[k] - y[k];
            s += t * t;
        }
    }
    return s;
}

// The group's total of the lanes' parts, as the score.
template <int G, class A>
__device__ __forceinline__ A finish_score(Score kind, A part, unsigned mask) {
    const A s = group_sum<G>(part, mask);
    return kind == Score::neg_sqdist ? -s : s;
}

// The scores of a batch of B entries from the lanes' parts, summed at once (group_transpose_sum)
// and then taken by every lane from the first lane holding each: (B - 1) + log2(G/B) + B shuffles
// where B finish_scores take B log2(G) (22 instructions against 40 at G = 32, B = 4). Groups
// narrower than the batch sum each part alone.
template <int G, int B, class A>
__device__ __forceinline__ void finish_scores(Score kind, A (&part)[B], A (&score)[B], unsigned mask) {
    if constexpr (B > 1 && G >= B) {
        const A mine = group_transpose_sum<G, B>(part, mask);
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const A total = __shfl_sync(mask, mine, b * (G / B), G);
            score[b] = kind == Score::neg_sqdist ? -total : total;
        }
    } else {
#pragma unroll
        for (int b = 0; b < B; ++b) score[b] = finish_score<G>(kind, part[b], mask);
    }
}

// r with dot-product attention's kinds (attention_rules_hold) written in as constants, the
// identity edge as a scale by 1 (the same arithmetic).
__device__ __forceinline__ Rules attention_rules(Rules r) {
    r.score = Score::dot;
    r.edge = Edge::scale(r.edge.kind == Edge::Kind::identity ? 1.0f : r.edge.param);
    r.softmax = true;
    return r;
}

__host__ __device__ constexpr bool vector_score(Score s) { return s == Score::dot || s == Score::neg_sqdist; }

// exp of the softmax's arguments (w - m: about 0 or below), in the forward's online softmax and
// the backward's α. In f32 the hardware's 2^x of x log2(e): 2 instructions against expf's 10 and
// two branches, twice a forward batch. Its error, 2 + floor(|1.2 x|) ulp (CUDA C Programming
// Guide, intrinsic functions), stays below 1e-6 relative wherever the weight exceeds e^-10, the
// order of the rounding of w - m itself.
template <class A>
__device__ __forceinline__ A softmax_exp(A x) {
    if constexpr (std::is_same_v<A, float>)
        return __expf(x);
    else
        return exp(x);
}

template <class A>
__device__ __forceinline__ A minus_infinity() {
    return -static_cast<A>(INFINITY);
}

}  // namespace spk::detail::cuda::fused
