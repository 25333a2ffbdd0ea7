#pragma once
// The symbolic phase's shortcut for rows of C with few products (a 7-point stencil's square: 49;
// a uniform random 16-a-row matrix's square: 256): one kernel counts each short row exactly from
// B's columns (8 to 32 lanes a row, a 128-slot shared table of columns, a product counted where
// its column is new and the mask allows it), a second each medium row (a warp a row, its products'
// columns sorted in registers and the distinct ones counted), and both bin it for the numeric
// phase, so that a matrix of such rows needs no compressed B, no binning by need and no symbolic
// tables: two kernels and one read-back. Rows with more products are marked for the general path
// (symbolic.cu).
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cuda_runtime.hpp"
#include "core/spgemm_kernels.hpp"
#include "cuda/spgemm/binning.cuh"
#include "cuda/spgemm/device_table.cuh"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/warp_expand.cuh"
#include "cuda/spgemm/warp_sort.cuh"

namespace spk::detail::cuda::spgemm {

inline constexpr int kShortProducts = 64;     // a row of C with at most this many products is short
inline constexpr int kShortLog2Capacity = 7;  // its table: 128 slots, load 1/2 at most
inline constexpr int kShortThreads = 128;
// A row of C with more products than kShortProducts and at most kMediumProducts, from at most 32
// entries of A, is medium where columns fit 32 bits: a warp sorts its columns in registers (E
// words a lane), no table and no atomics. The symbolic hash kernel spent 8 warp instructions a
// product on such rows (uniform 1M x 16 squared, H200 profile), 18 of 32 lanes active.
inline constexpr int kMediumProducts = 256, kMediumWords = kMediumProducts / 32;
inline constexpr long long kLongRow = -1;    // row_nnz of a row left to the general path
inline constexpr long long kMediumRow = -2;  // row_nnz of a row count_medium_rows counts

// The words the symbolic phase reads back, each time in one copy: count_bins' totals (by C's row
// lengths here), the long rows, whether a row of B that A reaches repeats or decreases a column,
// B's (block, bits) pairs; then the scatter's cursors, which stay on the device.
namespace plan_word {
inline constexpr int totals = 0, long_rows = kBinTotals, unordered = long_rows + 1, pairs = unordered + 1;
inline constexpr int read = pairs + 1, cursors = read, all = cursors + kBins;
}  // namespace plan_word

template <class I>
struct ShortRowArgs {
    const I* a_ptr;
    const I* a_col;
    const I* b_ptr;
    const I* b_col;
    bool masked;  // explicit: an empty mask's columns may be a null pointer
    bool complement;
    const I* m_ptr;
    const I* m_col;  // sorted within each row
    long long rows;
    long long* row_nnz;
    unsigned long long* words;  // plan_word's layout, zeroed
};

// A block's tallies of the rows it counted, for plan_word's words: each lane of a group of S counts
// the rows of two numeric bins (rank and rank + S); the group's first lane the sum and the largest
// length. flush adds them to the block's words, then a thread a word to the global words.
template <int S>
struct RowTally {
    static_assert(kBins <= 2 * S, "a lane tallies two bins");
    static_assert(plan_word::read <= kShortThreads, "a thread per word folds the block's tallies");
    unsigned long long low_bin_rows = 0, high_bin_rows = 0, sum = 0, largest = 0, long_rows = 0;
    bool increasing = true;  // B's rows the lane read strictly increase

    __device__ void add(unsigned long long count, int rank) {
        const int bin = bin_of(static_cast<long long>(count));
        low_bin_rows += bin == rank;
        high_bin_rows += bin == rank + S;
        sum += count;
        largest = count > largest ? count : largest;
    }
    // Every thread of the block calls it; block_words: plan_word::read zeroed words.
    __device__ void flush(int rank, unsigned long long* block_words, unsigned long long* words) const {
        if (low_bin_rows) atomicAdd(&block_words[plan_word::totals + rank], low_bin_rows);
        if (high_bin_rows) atomicAdd(&block_words[plan_word::totals + rank + S], high_bin_rows);
        if (rank == 0) {
            if (largest) atomicMax(&block_words[plan_word::totals + kBins], largest);
            if (sum) atomicAdd(&block_words[plan_word::totals + kBins + 1], sum);
            if (long_rows) atomicAdd(&block_words[plan_word::long_rows], long_rows);
        }
        if (!__all_sync(kFullMask, increasing) && (threadIdx.x & 31) == 0) block_words[plan_word::unordered] = 1;
        __syncthreads();
        const unsigned w = threadIdx.x;
        if (w < plan_word::read && block_words[w]) {
            if (w == plan_word::totals + kBins)
                atomicMax(&words[w], block_words[w]);
            else
                atomicAdd(&words[w], block_words[w]);
        }
    }
};

// Whether the table (keys, empty ~0) did not hold key, which is now in it.
template <class K>
__device__ __forceinline__ bool insert_new(K* keys, K key) {
    constexpr K kEmpty = ~K(0);
    constexpr unsigned mask = (1u << kShortLog2Capacity) - 1;
#pragma unroll 1  // a probe or two is the rule: unrolled copies would only crowd the instruction cache
    for (unsigned s = home_slot(key, kShortLog2Capacity), probe = 0; probe <= mask; ++probe, s = (s + 1) & mask) {
        K k = *reinterpret_cast<volatile K*>(keys + s);
        if (k == kEmpty) {
            k = atomicCAS(keys + s, kEmpty, key);
            if (k == kEmpty) return true;
        }
        if (k == key) return false;
    }
    return false;  // full: more distinct columns than products, a corrupted input
}

// S lanes per row of A (rows strided over the grid), each lane on entries of A rank, rank + S, ...
// and the whole row of B each reaches (a short row has at most kShortProducts products, so no
// lane waits long for another; with S at least the row's entries, a lane's first entry is its
// only one and its loads serve both passes). A short row's count to row_nnz, and its numeric bin,
// length and the largest length to words (RowTally); a medium one's kMediumRow (where kMedium,
// columns of 32 bits), a long one's kLongRow, and one more long row.
template <class I, int S, bool kMedium>
__global__ void count_short_rows(ShortRowArgs<I> p) {
    using K = key_t<I>;
    constexpr int kGroups = kShortThreads / S, kCapacity = 1 << kShortLog2Capacity;
    constexpr int kBound = kMedium ? kMediumProducts : kShortProducts;  // a lane's share counts up to it
    static_assert(S >= 8 && S <= 32 && (S & (S - 1)) == 0, "S lanes, a power of two, at least 8 and at most a warp");
    __shared__ __align__(16) K tables[kGroups][kCapacity];
    __shared__ unsigned long long block_words[plan_word::read];
    if (threadIdx.x < plan_word::read) block_words[threadIdx.x] = 0;
    __syncthreads();
    const int rank = static_cast<int>(threadIdx.x) % S, group = static_cast<int>(threadIdx.x) / S;
    const unsigned lanes = S == 32 ? kFullMask : ((1u << S) - 1u) << (static_cast<int>(threadIdx.x) & 31 & ~(S - 1));
    K* table = tables[group];
    RowTally<S> tally;
    const long long step = static_cast<long long>(gridDim.x) * kGroups;
    for (long long row = static_cast<long long>(blockIdx.x) * kGroups + group; row < p.rows; row += step) {
        const I a_begin = p.a_ptr[row], a_end = p.a_ptr[row + 1];
        // The row's products, each lane's share clamped past the bound (the sum exceeds the bound
        // exactly when the products do). A long row has products, so the general path gives it
        // a need and counts it.
        I first_begin = 0, first_end = 0;  // the row of B that the lane's first entry reaches
        if (a_begin + rank < a_end) {
            const I k = p.a_col[a_begin + rank];
            first_begin = p.b_ptr[k];
            first_end = p.b_ptr[k + 1];
        }
        long long mine = static_cast<long long>(first_end - first_begin);
        // A lane stops past the bound: a hub row of A is long after its first few entries.
        for (I pa = a_begin + rank + S; pa < a_end && mine <= kBound; pa += S) {
            const I k = p.a_col[pa];
            mine += static_cast<long long>(p.b_ptr[k + 1] - p.b_ptr[k]);
        }
        const unsigned products = __reduce_add_sync(lanes, static_cast<unsigned>(mine <= kBound ? mine : kBound + 1));
        if (products > kShortProducts) {
            const bool medium = kMedium && products <= kMediumProducts && a_end - a_begin <= 32;
            if (rank == 0) p.row_nnz[row] = medium ? kMediumRow : kLongRow;
            tally.long_rows += !medium;
            continue;
        }
        __syncwarp(lanes);  // the previous row's inserts are done before its table is cleared
        for (int s = rank; s < kCapacity * static_cast<int>(sizeof(K)) / 16; s += S)
            reinterpret_cast<uint4*>(table)[s] = make_uint4(~0u, ~0u, ~0u, ~0u);
        __syncwarp(lanes);
        const I* mask = p.masked ? p.m_col + p.m_ptr[row] : nullptr;
        const long long mask_len = p.masked ? static_cast<long long>(p.m_ptr[row + 1] - p.m_ptr[row]) : 0;
        unsigned fresh = 0;
        I q_begin = first_begin, q_end = first_end;
        for (I pa = a_begin + rank; pa < a_end; pa += S) {
            if (pa != a_begin + rank) {
                const I k = p.a_col[pa];
                q_begin = p.b_ptr[k];
                q_end = p.b_ptr[k + 1];
            }
            I previous = 0;
            for (I q = q_begin; q < q_end; ++q) {
                const I j = p.b_col[q];
                if (q > q_begin && previous >= j) tally.increasing = false;
                previous = j;
                if (p.masked && contains(mask, mask_len, static_cast<long long>(j)) == p.complement) continue;
                fresh += insert_new(table, static_cast<K>(j));
            }
        }
        const unsigned count = __reduce_add_sync(lanes, fresh);
        if (rank == 0) p.row_nnz[row] = count;
        tally.add(count, rank);
    }
    tally.flush(rank, block_words, p.words);
}

// A warp a row of C that count_short_rows marked medium (columns of 32 bits): the row's products'
// columns (at most kMediumProducts, from at most 32 entries of A, one a lane) in E registers a
// lane, ~0 where the product is past the last or the mask drops it, sorted (warp_sort.cuh); the
// count is the places whose column differs from the place before. Product g (word g / 32 of lane
// g % 32, coalesced within each row of B) belongs to the last entry of A whose first product is
// at most g: a binary search over the lanes' exclusive sums of B's row lengths, by shuffles.
template <class I>
__global__ void count_medium_rows(ShortRowArgs<I> p) {
    static_assert(sizeof(I) == 4, "columns of 32 bits");
    constexpr unsigned kPast = ~0u;  // above every column (at most 2^31 - 1)
    __shared__ unsigned long long block_words[plan_word::read];
    if (threadIdx.x < plan_word::read) block_words[threadIdx.x] = 0;
    __syncthreads();
    const int lane = static_cast<int>(threadIdx.x & 31);
    RowTally<32> tally;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    // The warp's rows (warp, warp + warps, ...) 32 at a time: a lane reads one's mark, so that rows
    // of other kinds cost a load in parallel, not a load in turn (2M short rows of Laplace 128^3
    // took 0.2 ms one at a time).
    for (long long round = 0; warp + round * 32 * warps < p.rows; ++round) {
        const long long mine = warp + (round * 32 + lane) * warps;
        for (unsigned medium = __ballot_sync(kFullMask, mine < p.rows && p.row_nnz[mine] == kMediumRow); medium; medium &= medium - 1) {
            const long long row = warp + (round * 32 + __ffs(medium) - 1) * warps;
            const I a_begin = p.a_ptr[row], a_len = p.a_ptr[row + 1] - a_begin;
            long long b_begin = 0;
            unsigned len = 0;
            if (lane < a_len) {
                const I k = p.a_col[a_begin + lane];
                b_begin = p.b_ptr[k];
                len = static_cast<unsigned>(p.b_ptr[k + 1] - b_begin);
            }
            const unsigned upto = warp_inclusive_sum(len);
            const unsigned products = __shfl_sync(kFullMask, upto, 31);
            const unsigned first = upto - len;  // the lane's entry's first product
            const I* mask = p.masked ? p.m_col + p.m_ptr[row] : nullptr;
            const long long mask_len = p.masked ? static_cast<long long>(p.m_ptr[row + 1] - p.m_ptr[row]) : 0;
            unsigned word[kMediumWords];
            unsigned before = 0;  // the column of the product before this round's first
#pragma unroll
            for (int t = 0; t < kMediumWords; ++t) {
                const unsigned g = static_cast<unsigned>(t * 32 + lane);
                const int e = lane_of_product(first, g);
                const long long e_begin = __shfl_sync(kFullMask, b_begin, e);
                const unsigned e_first = __shfl_sync(kFullMask, first, e);
                const unsigned col = g < products ? static_cast<unsigned>(p.b_col[e_begin + (g - e_first)]) : kPast;
                const unsigned previous = __shfl_up_sync(kFullMask, col, 1);
                if (g < products && g > e_first && (lane == 0 ? before : previous) >= col) tally.increasing = false;
                before = __shfl_sync(kFullMask, col, 31);
                const bool dropped = g < products && p.masked && contains(mask, mask_len, static_cast<long long>(col)) == p.complement;
                word[t] = dropped ? kPast : col;
            }
            warp_bitonic_sort(word);
            const unsigned last_below = __shfl_up_sync(kFullMask, word[kMediumWords - 1], 1);
            unsigned fresh = 0;
#pragma unroll
            for (int t = 0; t < kMediumWords; ++t) {
                const unsigned previous = t > 0 ? word[t - 1] : last_below;
                fresh += word[t] != kPast && (lane * kMediumWords + t == 0 || word[t] != previous);
            }
            const unsigned count = __reduce_add_sync(kFullMask, fresh);
            if (lane == 0) p.row_nnz[row] = count;
            tally.add(count, lane);
        }
    }
    tally.flush(lane, block_words, p.words);
}

// Medium rows where C's columns are 32-bit.
template <class I>
inline constexpr bool kMediumRows = sizeof(I) == 4;

// Whether the short- and medium-row counts are worth a try: when the average row of A times the
// average row of B is short (or medium, where I allows it), most rows of C likely are (a matrix of
// long rows would pay a pass for nothing).
template <class I>
bool short_rows_likely(long long a_rows, long long a_nnz, long long b_rows, long long b_nnz) {
    if (a_rows == 0 || b_rows == 0) return false;
    return static_cast<double>(a_nnz) / static_cast<double>(a_rows) * (static_cast<double>(b_nnz) / static_cast<double>(b_rows)) <=
           (kMediumRows<I> ? kMediumProducts : kShortProducts);
}

// As many blocks as run at once (no second wave of a few blocks at low occupancy), no more than
// the rows' groups of group_lanes need.
template <class I>
void launch_resident(const Executor& exec, void (*kernel)(ShortRowArgs<I>), int group_lanes, const ShortRowArgs<I>& args) {
    const int groups = kShortThreads / group_lanes;
    int per_sm = 0;
    SPK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kShortThreads, 0));
    const long long resident = static_cast<long long>(device_properties(exec.device()).sm_count) * std::max(per_sm, 1);
    const long long blocks = std::min<long long>((args.rows + groups - 1) / groups, resident);
    kernel<<<static_cast<unsigned>(blocks), kShortThreads, 0, stream_of(exec)>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

// Queues count_short_rows over all rows of C, S lanes a row from A's average row, then (columns
// of 32 bits) count_medium_rows; words: plan_word::all zeroed words. mask_cols: the mask's columns
// sorted within each row (null without a mask).
template <class V, class I>
void queue_short_row_counts(const Executor& exec, const SpgemmProblem<V, I>& p, const I* mask_cols, long long* row_nnz,
                            unsigned long long* words) {
    if (p.a.rows == 0) return;
    ShortRowArgs<I> args{};
    args.a_ptr = p.a.row_ptr;
    args.a_col = p.a.col_idx;
    args.b_ptr = p.b.row_ptr;
    args.b_col = p.b.col_idx;
    args.masked = p.mask.has_value();
    args.complement = p.complement_mask;
    args.m_ptr = p.mask ? p.mask->row_ptr : nullptr;
    args.m_col = mask_cols;
    args.rows = p.a.rows;
    args.row_nnz = row_nnz;
    args.words = words;
    constexpr bool kMedium = kMediumRows<I>;
    const int lanes = entry_width(p.a.nnz, p.a.rows);
    if (lanes <= 8)
        launch_resident(exec, count_short_rows<I, 8, kMedium>, 8, args);
    else if (lanes <= 16)
        launch_resident(exec, count_short_rows<I, 16, kMedium>, 16, args);
    else
        launch_resident(exec, count_short_rows<I, 32, kMedium>, 32, args);
    if constexpr (kMedium) launch_resident(exec, count_medium_rows<I>, 32, args);
}

}  // namespace spk::detail::cuda::spgemm
