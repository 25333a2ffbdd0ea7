#pragma once
// Numeric reuse with each product's place kept (SpgemmReuse::places; SpgemmReuse::entries starts
// from these places). At the first recompute, once the hash kernels have written C's sorted
// columns, record_places finds every scalar product's place in its row of C by the tree descent
// of reuse_rows and stores it; later
// recomputes run replay_rows, which reads the places and combines each product into a
// shared-memory array of the row's values in column order: no descent, no read of B's columns.
// Per product the replay reads 2 bytes of place and B's value, where the search reads B's column
// and descends a tree of depth up to 13 (elasticity 40^3 x 3, 1.2 billion products: a 10.7 ms
// recompute on the H200, 2.5x cuSPARSE's reuse, which keeps about 30 bytes a product).
// Why 16 bits: rows outside the global bin have at most 4096 entries (bin_of), so a place and
// kNoPlace fit. The global bin's rows, too long for a shared-memory array, get 32-bit places
// (found by binary search in C's columns) and replay a block a row straight into C's values in
// global memory, by atomics that stay in L2 (soc-Slashdot0902's square: most products are in
// such rows, and its hash recompute took 4.96 ms against cuSPARSE's 0.66).
#include <cstdint>

#include "cuda/spgemm/binning.cuh"
#include "cuda/spgemm/numeric_reuse_kernels.cuh"

namespace spk::detail::cuda::spgemm {

using place_t = std::uint16_t;
inline constexpr place_t kNoPlace = 0xffff;  // the product misses C's row (a mask dropped it)
using global_place_t = std::uint32_t;
inline constexpr global_place_t kNoGlobalPlace = 0xffffffffu;

// The products of A's entry pa that get places, counts[pa] (rows of bins 1 to 7) or
// global_counts[pa] (the global bin's rows): B's row length in one, 0 in the other (0 in both
// for empty rows of C). A warp a row of A.
template <class I>
__global__ void count_placed_products(const I* a_ptr, const I* a_col, const I* b_ptr, const I* c_ptr, long long rows, long long* counts,
                                      long long* global_counts) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    for (long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; row < rows; row += warps) {
        const int bin = bin_of(static_cast<long long>(c_ptr[row + 1]) - c_ptr[row]);
        for (long long pa = a_ptr[row] + lane; pa < a_ptr[row + 1]; pa += 32) {
            const I k = a_col[pa];
            const long long products = bin == 0 ? 0 : static_cast<long long>(b_ptr[k + 1]) - b_ptr[k];
            counts[pa] = bin == kGlobalBin ? 0 : products;
            global_counts[pa] = bin == kGlobalBin ? products : 0;
        }
    }
}

// The in-order rank (1-based) of node k of a complete tree of 2^depth - 1 nodes: tree_node's inverse.
__device__ __forceinline__ unsigned rank_of_node(unsigned k, int depth) {
    const int level = 31 - __clz(static_cast<int>(k));
    return ((k - (1u << level)) * 2 + 1) << (depth - 1 - level);
}

// A's entry pa for a sub-group, with the index of its first product's place.
template <class V, class I>
__device__ __forceinline__ EntryOfA<V, I> placed_entry_of_a(const ReuseArgs<V, I>& p, long long pa, long long a_end, long long& offset) {
    offset = pa < a_end ? p.entry_offset[pa] : 0;
    return entry_of_a(p, pa, a_end);
}

// Writes places[entry_offset[pa] + (q - b_ptr[k])] for every product of the group's rows.
template <class V, class I, class G>
__global__ void record_places(ReuseArgs<V, I> p) {
    constexpr I kAbsent = kAbsentColumn<I>;
    extern __shared__ __align__(16) unsigned char smem[];
    I* const tree = reinterpret_cast<I*>(group_slice<G>(smem, p.log2_capacity, sizeof(I)));
    const int sub = G::rank() / p.width, lane = G::rank() % p.width, subs = G::size() / p.width;
    for_each_group_row<G>(p, [&](const RowSpan& span) {
        const auto [start, len, a_begin, a_end] = span;
        const I* cols = p.c_col + start;
        const int depth = ceil_log2(len + 1);
        const unsigned size = 1u << depth;
        for (unsigned t = static_cast<unsigned>(G::rank()); t < size; t += static_cast<unsigned>(G::size()))
            tree[t == 0 ? 0u : tree_node(t, size)] = t >= 1 && t <= static_cast<unsigned>(len) ? cols[t - 1] : kAbsent;
        G::sync();
        for (long long pa = a_begin + sub; pa < a_end; pa += subs) {  // no collective step inside: no rounds to keep
            long long offset = 0;
            const EntryOfA<V, I> e = placed_entry_of_a(p, pa, a_end, offset);
            for (long long q = e.b_begin + lane; q < e.b_end; q += p.width) {
                const I j = p.b_col[q];
                const unsigned node = find_node(tree, depth, j);  // node 0 holds kAbsent, never a column
                p.places[offset + (q - e.b_begin)] = tree[node] == j ? static_cast<place_t>(rank_of_node(node, depth) - 1) : kNoPlace;
            }
        }
        G::sync();  // the next tree overwrites this one
    });
}

// C's values of the group's rows from the places: each product combines into its value slot by a
// shared-memory atomic, and the row's values leave in column order, coalesced.
template <class Op, class V, class I, class G>
__global__ void replay_rows(ReuseArgs<V, I> p) {
    extern __shared__ __align__(16) unsigned char smem[];
    V* const values = reinterpret_cast<V*>(group_slice<G>(smem, p.log2_capacity, sizeof(V)));
    const int sub = G::rank() / p.width, lane = G::rank() % p.width, subs = G::size() / p.width;
    const bool exclusive = owns_distinct_slots(p.b_rows_increasing, subs, G::size());
    for_each_group_row<G>(p, [&](const RowSpan& span) {
        const auto [start, len, a_begin, a_end] = span;
        long long offset = 0;
        EntryOfA<V, I> e = placed_entry_of_a(p, a_begin + sub, a_end, offset);
        for (long long t = G::rank(); t < len; t += G::size()) values[t] = initial_value<Op, V>();
        G::sync();
        // As in reuse_rows: every sub-group runs the same rounds, and each round's next entry and
        // each product's next operands load before the current product combines.
        for (long long round = a_begin; round < a_end; round += subs) {
            long long next_offset = 0;
            const EntryOfA<V, I> next = placed_entry_of_a(p, round + subs + sub, a_end, next_offset);
            const long long base = offset - e.b_begin;  // product q's place: places[base + q]
            long long q = e.b_begin + lane;
            place_t at = kNoPlace;
            V b = V(0);
            if (q < e.b_end) {
                at = p.places[base + q];
                b = p.b_val[q];
            }
            while (q < e.b_end) {
                const long long q_next = q + p.width;
                place_t at_next = kNoPlace;
                V b_next = V(0);
                if (q_next < e.b_end) {
                    at_next = p.places[base + q_next];
                    b_next = p.b_val[q_next];
                }
                if (at != kNoPlace) combine<Op>(values + at, Op::multiply(e.value, b), exclusive);
                q = q_next;
                at = at_next;
                b = b_next;
            }
            G::converge();
            e = next;
            offset = next_offset;
        }
        G::sync();
        for (long long t = G::rank(); t < len; t += G::size()) p.c_val[start + t] = values[t];
        G::sync();  // the next row's values overwrite these
    });
}

// As record_places for the global bin's rows: 32-bit places, found by binary search in C's row.
template <class V, class I>
__global__ void record_global_places(ReuseArgs<V, I> p, global_place_t* places, const long long* entry_offset) {
    const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
    const int warps = static_cast<int>(blockDim.x) >> 5;
    for (long long r = blockIdx.x; r < p.num_rows; r += gridDim.x) {
        const long long row = p.rows[r];
        const long long start = p.c_ptr[row], len = p.c_ptr[row + 1] - start;
        const I* cols = p.c_col + start;
        for (long long pa = p.a_ptr[row] + warp; pa < p.a_ptr[row + 1]; pa += warps) {
            const I k = p.a_col[pa];
            const long long b_begin = p.b_ptr[k], b_end = p.b_ptr[k + 1], offset = entry_offset[pa] - b_begin;
            for (long long q = b_begin + lane; q < b_end; q += 32) {
                const I j = p.b_col[q];
                const long long at = lower_bound(cols, len, static_cast<long long>(j));
                places[offset + q] = at < len && cols[at] == j ? static_cast<global_place_t>(at) : kNoGlobalPlace;
            }
        }
    }
}

// C's values of the global bin's rows from their places, a block a row: the row's values start
// at the identity, then every product combines into its value in C by a global atomic.
template <class Op, class V, class I>
__global__ void replay_global_rows(ReuseArgs<V, I> p, const global_place_t* places, const long long* entry_offset) {
    const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
    const int warps = static_cast<int>(blockDim.x) >> 5;
    for (long long r = blockIdx.x; r < p.num_rows; r += gridDim.x) {
        const long long row = p.rows[r];
        const long long start = p.c_ptr[row], len = p.c_ptr[row + 1] - start;
        V* const values = p.c_val + start;
        for (long long t = threadIdx.x; t < len; t += blockDim.x) values[t] = initial_value<Op, V>();
        __syncthreads();  // every value starts before any product combines into it
        for (long long pa = p.a_ptr[row] + warp; pa < p.a_ptr[row + 1]; pa += warps) {
            const I k = p.a_col[pa];
            const V a = p.a_val[pa];
            const long long b_begin = p.b_ptr[k], b_end = p.b_ptr[k + 1], offset = entry_offset[pa] - b_begin;
            for (long long q = b_begin + lane; q < b_end; q += 32) {
                const global_place_t at = places[offset + q];
                if (at != kNoGlobalPlace) atomic_combine<Op>(values + at, Op::multiply(a, p.b_val[q]));
            }
        }
        // The next row's values are others: no wait here.
    }
}

}  // namespace spk::detail::cuda::spgemm
