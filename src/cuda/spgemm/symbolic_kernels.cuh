#pragma once
// Symbolic-phase kernels (second paper, kkmem): B's rows compressed into (column block, 32-bit
// mask) pairs, products per row of A, and the count of each row of C: the row's pairs are
// unioned by OR in a hash table keyed by block (or a dense array of blocks for dense rows), then
// the popcounts of the masked bits are summed.
#include <cuda_runtime.h>

#include "cuda/spgemm/device_table.cuh"

namespace spk::detail::cuda::spgemm {

inline constexpr unsigned kEmptyBlock = 0xffffffffu;

// Number of (block, bits) pairs of each row of B: runs of equal column / 32. A repeated block in
// an unsorted row gives a second pair, which the OR-union absorbs. *unordered becomes non-zero
// where a row's columns do not strictly increase (unsorted, or a column repeated).
template <class I>
__global__ void count_block_pairs(const I* b_ptr, const I* b_col, long long rows, long long* pairs, unsigned long long* unordered) {
    const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= rows) return;
    long long n = 0, last = -1, last_col = -1;
    bool increasing = true;
    for (long long q = b_ptr[k]; q < b_ptr[k + 1]; ++q) {
        const long long col = static_cast<long long>(b_col[q]), block = col >> 5;
        n += block != last;
        increasing &= col > last_col;
        last = block;
        last_col = col;
    }
    pairs[k] = n;
    if (!increasing) atomicOr(unordered, 1ull);
}

template <class I>
__global__ void fill_block_pairs(const I* b_ptr, const I* b_col, long long rows, const long long* bc_ptr, unsigned* bc_block,
                                 unsigned* bc_bits) {
    const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= rows) return;
    long long out = bc_ptr[k], last = -1;
    unsigned bits = 0;  // of the run in progress, stored when it ends
    for (long long q = b_ptr[k]; q < b_ptr[k + 1]; ++q) {
        const long long block = static_cast<long long>(b_col[q]) >> 5;
        if (block != last && last >= 0) {
            bc_block[out] = static_cast<unsigned>(last);
            bc_bits[out++] = bits;
            bits = 0;
        }
        last = block;
        bits |= 1u << (b_col[q] & 31);
    }
    if (last >= 0) {
        bc_block[out] = static_cast<unsigned>(last);
        bc_bits[out] = bits;
    }
}

// A group of `width` lanes (a power of two, at most 32) per row of A: the symbolic table's need,
// min(pairs, blocks) (pairs: the (block, bits) pairs of the rows of B it reaches); 0 for a row
// already counted (counted[i] >= 0, where counted is not null: see short_rows.cuh). Short rows
// share a warp instead of leaving most of its lanes idle.
template <class I>
__global__ void row_needs(const I* a_ptr, const I* a_col, long long rows, const long long* bc_ptr, long long blocks, int width,
                          const long long* counted, long long* need) {
    const int lane = static_cast<int>(threadIdx.x) & (width - 1);
    const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / width;
    if (i - i % (32 / width) >= rows) return;  // whole warps leave together: the shuffles below see every lane
    long long pairs = 0;
    if (i < rows && !(counted && counted[i] >= 0))
        for (long long p = a_ptr[i] + lane; p < a_ptr[i + 1]; p += width) {
            const long long k = a_col[p];
            pairs += bc_ptr[k + 1] - bc_ptr[k];
        }
    for (int o = width / 2; o > 0; o >>= 1) pairs += __shfl_xor_sync(kFullMask, pairs, o);
    if (lane == 0 && i < rows) need[i] = pairs < blocks ? pairs : blocks;
}

template <class I>
struct SymbolicArgs {
    const I* a_ptr;
    const I* a_col;
    const long long* bc_ptr;
    const unsigned* bc_block;
    const unsigned* bc_bits;
    bool masked;     // explicit: an empty mask's columns may be a null pointer
    const I* m_ptr;
    const I* m_col;  // sorted within each row
    bool complement;
    const I* rows;  // the bin's rows
    long long num_rows;
    const long long* need;
    int log2_capacity;  // the bin's tables (bins 1-7)
    // The global bin: dynamic shared memory per block, the pool (one slot of slot_words per
    // block) and the counter that hands out its rows.
    long long smem_bytes;
    unsigned* pool;
    long long slot_words;
    unsigned long long* next_row;
    long long blocks;  // column blocks of C: (cols + 31) / 32
    int width;         // threads per entry of A (a power of two, at most 32)
    bool b_rows_increasing;  // every row of B's pairs in increasing block order (SpanWords)
    long long* row_nnz;
};

// Where the global bin's row unions its pairs (the host sizes smem_bytes and the pool so that the
// choice always fits): a word per column block (dense) where that costs no more than the hash
// table or no hash table fits in shared memory; shared memory before the pool.
enum class SymbolicTable { shared_dense, shared_hash, pool_dense, pool_hash };
__host__ __device__ inline SymbolicTable symbolic_table(long long need, long long blocks, long long smem_bytes) {
    const int log2_capacity = ceil_log2(need < 32 ? 64 : 2 * need);
    const long long hash_bytes = 8ll << log2_capacity;  // a key and a bit mask per entry
    const bool dense_cheaper = blocks <= (2ll << log2_capacity);
    if (4 * blocks <= smem_bytes && (dense_cheaper || hash_bytes > smem_bytes)) return SymbolicTable::shared_dense;
    if (hash_bytes <= smem_bytes) return SymbolicTable::shared_hash;
    return dense_cheaper ? SymbolicTable::pool_dense : SymbolicTable::pool_hash;
}

// A row's (block, bits) pairs unioned in a word per column block (dense), the other table kind
// beside a HashTable<unsigned, unsigned> keyed by block.
struct BlockWords {
    unsigned* bits;
};

// A block row's pairs unioned in a word per column block of the row's span (the lowest to the
// highest block its rows of B reach), in the shared memory of its hash table: a mesh row (its
// columns within a few planes of the grid) without hashing or probing. The hash table it replaces
// held about a thousand pairs of a few dozen blocks (elasticity's rows, sized by pairs), and its
// kernel ran 8300 warp instructions a row (H200 profile, stop 35).
struct SpanWords {
    unsigned* bits;
    long long lowest;  // the span's first block
    long long words;
};

// The span of blocks that row's rows of B reach, when their pairs come in increasing block order:
// the lowest first block and the highest last one (words = 0 for a row that reaches none). Every
// thread of the block calls it.
template <class I>
__device__ SpanWords block_row_span(const SymbolicArgs<I>& p, long long row, unsigned* table) {
    __shared__ unsigned lowest, highest;
    if (threadIdx.x == 0) {
        lowest = kEmptyBlock;
        highest = 0;
    }
    __syncthreads();
    unsigned lo = kEmptyBlock, hi = 0;
    for (I pa = p.a_ptr[row] + static_cast<I>(threadIdx.x); pa < p.a_ptr[row + 1]; pa += static_cast<I>(blockDim.x)) {
        const I k = p.a_col[pa];
        const long long first = p.bc_ptr[k], last = p.bc_ptr[k + 1] - 1;
        if (first <= last) {
            lo = min(lo, p.bc_block[first]);
            hi = max(hi, p.bc_block[last]);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        lo = min(lo, __shfl_xor_sync(kFullMask, lo, o));
        hi = max(hi, __shfl_xor_sync(kFullMask, hi, o));
    }
    if ((threadIdx.x & 31) == 0 && lo != kEmptyBlock) {
        atomicMin(&lowest, lo);
        atomicMax(&highest, hi);
    }
    __syncthreads();
    const SpanWords span{table, lowest, lowest == kEmptyBlock ? 0 : static_cast<long long>(highest) - lowest + 1};
    __syncthreads();  // every thread has read the span before the next row resets it
    return span;
}

// Counts one row of C by the group, its pairs unioned in `table` (a HashTable or BlockWords).
// Inlined into each call, so that each call's table pointers keep their memory kind (see
// HashTable).
template <bool kWarp, class Table, class I>
__device__ __forceinline__ void symbolic_row(const SymbolicArgs<I>& p, long long row, Table table, unsigned long long* scratch) {
    using G = Group<kWarp>;
    constexpr bool kDense = std::is_same_v<Table, BlockWords>, kSpan = std::is_same_v<Table, SpanWords>;
    if constexpr (kDense)
        for (long long s = G::rank(); s < p.blocks; s += G::size()) table.bits[s] = 0;
    else if constexpr (kSpan)
        for (long long s = G::rank(); s < table.words; s += G::size()) table.bits[s] = 0;
    else
        for (long long s = G::rank(); s < table.capacity(); s += G::size()) {
            table.keys[s] = kEmptyBlock;
            table.values[s] = 0;
        }
    G::sync();

    // As in the numeric phase: equal rounds for every warp, which meets at the end of each.
    const int sub = G::rank() / p.width, lane = G::rank() % p.width, subs = G::size() / p.width;
    const I a_end = p.a_ptr[row + 1];
    for (I round = p.a_ptr[row]; round < a_end; round += subs) {
        const I pa = round + sub;
        if (pa < a_end) {
            const I k = p.a_col[pa];
            const long long q_end = p.bc_ptr[k + 1];
            for (long long q = p.bc_ptr[k] + lane; q < q_end; q += p.width) {
                const unsigned block = p.bc_block[q], b = p.bc_bits[q];
                if constexpr (kDense) {
                    atomicOr(table.bits + block, b);
                } else if constexpr (kSpan) {
                    atomicOr(table.bits + (block - table.lowest), b);
                } else {
                    const int s = table.claim(block);
                    if (s >= 0) atomicOr(table.values + s, b);
                }
            }
        }
        __syncwarp();
    }
    G::sync();

    const I* mask = p.masked ? p.m_col + p.m_ptr[row] : nullptr;
    const long long mask_len = p.masked ? p.m_ptr[row + 1] - p.m_ptr[row] : 0;
    const auto allowed = [&](long long block, unsigned b) {
        if (!p.masked) return b;
        const unsigned in_mask = bits_in_block(mask, mask_len, block);
        return b & (p.complement ? ~in_mask : in_mask);
    };
    long long count = 0;
    if constexpr (kDense) {
        for (long long s = G::rank(); s < p.blocks; s += G::size())
            if (table.bits[s]) count += __popc(allowed(s, table.bits[s]));
    } else if constexpr (kSpan) {
        for (long long s = G::rank(); s < table.words; s += G::size())
            if (table.bits[s]) count += __popc(allowed(table.lowest + s, table.bits[s]));
    } else {
        for (long long s = G::rank(); s < table.capacity(); s += G::size())
            if (table.keys[s] != kEmptyBlock) count += __popc(allowed(table.keys[s], table.values[s]));
    }
    count = group_sum<kWarp>(count, scratch);
    if (G::rank() == 0) p.row_nnz[row] = count;
    G::sync();
}

// Bins 1-7: a hash table of the bin's size per group (a warp or the block) in shared memory,
// never a pointer that could be global: the table's accesses compile to shared-memory instructions.
template <class I, bool kWarp>
__global__ void symbolic_rows(SymbolicArgs<I> p) {
    using G = Group<kWarp>;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ unsigned long long scratch;
    unsigned char* const base = smem + 8 * (static_cast<long long>(G::index()) << p.log2_capacity);  // a key and a bit mask an entry
    const long long step = static_cast<long long>(gridDim.x) * G::per_block();
    for (long long r = static_cast<long long>(blockIdx.x) * G::per_block() + G::index(); r < p.num_rows; r += step) {
        const long long row = p.rows[r];
        if constexpr (!kWarp) {  // block rows whose span fits the table's memory (two words a slot) take SpanWords
            if (p.b_rows_increasing) {
                const SpanWords span = block_row_span(p, row, reinterpret_cast<unsigned*>(base));
                if (span.words <= (2ll << p.log2_capacity)) {
                    symbolic_row<false>(p, row, span, &scratch);
                    continue;
                }
            }
        }
        symbolic_row<kWarp>(p, row, HashTable<unsigned, unsigned>::at(base, p.log2_capacity), &scratch);
    }
}

// The global bin: blocks take rows from a counter, each row to the table symbolic_table chooses,
// one call of symbolic_row per table kind and memory kind.
template <class I>
__global__ void symbolic_global_rows(SymbolicArgs<I> p) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ unsigned long long scratch;
    __shared__ long long claimed;
    unsigned* const slot = p.pool + blockIdx.x * p.slot_words;
    for (long long r = claim_row(p.next_row, &claimed); r < p.num_rows; r = claim_row(p.next_row, &claimed)) {
        const long long row = p.rows[r];
        const int log2_capacity = ceil_log2(p.need[row] < 32 ? 64 : 2 * p.need[row]);
        switch (symbolic_table(p.need[row], p.blocks, p.smem_bytes)) {
            case SymbolicTable::shared_dense:
                symbolic_row<false>(p, row, BlockWords{reinterpret_cast<unsigned*>(smem)}, &scratch);
                break;
            case SymbolicTable::shared_hash:
                symbolic_row<false>(p, row, HashTable<unsigned, unsigned>::at(smem, log2_capacity), &scratch);
                break;
            case SymbolicTable::pool_dense:
                symbolic_row<false>(p, row, BlockWords{slot}, &scratch);
                break;
            case SymbolicTable::pool_hash:
                symbolic_row<false>(p, row, HashTable<unsigned, unsigned>::at(reinterpret_cast<unsigned char*>(slot), log2_capacity),
                                    &scratch);
                break;
        }
    }
}

}  // namespace spk::detail::cuda::spgemm
