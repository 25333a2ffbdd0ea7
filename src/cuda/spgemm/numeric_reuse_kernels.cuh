#pragma once
// Numeric-reuse kernel (SpgemmPlan::recompute once C's sorted columns are known): no hash keys
// to claim and no sort. The group that owns a row (a warp, or a block for long rows) lays C's
// columns for the row out in shared memory as a complete binary search tree in breadth-first
// (Eytzinger) order, with a value accumulator beside each node; each product A(i,k) B(k,j) finds
// j's node by a branch-free descent of the same depth for every lane (lanes stay converged) and
// combines into its accumulator by a shared-memory atomic; the accumulators then leave in column
// order, coalesced. A product whose column is not in the row (only under a mask or its
// complement, which C's pattern already obeys) finds no equal node and is dropped, so the mask
// itself is never read.
// Why a tree and not a sorted array: a binary search of a sorted array reads addresses a power
// of two apart, in one bank, while a tree level is contiguous. Counted on the host for a warp's
// 32 lookups of random columns of the row: 13.7 shared-memory wavefronts a descent for rows of
// 375 (depth 9), 51.5 for the sorted array; 17 vs 85 for rows of 1000. (An XOR swizzle of the
// deep levels did not lower the count.)
// Rows whose tree would not fit in shared memory (the global bin) are not for this kernel: in
// windows of C's columns each window scans all the row's products again, and the hash kernels'
// accumulators (numeric_kernels.cuh), which scan them once, recompute those rows instead.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/spgemm/device_table.cuh"

namespace spk::detail::cuda::spgemm {

template <class V, class I>
struct ReuseArgs {
    const I* a_ptr;
    const I* a_col;
    const V* a_val;
    const I* b_ptr;
    const I* b_col;
    const V* b_val;
    const I* c_ptr;  // C's row_ptr
    const I* c_col;  // C's columns, sorted within each row
    V* c_val;
    const I* rows;  // the bin's rows
    long long num_rows;
    int log2_capacity;  // tree nodes (and accumulators) per group, log2
    bool masked;        // products may miss C's row: each descent checks the node it found
    int width;          // threads per entry of A (a power of two, at most 32)
    bool b_rows_increasing;  // see owns_distinct_slots
    // reuse_places_kernels.cuh only: each product's place in its row of C, and A's entries' first places.
    std::uint16_t* places;
    const long long* entry_offset;
};

// The node holding the element of in-order rank t (1-based) in a complete tree of size - 1 nodes
// (size a power of two, root 1, children of k at 2k and 2k + 1): t's trailing zeros give its
// height above the leaves.
__device__ __forceinline__ unsigned tree_node(unsigned t, unsigned size) { return (size + t) >> __ffs(static_cast<int>(t)); }

// j's node in the tree of 2^depth - 1 nodes: the descent goes right past every node below j, and
// the last left turn is the first node not below j (0, an absent node, if there is none).
template <class I>
__device__ __forceinline__ unsigned find_node(const I* tree, int depth, I j) {
    unsigned k = 1;
    for (int s = 0; s < depth; ++s) k = 2 * k + (tree[k] < j ? 1u : 0u);
    return k >> __ffs(static_cast<int>(~k));
}

// Where a row of C and its entries of A lie: C's columns and values from `start`, `len` of them;
// A's entries a_begin .. a_end - 1.
struct RowSpan {
    long long start, len, a_begin, a_end;
};

template <class V, class I>
__device__ __forceinline__ RowSpan row_span(const ReuseArgs<V, I>& p, long long row) {
    const long long start = p.c_ptr[row];
    return {start, p.c_ptr[row + 1] - start, p.a_ptr[row], p.a_ptr[row + 1]};
}

// Calls body(span) for each non-empty row of the bin that group G takes, in a grid-stride walk.
// A group's threads agree on a row's emptiness: no sync in body is skipped by part of the group.
template <class G, class V, class I, class Body>
__device__ __forceinline__ void for_each_group_row(const ReuseArgs<V, I>& p, Body&& body) {
    const long long step = static_cast<long long>(gridDim.x) * G::per_block();
    for (long long r = static_cast<long long>(blockIdx.x) * G::per_block() + G::index(); r < p.num_rows; r += step) {
        const RowSpan span = row_span(p, p.rows[r]);
        if (span.len == 0) continue;
        body(span);
    }
}

// Group G's slice of a kernel's dynamic shared memory: 2^log2_capacity entries of entry_bytes.
template <class G>
__device__ __forceinline__ unsigned char* group_slice(unsigned char* smem, int log2_capacity, long long entry_bytes) {
    return smem + static_cast<long long>(G::index()) * (1ll << log2_capacity) * entry_bytes;
}

// A column above every column of C: the trees' "absent" node.
template <class I>
inline constexpr I kAbsentColumn = static_cast<I>(static_cast<std::make_unsigned_t<I>>(~std::make_unsigned_t<I>(0)) >> 1);

// One entry of A for a sub-group: its value and the range of B's row it multiplies.
template <class V, class I>
struct EntryOfA {
    V value;
    long long b_begin, b_end;
};

template <class V, class I>
__device__ __forceinline__ EntryOfA<V, I> entry_of_a(const ReuseArgs<V, I>& p, long long pa, long long a_end) {
    EntryOfA<V, I> e{V(0), 0, 0};
    if (pa < a_end) {
        const I k = p.a_col[pa];
        e.value = p.a_val[pa];
        e.b_begin = p.b_ptr[k];
        e.b_end = p.b_ptr[k + 1];
    }
    return e;
}

// G: the group a row gets (Group<true>, a warp; Group<false>, the block; SubWarp<S>, S lanes).
template <class Op, class V, class I, class G>
__global__ void reuse_rows(ReuseArgs<V, I> p) {
    constexpr I kAbsent = kAbsentColumn<I>;
    extern __shared__ __align__(16) unsigned char smem[];
    I* const tree = reinterpret_cast<I*>(group_slice<G>(smem, p.log2_capacity, sizeof(I) + sizeof(V)));
    V* const values = reinterpret_cast<V*>(tree + (1ll << p.log2_capacity));
    const int sub = G::rank() / p.width, lane = G::rank() % p.width, subs = G::size() / p.width;
    const bool exclusive = owns_distinct_slots(p.b_rows_increasing, subs, G::size());
    for_each_group_row<G>(p, [&](const RowSpan& span) {
        const auto [start, len, a_begin, a_end] = span;
        const I* cols = p.c_col + start;  // len of them, at most half the group's capacity (the bins' rule)
        const int depth = ceil_log2(len + 1);
        const unsigned size = 1u << depth;
        const unsigned filled = static_cast<unsigned>(len);
        const I lo = cols[0], hi = cols[len - 1];
        // Sub-groups of `width` lanes take A's entries; every warp runs the same rounds and
        // meets at the end of each (see numeric_kernels.cuh). Each round's next entry (the
        // first one: before the tree is built) and each product's next operands load before
        // the current product's descent.
        EntryOfA<V, I> e = entry_of_a(p, a_begin + sub, a_end);
        for (unsigned t = static_cast<unsigned>(G::rank()); t < size; t += static_cast<unsigned>(G::size())) {
            const unsigned node = t == 0 ? 0u : tree_node(t, size);  // node 0: "absent"
            tree[node] = t >= 1 && t <= filled ? cols[t - 1] : kAbsent;
            values[node] = initial_value<Op, V>();
        }
        G::sync();
        for (long long round = a_begin; round < a_end; round += subs) {
            const EntryOfA<V, I> next = entry_of_a(p, round + subs + sub, a_end);
            long long q = e.b_begin + lane;
            I j = 0;
            V b = V(0);
            if (q < e.b_end) {
                j = p.b_col[q];
                b = p.b_val[q];
            }
            while (q < e.b_end) {
                const long long q_next = q + p.width;
                I j_next = 0;
                V b_next = V(0);
                if (q_next < e.b_end) {
                    j_next = p.b_col[q_next];
                    b_next = p.b_val[q_next];
                }
                if (j >= lo && j <= hi) {
                    const unsigned node = find_node(tree, depth, j);
                    if (!p.masked || tree[node] == j) combine<Op>(values + node, Op::multiply(e.value, b), exclusive);
                }
                q = q_next;
                j = j_next;
                b = b_next;
            }
            G::converge();
            e = next;
        }
        G::sync();

        for (unsigned t = static_cast<unsigned>(G::rank()) + 1; t <= filled; t += static_cast<unsigned>(G::size()))
            p.c_val[start + t - 1] = values[tree_node(t, size)];
        G::sync();  // the next tree overwrites what was read above
    });
}

}  // namespace spk::detail::cuda::spgemm
