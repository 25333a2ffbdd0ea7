#pragma once
// Plan-time analysis of A on the device, in one pass over row_ptr: a histogram of row lengths
// (log2 buckets), the longest row, and the split of the rows into a short and a long bin at a
// threshold the host chose from nnz / rows alone; when long rows are split, their pieces (row,
// first non-zero) too. The plan queues this one launch and nothing else: the counts reach the
// host through memory it can read (CountSlot), and nothing waits for them until the plan's first use.
#include <cuda_runtime.h>

#include <cub/block/block_radix_sort.cuh>

#include "cuda/common/segment_group.cuh"
#include "cuda/common/values.cuh"

namespace spk::detail::cuda {

constexpr int length_buckets = 34;

// The counters analyse_rows fills (one array of unsigned long long, zero between launches).
struct AnalysisSlots {
    static constexpr int histogram = 0;  // length_buckets entries
    static constexpr int max_row = length_buckets;
    static constexpr int num_short = length_buckets + 1;
    static constexpr int num_long = length_buckets + 2;
    static constexpr int num_pieces = length_buckets + 3;
    static constexpr int count = length_buckets + 4;  // the totals the host reads
    static constexpr int blocks_done = count;         // blocks that have counted (for the last one)
};

// Long rows cut into pieces of `size` non-zeros (size 0: not cut). Piece k covers non-zeros
// [begin[k], begin[k] + size) of row rows[k] (cut at the row's end); a row's pieces are
// consecutive, in the order of its non-zeros. The long row the analysis placed j-th (list[rows -
// 1 - j]) has its first piece at first[max_long - 1 - j]: that array then runs parallel to the
// long-row bin, whatever the bin's length. arrivals[k] is zeroed for every piece.
template <class I>
struct PieceLists {
    long long size = 0;
    long long max_long = 0;    // a bound on the long rows: first's length
    long long max_pieces = 0;  // a bound on the pieces: the length of rows, begin and arrivals
    I* rows = nullptr;
    long long* begin = nullptr;
    long long* first = nullptr;
    unsigned* arrivals = nullptr;
};

__host__ __device__ constexpr long long pieces_of(long long len, long long size) { return (len + size - 1) / size; }

// Short rows sort by length within a block's 256 rows (lengths past this one count as equal):
// the row kernels give a warp 2 to 32 consecutive rows of the list and walk its longest, so rows
// of like length in a warp waste fewer lanes (a power-law graph's, or a graph's empty rows).
constexpr int sort_length_bits = 9;
constexpr unsigned sort_last_key = (1u << sort_length_bits) - 1;  // long rows and threads past the last row

// One thread a row. `counters` start at zero and end at zero: the last block to finish counting
// moves them to `totals` (the host's copy), so no memset or copy is queued around the launch.
// Short rows go to the front of `lists`, long rows (longer than threshold) to its back. The block
// reserves its slots in each list with one global atomic (blocks then follow one another in the
// order they arrive) and places its short rows in them shortest first, rows of one length in row
// order; long rows in no particular order (each row is still computed by one group, and a split
// row's pieces are added in the order of its non-zeros, so results do not depend on either). The
// block gathers the histogram and the longest row before its atomics: a million rows make 3906
// blocks, where an atomic per warp made 31250 on one address (same-address atomics serialise in
// L2, about a nanosecond each: stop 9 measured 125 us for four per warp in the SDDMM statistics).
// A warp then writes its long rows' pieces, a lane a piece.
template <class I>
__global__ void __launch_bounds__(256)
    analyse_rows(const I* row_ptr, long long rows, long long threshold, unsigned long long* counters, unsigned long long* totals, I* lists,
                 const PieceLists<I> pieces) {
    constexpr int kWarps = 256 / 32;
    using ShortRowSort = cub::BlockRadixSort<unsigned, 256, 1, I>;
    __shared__ typename ShortRowSort::TempStorage sort_storage;
    __shared__ unsigned long long local[length_buckets];
    __shared__ unsigned long long local_max;
    __shared__ unsigned warp_long[kWarps], warp_short[kWarps];
    __shared__ unsigned long long warp_pieces[kWarps];
    __shared__ unsigned long long block_long, block_short, block_pieces;
    __shared__ unsigned block_short_count;
    __shared__ bool last_block;
    for (int k = threadIdx.x; k < length_buckets; k += blockDim.x) local[k] = 0;
    if (threadIdx.x == 0) local_max = 0;
    __syncthreads();

    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool valid = i < rows;
    const long long row_begin = valid ? static_cast<long long>(row_ptr[i]) : 0;
    const unsigned long long len = valid ? static_cast<unsigned long long>(static_cast<long long>(row_ptr[i + 1]) - row_begin) : 0;
    const int bits = len == 0 ? 0 : 64 - __clzll(static_cast<long long>(len));
    const int bucket = bits < length_buckets ? bits : length_buckets - 1;
    // Lanes of one bucket (every lane, on a mesh) add to it once.
    const unsigned same = __match_any_sync(full_mask, valid ? bucket : -1);
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    if (valid && lane == __ffs(static_cast<int>(same)) - 1) atomicAdd(&local[bucket], static_cast<unsigned long long>(__popc(same)));
    const unsigned long long longest = group_reduce<32>(len, [](unsigned long long x, unsigned long long y) { return x > y ? x : y; });
    const bool is_long = valid && static_cast<long long>(len) > threshold;
    const unsigned long long my_pieces =
        is_long && pieces.size > 0 ? static_cast<unsigned long long>(pieces_of(static_cast<long long>(len), pieces.size)) : 0ull;
    const unsigned long long pieces_through = warp_inclusive_sum(my_pieces);
    const unsigned long_votes = __ballot_sync(full_mask, is_long);
    const unsigned short_votes = __ballot_sync(full_mask, valid && !is_long);
    if (lane == 0) {
        atomicMax(&local_max, longest);
        warp_long[warp] = static_cast<unsigned>(__popc(long_votes));
        warp_short[warp] = static_cast<unsigned>(__popc(short_votes));
    }
    if (lane == 31) warp_pieces[warp] = pieces_through;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total_long = 0, total_short = 0, total_pieces = 0;
        for (int w = 0; w < kWarps; ++w) {
            total_long += warp_long[w];
            total_short += warp_short[w];
            total_pieces += warp_pieces[w];
        }
        block_long = total_long ? atomicAdd(&counters[AnalysisSlots::num_long], total_long) : 0;
        block_short = total_short ? atomicAdd(&counters[AnalysisSlots::num_short], total_short) : 0;
        block_short_count = static_cast<unsigned>(total_short);
        block_pieces = total_pieces ? atomicAdd(&counters[AnalysisSlots::num_pieces], total_pieces) : 0;
        atomicMax(&counters[AnalysisSlots::max_row], local_max);
    }
    __syncthreads();
    unsigned long long long_base = block_long, piece_base = block_pieces;
    for (int w = 0; w < warp; ++w) {
        long_base += warp_long[w];
        piece_base += warp_pieces[w];
    }
    const unsigned below = (1u << lane) - 1u;
    const long long first_piece = static_cast<long long>(piece_base + pieces_through - my_pieces);
    if (is_long) {
        const long long j = static_cast<long long>(long_base + __popc(long_votes & below));
        lists[rows - 1 - j] = static_cast<I>(i);
        if (pieces.size > 0 && j < pieces.max_long) pieces.first[pieces.max_long - 1 - j] = first_piece;
    }
    // The block's short rows, shortest first: thread t holds the t-th after the sort.
    unsigned key[1] = {valid && !is_long ? static_cast<unsigned>(len < sort_last_key ? len : sort_last_key - 1) : sort_last_key};
    I row_of_key[1] = {static_cast<I>(valid ? i : 0)};
    ShortRowSort(sort_storage).Sort(key, row_of_key, 0, sort_length_bits);
    if (threadIdx.x < block_short_count) lists[block_short + threadIdx.x] = row_of_key[0];
    for (int k = threadIdx.x; k < length_buckets; k += blockDim.x)
        if (local[k]) atomicAdd(&counters[AnalysisSlots::histogram + k], local[k]);
    __threadfence();  // this block's counts are in before it counts itself done
    __syncthreads();
    if (threadIdx.x == 0) last_block = atomicAdd(&counters[AnalysisSlots::blocks_done], 1ull) == gridDim.x - 1;
    __syncthreads();
    if (last_block) {
        __threadfence();
        for (int k = threadIdx.x; k < AnalysisSlots::count; k += blockDim.x) totals[k] = atomicExch(&counters[k], 0ull);
        if (threadIdx.x == 0) counters[AnalysisSlots::blocks_done] = 0;
    }

    if (pieces.size == 0) return;
    // The warp's long rows one after another, a lane a piece (a very long row has thousands).
    for (unsigned pending = long_votes; pending != 0; pending &= pending - 1) {
        const int src = __ffs(static_cast<int>(pending)) - 1;
        const long long row = __shfl_sync(full_mask, i, src), begin = __shfl_sync(full_mask, row_begin, src);
        const long long at = __shfl_sync(full_mask, first_piece, src);
        const long long count = static_cast<long long>(__shfl_sync(full_mask, my_pieces, src));
        // An invalid row_ptr (lengths adding up to more than nnz) could count past the bound: the
        // host rejects such counts (read_counts), the kernel writes nothing past the arrays.
        for (long long c = lane; c < count && at + c < pieces.max_pieces; c += 32) {
            pieces.rows[at + c] = static_cast<I>(row);
            pieces.begin[at + c] = begin + c * pieces.size;
            pieces.arrivals[at + c] = 0;
        }
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
// + beta * C(row, :). Long row t (of length len) owns partials first[t] .. first[t] +
// pieces_of(len, chunk) - 1, each n wide.
template <class T, class I>
__global__ void combine_chunks(const I* row_ptr, const I* long_rows, long long num_long, const long long* first, long long chunk,
                               const accum_t<T>* partial, T* c, long long ldc, long long n, accum_t<T> beta) {
    using A = accum_t<T>;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < num_long * n;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long t = e / n, col = e % n;
        const long long row = long_rows[t];
        const long long end = first[t] + pieces_of(static_cast<long long>(row_ptr[row + 1]) - static_cast<long long>(row_ptr[row]), chunk);
        A sum = 0;
        for (long long k = first[t]; k < end; ++k) sum += partial[k * n + col];
        T* out = c + row * ldc + col;
        if (beta != A(0)) sum += beta * to_accum(*out);
        *out = from_accum<T>(sum);
    }
}

}  // namespace spk::detail::cuda
