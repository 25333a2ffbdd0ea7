#pragma once
// The numeric phase's medium warp rows without a hash table (expand, sort, compress): each of a
// row's products as one 64-bit word in registers, its column above its index, sorted by the warp
// (warp_sort.cuh); the runs of equal columns then combine by a segmented scan and leave in
// order. The products' values wait in shared memory (the row's table space) and are read by index
// after the sort. No slot claimed, no atomic add, no compaction: the hash path spends a
// compare-and-swap to claim each product's slot and, for doubles on sm_90, a compare-and-swap
// loop to add it (shared-memory f64 atomics), then orders the filled slots anyway.
#include <cuda_runtime.h>

#include "cuda/spgemm/device_table.cuh"
#include "cuda/spgemm/warp_expand.cuh"
#include "cuda/spgemm/warp_sort.cuh"

namespace spk::detail::cuda::spgemm {

// What a row's products need beyond A's entries: B and the row's mask (columns sorted).
template <class V, class I>
struct ProductSource {
    const I* b_col;
    const V* b_val;
    bool masked;     // explicit: an empty mask's columns may be a null pointer
    const I* mask;   // the row's mask columns
    long long mask_len;
    bool complement;
};

// A's entry of a row that a lane holds: its value, where its row of B starts, how many products
// it gives and the first of them (an exclusive sum over the lanes).
template <class V>
struct LaneEntry {
    V value;
    long long b_begin;
    unsigned count, first;
};

// The row's products (products of them, at most 32 * E, from the lanes' entries) combined into
// C's row out_col/out_val (len entries, columns ascending). staged: room for `products` values.
// Every lane of the warp calls it.
template <int E, class Op, class V, class I>
__device__ void combine_sorted_products(const ProductSource<V, I>& src, const LaneEntry<V>& mine, unsigned products, V* staged, I* out_col,
                                        V* out_val) {
    constexpr unsigned kPast = ~0u;  // the column of a product past the last or dropped by the mask
    const int lane = static_cast<int>(threadIdx.x & 31);
    unsigned long long word[E];
#pragma unroll
    for (int t = 0; t < E; ++t) {  // product g = 32t + lane: coalesced within each row of B
        const unsigned g = static_cast<unsigned>(t * 32 + lane);
        const int e = lane_of_product(mine.first, g);
        const long long e_begin = __shfl_sync(kFullMask, mine.b_begin, e);
        const unsigned e_first = __shfl_sync(kFullMask, mine.first, e);
        const V e_value = __shfl_sync(kFullMask, mine.value, e);
        word[t] = ~0ull;
        if (g < products) {
            const long long q = e_begin + (g - e_first);
            const I j = src.b_col[q];
            if (!src.masked || contains(src.mask, src.mask_len, static_cast<long long>(j)) != src.complement) {
                staged[g] = Op::multiply(e_value, src.b_val[q]);
                word[t] = static_cast<unsigned long long>(static_cast<unsigned>(j)) << 32 | g;
            }
        }
    }
    __syncwarp();  // the staged values, for every lane
    warp_bitonic_sort(word);

    // Place lane * E + t holds word[t]. A run of equal columns starts at a head; its value is the
    // combination of its products, complete at its last place. Pass 1: the lane's heads and the
    // value of its last run so far; a segmented scan over the lanes carries each run's value
    // across the lanes it spans. Pass 2 recombines with that carry and writes each run's end.
    const auto column = [&](int t) { return static_cast<unsigned>(word[t] >> 32); };
    const unsigned last_below = __shfl_up_sync(kFullMask, column(E - 1), 1);
    const auto is_head = [&](int t) {
        const unsigned before = t > 0 ? column(t - 1) : last_below;
        return column(t) != kPast && ((lane == 0 && t == 0) || column(t) != before);
    };
    const auto value = [&](int t) { return column(t) != kPast ? staged[static_cast<unsigned>(word[t])] : V(0); };
    V run = V(0);
    unsigned heads = 0;
#pragma unroll
    for (int t = 0; t < E; ++t) {
        const bool head = is_head(t);
        run = t == 0 || head ? value(t) : Op::add(run, value(t));
        heads += head;
    }
    // Inclusive segmented scan of (lane has a head, run) over the lanes.
    bool closed = heads > 0;
    V carried = run;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const V below = __shfl_up_sync(kFullMask, carried, o);
        const bool below_closed = __shfl_up_sync(kFullMask, closed, o);
        if (lane >= o) {
            if (!closed) carried = Op::add(below, carried);
            closed = closed || below_closed;
        }
    }
    const V carry = __shfl_up_sync(kFullMask, carried, 1);  // the run open at the end of the lane before
    unsigned written = heads;  // an exclusive scan of the heads: this lane's first run's place in C
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned below = __shfl_up_sync(kFullMask, written, o);
        if (lane >= o) written += below;
    }
    written -= heads;
    const unsigned first_above = __shfl_down_sync(kFullMask, column(0), 1);
#pragma unroll
    for (int t = 0; t < E; ++t) {
        const bool head = is_head(t);
        if (t == 0)
            run = head || lane == 0 ? value(0) : Op::add(carry, value(0));
        else
            run = head ? value(t) : Op::add(run, value(t));
        written += head;
        const unsigned next = t + 1 < E ? column(t + 1) : (lane < 31 ? first_above : kPast);
        if (column(t) != kPast && next != column(t)) {
            out_col[written - 1] = static_cast<I>(column(t));
            out_val[written - 1] = run;
        }
    }
    __syncwarp();  // the next row overwrites the staged values
}

}  // namespace spk::detail::cuda::spgemm
