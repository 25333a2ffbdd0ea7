#pragma once
// Long segments cut into chunks, as split-K flash decoding cuts a long sequence. A segment's group
// walks it serially, so on power-law graphs the hub rows (and, in the backward pass, the hub
// columns: tens of thousands of entries) set a kernel's time however short the rest.
//   count_chunks     one pass over a pointer array: for each of a few candidate thresholds, the
//                    long segments and chunks it would make (the host then takes the shortest
//                    threshold whose chunks' states fit a memory budget).
//   find_long_rows   one pass over a pointer array (A's row_ptr, or Aᵀ's col_ptr for A's columns):
//                    segments longer than the threshold get a place in the list of long segments
//                    and a run of chunk numbers; each chunk's (segment, number).
//   find_team_rows   (forward, small graphs) one pass over row_ptr: the rows between the team
//                    threshold and the chunk threshold, which a block each walks whole.
// Forward (sum and mean, without saved attention):
//   forward_kernel   (forward_kernel.cuh) its first blocks take the chunks, a group a (chunk,
//                    head): the online softmax over the chunk's entries, then its state: the
//                    running max m_c, the sum l_c and the unnormalised accumulator acc_c (dz values).
//   combine_chunks   a block a (long row, head) merges the chunks' states in chunk order:
//                    M = max m_c, L = Σ l_c e^(m_c - M), E = Σ acc_c e^(m_c - M) / L (then mean's
//                    1/len), and writes M and L as the row statistics the backward pass reads.
//                    Without softmax a chunk's state is its sum alone.
// Backward (every option: with the saved statistics each α_ij is known up front):
//   backward_rows_kernel, backward_columns_kernel (backward_kernels.cuh) take the chunks of long
//                    rows (columns) in their first blocks and write each chunk's share of the
//                    row's (column's) sums: σ, dX (dZ, dY).
//   combine_sums     a block a (long segment, head) adds the shares in chunk order.
// No atomics touch the results (the atomic in find_long_rows only hands out places), so they do
// not depend on timing.
#include <type_traits>

#include "core/fused_split_threshold.hpp"  // Candidates
#include "cuda/fusedmm/device.cuh"

namespace spk::detail::cuda::fused {

// A segment longer than the threshold is cut into ceil(len / threshold) chunks of near-equal length.
__host__ __device__ constexpr long long chunk_count(long long len, long long threshold) { return (len + threshold - 1) / threshold; }

// Where chunk c of `count` begins, counted from the segment's start: the first len % count chunks
// take one entry more (no chunk is empty, as len >= count; no product can overflow).
__device__ __forceinline__ long long chunk_offset(long long c, long long len, long long count) {
    const long long q = len / count, rem = len % count;
    return c * q + (c < rem ? c : rem);
}

constexpr int kFindThreads = 256;

// One thread a segment (segment i: entries ptr[i] .. ptr[i+1]), in whole warps. For candidate k,
// counts[2k] gathers the long segments and counts[2k + 1] their chunks, with one atomic add each a
// warp; *longest becomes the longest segment's length. The thresholds grow with k, so a warp with
// no segment longer than threshold k stops there (most warps at k = 0).
template <class I>
__global__ void __launch_bounds__(kFindThreads) count_chunks(const I* ptr, long long segments, const Candidates candidates,
                                                             unsigned long long* counts, unsigned long long* longest) {
    const long long i = static_cast<long long>(blockIdx.x) * kFindThreads + threadIdx.x;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const long long len = i < segments ? static_cast<long long>(ptr[i + 1]) - static_cast<long long>(ptr[i]) : 0;
    const auto warp_longest = group_reduce<32>(static_cast<unsigned long long>(len), [](unsigned long long a, unsigned long long b) { return a > b ? a : b; });
    if (lane == 0 && warp_longest > 0) atomicMax(longest, warp_longest);
    for (int k = 0; k < candidates.count; ++k) {
        const long long threshold = candidates.threshold[k];
        const unsigned long_lanes = __ballot_sync(full_mask, len > threshold);
        if (long_lanes == 0) return;  // the same for the whole warp
        const auto chunks = static_cast<unsigned long long>(len > threshold ? chunk_count(len, threshold) : 0);
        const unsigned long long total = group_sum<32>(chunks);
        if (lane == 0) {
            atomicAdd(counts + 2 * k, static_cast<unsigned long long>(__popc(long_lanes)));
            atomicAdd(counts + 2 * k + 1, total);
        }
    }
}

// One thread a segment (segment i: entries ptr[i] .. ptr[i+1]), in whole warps (threads past the
// last segment take part with none). A warp takes places for its long segments with one atomic add
// on a counter that packs the long segments (high 32 bits) and their chunks (low 32), so both runs
// come out of the same order and chunk_first grows with the list index. The warp then writes its
// long segments' chunks, a lane a chunk.
template <class I>
__global__ void __launch_bounds__(kFindThreads)
    find_long_rows(const I* ptr, long long segments, long long threshold, unsigned long long* counts, I* long_rows, long long* chunk_first,
                   I* chunk_row, long long* chunk_part) {
    const long long i = static_cast<long long>(blockIdx.x) * kFindThreads + threadIdx.x;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const long long len = i < segments ? static_cast<long long>(ptr[i + 1]) - static_cast<long long>(ptr[i]) : 0;
    const bool is_long = len > threshold;
    const long long chunks = is_long ? chunk_count(len, threshold) : 0;
    const unsigned long long mine = is_long ? (1ull << 32) | static_cast<unsigned long long>(chunks) : 0ull;
    const unsigned long long scan = warp_inclusive_sum(mine);
    const unsigned long long total = __shfl_sync(full_mask, scan, 31);
    if (total == 0) return;  // the same for the whole warp
    unsigned long long base = 0;
    if (lane == 31) base = atomicAdd(counts, total);
    const unsigned long long place = __shfl_sync(full_mask, base, 31) + scan - mine;
    const long long first = static_cast<long long>(place & 0xffffffffull);
    if (is_long) {
        const long long t = static_cast<long long>(place >> 32);
        long_rows[t] = static_cast<I>(i);
        chunk_first[t] = first;
    }
    for (unsigned pending = __ballot_sync(full_mask, is_long); pending != 0; pending &= pending - 1) {
        const int src = __ffs(static_cast<int>(pending)) - 1;
        const long long row = __shfl_sync(full_mask, i, src), at = __shfl_sync(full_mask, first, src);
        const long long count = __shfl_sync(full_mask, chunks, src);
        for (long long c = lane; c < count; c += 32) {
            chunk_row[at + c] = static_cast<I>(row);
            chunk_part[at + c] = c;
        }
    }
}

// One thread a row, in whole warps: rows longer than `shorter_from` and at most `longest` entries
// take places in `team_rows` (the forward's team rows), one atomic add a warp.
template <class I>
__global__ void __launch_bounds__(kFindThreads)
    find_team_rows(const I* ptr, long long segments, long long shorter_from, long long longest, unsigned long long* count, I* team_rows) {
    const long long i = static_cast<long long>(blockIdx.x) * kFindThreads + threadIdx.x;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const long long len = i < segments ? static_cast<long long>(ptr[i + 1]) - static_cast<long long>(ptr[i]) : 0;
    const unsigned mine = __ballot_sync(full_mask, len > shorter_from && len <= longest);
    if (mine == 0) return;  // the same for the whole warp
    unsigned long long base = 0;
    if (lane == 0) base = atomicAdd(count, static_cast<unsigned long long>(__popc(mine)));
    base = __shfl_sync(full_mask, base, 0);
    if (mine >> lane & 1u) team_rows[base + __popc(mine & ((1u << lane) - 1u))] = static_cast<I>(i);
}

constexpr int kCombineThreads = 256;
constexpr int kCombineWarps = kCombineThreads / 32;

// op over the block's values in a fixed order (warp butterflies, then the warps in order); every
// thread gets the result.
template <class A, class Op>
__device__ __forceinline__ A block_reduce(A v, Op op, A (&scratch)[kCombineWarps]) {
    v = group_reduce<32>(v, op);
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    A out = scratch[0];
#pragma unroll
    for (int w = 1; w < kCombineWarps; ++w) out = op(out, scratch[w]);
    __syncthreads();  // scratch is reused by the next reduction
    return out;
}

// A block a (long row, head), blocks striding over them (the host does not know how many there
// are). The warps split the chunks, lanes the features (32 at a time); each warp's sum then
// joins the others in warp order.
template <class T, class I>
__global__ void __launch_bounds__(kCombineThreads) combine_chunks(const ForwardKernelArgs<T, I, accum_t<T>> args) {
    using A = accum_t<T>;
    __shared__ A scratch[kCombineWarps];
    __shared__ A sums[kCombineWarps][32];
    const Rules& r = args.rules;
    const SplitArgs<I, A>& s = args.split;
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) / 32;
    const long long items = static_cast<long long>(*s.counts >> 32) * r.heads;
    for (long long item = blockIdx.x; item < items; item += gridDim.x) {
        const long long t = item / r.heads;
        const int h = static_cast<int>(item % r.heads);
        const long long row = s.long_rows[t], first = s.chunk_first[t];
        const long long len = static_cast<long long>(args.row_ptr[row + 1]) - static_cast<long long>(args.row_ptr[row]);
        const long long count = chunk_count(len, s.threshold);
        const auto state = [&](long long c) { return (first + c) * r.heads + h; };  // (chunk, head)

        A top = minus_infinity<A>(), total = 1;
        if (r.softmax) {
            for (long long c = threadIdx.x; c < count; c += kCombineThreads) {
                const A m = s.partial_max[state(c)];
                top = m > top ? m : top;
            }
            top = block_reduce(
                top, [](A x, A y) { return x > y ? x : y; }, scratch);
            A part = 0;
            for (long long c = threadIdx.x; c < count; c += kCombineThreads)
                part += s.partial_sum[state(c)] * exp(s.partial_max[state(c)] - top);
            total = block_reduce(
                part, [](A x, A y) { return x + y; }, scratch);
        }
        A factor = r.softmax ? A(1) / total : A(1);
        if (r.aggregate == Aggregate::mean) factor /= static_cast<A>(len);

        for (long long f0 = 0; f0 < r.dz; f0 += 32) {
            const long long f = f0 + lane;
            A acc = 0;
            if (f < r.dz)
#pragma unroll 4
                for (long long c = warp; c < count; c += kCombineWarps) {
                    const A scale = r.softmax ? exp(s.partial_max[state(c)] - top) : A(1);
                    acc += scale * s.partial_acc[state(c) * r.dz + f];
                }
            sums[warp][lane] = acc;
            __syncthreads();
            if (warp == 0 && f < r.dz) {
                A out = sums[0][lane];
#pragma unroll
                for (int w = 1; w < kCombineWarps; ++w) out += sums[w][lane];
                args.e[row * args.lde + h * r.dz + f] = from_accum<T>(out * factor);
            }
            __syncthreads();
        }
        if (r.softmax && threadIdx.x == 0) {
            args.row_max[row * r.heads + h] = top;
            args.row_sum[row * r.heads + h] = total;
        }
    }
}

// One sum combine_sums forms: for each long segment and head, `width` values, each the sum of the
// chunks' shares partial[((chunk * heads) + head) * width + f], written to
// out[segment * ld + head * width + f]. A null `partial` is no target.
template <class S, class Out>
struct SumTarget {
    const S* partial = nullptr;
    long long width = 0;
    Out* out = nullptr;
    long long ld = 0;
};

template <class Out, class S>
__device__ __forceinline__ Out sum_to(S v) {
    if constexpr (std::is_same_v<Out, S>)
        return v;
    else
        return from_accum<Out>(v);
}

// A block a (long segment, head), blocks striding over them (their number is on the device). For
// each target the warps split the chunks (warp w takes chunks w, w + 8, ...) and the lanes the
// values, 32 at a time; the warps' sums then join in warp order. The order is fixed, so two runs
// agree to the bit.
template <class I, class S, class Out>
__global__ void __launch_bounds__(kCombineThreads)
    combine_sums(const ChunkList<I> list, const I* ptr, int heads, const SumTarget<S, Out> one, const SumTarget<S, Out> two) {
    __shared__ S sums[kCombineWarps][32];
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) / 32;
    const long long items = static_cast<long long>(*list.counts >> 32) * heads;
    for (long long item = blockIdx.x; item < items; item += gridDim.x) {
        const long long t = item / heads;
        const int h = static_cast<int>(item % heads);
        const long long segment = list.long_rows[t], first = list.chunk_first[t];
        const long long len = static_cast<long long>(ptr[segment + 1]) - static_cast<long long>(ptr[segment]);
        const long long count = chunk_count(len, list.threshold);
        const auto add_up = [&](const SumTarget<S, Out>& g) {
            for (long long f0 = 0; f0 < g.width; f0 += 32) {
                const long long f = f0 + lane;
                S acc = 0;
                if (f < g.width)
#pragma unroll 4
                    for (long long c = warp; c < count; c += kCombineWarps) acc += g.partial[((first + c) * heads + h) * g.width + f];
                sums[warp][lane] = acc;
                __syncthreads();
                if (warp == 0 && f < g.width) {
                    S out = sums[0][lane];
#pragma unroll
                    for (int w = 1; w < kCombineWarps; ++w) out += sums[w][lane];
                    g.out[segment * g.ld + h * g.width + f] = sum_to<Out>(out);
                }
                __syncthreads();  // sums is reused by the next 32 values
            }
        };
        if (one.partial != nullptr) add_up(one);
        if (two.partial != nullptr) add_up(two);
    }
}

}  // namespace spk::detail::cuda::fused
