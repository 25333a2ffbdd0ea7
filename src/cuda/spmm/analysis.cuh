#pragma once
// Plan-time analysis of A on the device, in one pass over row_ptr: a histogram of row lengths
// (log2 buckets), the longest row, and the split of the rows into a short and a long bin at a
// threshold the host chose from nnz / rows alone, with the counts of chunks and of pieces (longer
// chunks, for the one-launch split) the long rows will need. Then, for split long rows, their
// chunks or pieces (row, first non-zero), built on the device.
#include <cuda_runtime.h>

#include "cuda/common/segment_group.cuh"
#include "cuda/common/values.cuh"

namespace spk::detail::cuda {

constexpr int length_buckets = 34;

// The counters analyse_rows fills (one array of unsigned long long, zeroed first).
struct AnalysisSlots {
    static constexpr int histogram = 0;  // length_buckets entries
    static constexpr int max_row = length_buckets;
    static constexpr int num_short = length_buckets + 1;
    static constexpr int num_long = length_buckets + 2;
    static constexpr int num_chunks = length_buckets + 3;
    static constexpr int num_pieces = length_buckets + 4;
    static constexpr int count = length_buckets + 5;
};

// One thread a row. Short rows go to the front of `lists`, long rows (longer than threshold) to
// its back, in no particular order (each row is still computed by one group, so results do not
// depend on it). The block reserves its slots in each list with one global atomic, and gathers
// the histogram, the longest row and the chunks first: a million rows make 3906 blocks, where
// an atomic per warp made 31250 on one address (same-address atomics serialise in L2, about a
// nanosecond each: stop 9 measured 125 us for four per warp in the SDDMM statistics).
template <class I>
__global__ void __launch_bounds__(256) analyse_rows(const I* row_ptr, long long rows, long long threshold, long long chunk, long long piece,
                                                    unsigned long long* counters, I* lists) {
    constexpr int kWarps = 256 / 32;
    __shared__ unsigned long long local[length_buckets];
    __shared__ unsigned long long local_max, local_chunks, local_pieces;
    __shared__ unsigned warp_long[kWarps], warp_short[kWarps];
    __shared__ unsigned long long block_long, block_short;
    for (int k = threadIdx.x; k < length_buckets; k += blockDim.x) local[k] = 0;
    if (threadIdx.x == 0) local_max = local_chunks = local_pieces = 0;
    __syncthreads();

    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool valid = i < rows;
    const unsigned long long len = valid ? static_cast<unsigned long long>(row_ptr[i + 1] - row_ptr[i]) : 0;
    const int bits = len == 0 ? 0 : 64 - __clzll(static_cast<long long>(len));
    const int bucket = bits < length_buckets ? bits : length_buckets - 1;
    // Lanes of one bucket (every lane, on a mesh) add to it once.
    const unsigned same = __match_any_sync(full_mask, valid ? bucket : -1);
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    if (valid && lane == __ffs(static_cast<int>(same)) - 1) atomicAdd(&local[bucket], static_cast<unsigned long long>(__popc(same)));
    const unsigned long long longest = group_reduce<32>(len, [](unsigned long long x, unsigned long long y) { return x > y ? x : y; });
    const bool is_long = valid && static_cast<long long>(len) > threshold;
    const unsigned long long chunks = group_sum<32>(is_long ? (len + static_cast<unsigned long long>(chunk) - 1) / chunk : 0ull);
    const unsigned long long pieces = group_sum<32>(is_long ? (len + static_cast<unsigned long long>(piece) - 1) / piece : 0ull);
    const unsigned long_votes = __ballot_sync(full_mask, is_long);
    const unsigned short_votes = __ballot_sync(full_mask, valid && !is_long);
    if (lane == 0) {
        atomicMax(&local_max, longest);
        if (chunks) atomicAdd(&local_chunks, chunks);
        if (pieces) atomicAdd(&local_pieces, pieces);
        warp_long[warp] = static_cast<unsigned>(__popc(long_votes));
        warp_short[warp] = static_cast<unsigned>(__popc(short_votes));
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total_long = 0, total_short = 0;
        for (int w = 0; w < kWarps; ++w) {
            total_long += warp_long[w];
            total_short += warp_short[w];
        }
        block_long = total_long ? atomicAdd(&counters[AnalysisSlots::num_long], total_long) : 0;
        block_short = total_short ? atomicAdd(&counters[AnalysisSlots::num_short], total_short) : 0;
        if (local_chunks) atomicAdd(&counters[AnalysisSlots::num_chunks], local_chunks);
        if (local_pieces) atomicAdd(&counters[AnalysisSlots::num_pieces], local_pieces);
        atomicMax(&counters[AnalysisSlots::max_row], local_max);
    }
    __syncthreads();
    unsigned long long long_base = block_long, short_base = block_short;
    for (int w = 0; w < warp; ++w) {
        long_base += warp_long[w];
        short_base += warp_short[w];
    }
    const unsigned below = (1u << lane) - 1u;
    if (is_long)
        lists[rows - 1 - static_cast<long long>(long_base + __popc(long_votes & below))] = static_cast<I>(i);
    else if (valid)
        lists[short_base + __popc(short_votes & below)] = static_cast<I>(i);
    for (int k = threadIdx.x; k < length_buckets; k += blockDim.x)
        if (local[k]) atomicAdd(&counters[AnalysisSlots::histogram + k], local[k]);
}

// counts[t] = the chunks of long row t.
template <class I>
__global__ void long_row_chunks(const I* row_ptr, const I* long_rows, long long num_long, long long chunk, long long* counts) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= num_long) return;
    const long long row = long_rows[t];
    counts[t] = (static_cast<long long>(row_ptr[row + 1] - row_ptr[row]) + chunk - 1) / chunk;
}

// Chunk first[t] + c of long row t covers its non-zeros from row_ptr[row] + c * chunk. A warp a
// long row (a very long row has thousands of chunks).
template <class I>
__global__ void write_chunks(const I* row_ptr, const I* long_rows, long long num_long, long long chunk, const long long* first,
                             I* chunk_rows, long long* chunk_begin) {
    const long long t = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    if (t >= num_long) return;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const I row = long_rows[t];
    const long long begin = row_ptr[row], len = static_cast<long long>(row_ptr[row + 1]) - begin;
    for (long long c = lane; c * chunk < len; c += 32) {
        chunk_rows[first[t] + c] = row;
        chunk_begin[first[t] + c] = begin + c * chunk;
    }
}

// C(row, :) = beta * C(row, :) for the rows in a list (beta == 0 writes zeros: C may hold NaN).
template <class T, class I>
__global__ void scale_rows(const I* rows, long long count, T* c, long long ldc, long long n, accum_t<T> beta) {
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < count * n;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long k = e / n, col = e % n;
        T* out = c + static_cast<long long>(rows[k]) * ldc + col;
        *out = times_beta(*out, beta);
    }
}

// The deterministic end of a split: C(row, :) = (the row's chunk partials summed in chunk order)
// + beta * C(row, :). Long row t owns partials first[t] .. first[t + 1] - 1, each n wide.
template <class T, class I>
__global__ void combine_chunks(const I* long_rows, long long num_long, const long long* first, const accum_t<T>* partial, T* c,
                               long long ldc, long long n, accum_t<T> beta) {
    using A = accum_t<T>;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < num_long * n;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long t = e / n, col = e % n;
        A sum = 0;
        for (long long k = first[t]; k < first[t + 1]; ++k) sum += partial[k * n + col];
        T* out = c + static_cast<long long>(long_rows[t]) * ldc + col;
        if (beta != A(0)) sum += beta * to_accum(*out);
        *out = from_accum<T>(sum);
    }
}

}  // namespace spk::detail::cuda
