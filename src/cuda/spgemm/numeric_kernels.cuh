#pragma once
// Numeric-phase kernel (second paper, kkmem): each row of C accumulated in a hash table keyed by
// column (shared memory, sized from the row's exact length), or, for rows longer than the
// shared-memory bins, in the global bin's accumulators: a hash table in shared memory when it
// fits, a dense accumulator (a bitmap of touched columns in shared memory, a value per column in
// the block's slot of a global pool), or a hash table in the pool. Rows leave sorted by column:
// a sort of the table's occupied entries, or the bitmap read in order. Always sorted, even when
// unsorted output is allowed: the table's layout depends on the order of concurrent inserts,
// and recompute must write every entry where compute wrote it (the numeric-reuse path of
// numeric_reuse_kernels.cuh also needs C's columns sorted). Always writes columns and values:
// the plan's first recompute keeps the columns it writes for the later ones.
// Lanes leave the probe and atomic loops at different times; under independent thread scheduling
// the early ones run ahead into the next entries of A, and the warp ends up issuing each
// instruction for a few lanes at a time (an H200 profile of elasticity's products: 9 of 32
// lanes active, 5x the instructions). A __syncwarp after each round of A's entries keeps them together.
#include <cuda_runtime.h>

#include "cuda/spgemm/device_table.cuh"
#include "cuda/spgemm/expand_sort.cuh"
#include "cuda/spgemm/warp_sort.cuh"

namespace spk::detail::cuda::spgemm {

template <class V, class I>
struct NumericArgs {
    const I* a_ptr;
    const I* a_col;
    const V* a_val;
    const I* b_ptr;
    const I* b_col;
    const V* b_val;
    bool masked;     // explicit: an empty mask's columns may be a null pointer
    const I* m_ptr;
    const I* m_col;  // sorted within each row
    bool complement;
    const I* c_ptr;  // C's row_ptr
    I* c_col;
    V* c_val;
    const I* rows;  // the bin's rows
    long long num_rows;
    int log2_capacity;  // the bin's tables (bins 1-7)
    int hash_block_bits;  // their hash's blocks of consecutive columns (see claim_slot)
    long long order_words;  // block rows: words of a SpanOrder after each table (0: sort the rows)
    // The global bin: dynamic shared memory per block, a value per column per slot (dense rows),
    // the pool (one slot of slot_bytes per block) and the counter that hands out its rows.
    long long smem_bytes;
    bool dense_values;
    unsigned char* pool;
    long long slot_bytes;
    unsigned long long* next_row;
    long long cols;  // of C
    int width;       // threads per entry of A (a power of two, at most 32)
    bool b_rows_increasing;  // see owns_distinct_slots
};

// Words of the dense accumulator's bitmap of touched columns.
__host__ __device__ inline long long bitmap_words(long long cols) { return (cols + 31) / 32; }

// Where the global bin's row of length `len` accumulates (the host sizes smem_bytes and the pool
// so that the choice always fits): the dense accumulator where its bitmap costs no more to scan
// than a few words per entry or no hash table fits in shared memory, else a shared hash table,
// else a hash table in the pool.
enum class GlobalTable { dense, shared_hash, pool_hash };
template <class K, class V>
__host__ __device__ inline GlobalTable global_table(long long len, long long cols, bool dense_values, long long smem_bytes) {
    const long long hash_bytes = static_cast<long long>(sizeof(K) + sizeof(V)) << ceil_log2(len < 32 ? 64 : 2 * len);
    if (dense_values && (bitmap_words(cols) <= 4 * len || hash_bytes > smem_bytes)) return GlobalTable::dense;
    return hash_bytes <= smem_bytes ? GlobalTable::shared_hash : GlobalTable::pool_hash;
}

// Rows up to this long leave a warp's table by rank instead of a sort: each entry's place is the
// number of smaller keys, counted over the compacted entries (distinct keys, all read by every
// lane at once). A sort's stages cost more up to about twice this length.
inline constexpr int kRankedRow = 64;

// A warp's table (capacity slots, at most kRankedRow filled) to C's row out_col/out_val, in
// column order.
template <class K, class V, class I>
__device__ void write_ranked(K* keys, V* values, long long capacity, I* out_col, V* out_val) {
    constexpr K kEmpty = ~K(0);
    const int lane = static_cast<int>(threadIdx.x & 31);
    int count = 0;  // compact in place: slots in order, each chunk's writes below its reads
    for (long long s0 = 0; s0 < capacity; s0 += 32) {
        const K key = keys[s0 + lane];
        const V value = values[s0 + lane];
        const unsigned filled = __ballot_sync(kFullMask, key != kEmpty);
        __syncwarp();
        if (key != kEmpty) {
            const int at = count + __popc(filled & ((1u << lane) - 1));
            keys[at] = key;
            values[at] = value;
        }
        count += __popc(filled);
        __syncwarp();
    }
    for (int e = lane; e < count; e += 32) {
        const K key = keys[e];
        int rank = 0;
        for (int i = 0; i < count; ++i) rank += keys[i] < key;
        out_col[rank] = static_cast<I>(key);
        out_val[rank] = values[e];
    }
    __syncwarp();
}

// Warp rows of up to 32 * E entries with 32-bit keys (compacted to keys/values[0, count)) to C's
// row in column order, sorted in registers (warp_sort.cuh): each entry as one 64-bit word, its
// column above its place in the compacted table (columns are distinct, so the place never
// decides); the values are read once, by place, at the end.
template <int E, class V, class I>
__device__ void write_sorted_in_registers(const unsigned* keys, const V* values, int count, I* out_col, V* out_val) {
    const int lane = static_cast<int>(threadIdx.x & 31);
    unsigned long long word[E];
#pragma unroll
    for (int t = 0; t < E; ++t) {  // coalesced loads; before the sort any placement will do
        const int from = t * 32 + lane;
        word[t] = from < count ? static_cast<unsigned long long>(keys[from]) << 32 | static_cast<unsigned>(from) : ~0ull;
    }
    warp_bitonic_sort(word);
#pragma unroll
    for (int t = 0; t < E; ++t) {
        const int at = lane * E + t;
        if (at < count) {
            out_col[at] = static_cast<I>(word[t] >> 32);
            out_val[at] = values[static_cast<unsigned>(word[t])];
        }
    }
    __syncwarp();
}

// A warp's row of 65-256 entries with 32-bit keys, compacted and sorted in registers (true), or
// nothing done (false: other rows, 64-bit keys, blocks).
template <bool kWarp, class Table, class V, class I>
__device__ __forceinline__ bool write_warp_row_sorted_in_registers(Table table, long long len, I* out_col, V* out_val, long long* scan_sums) {
    if constexpr (kWarp && std::is_same_v<typename Table::key_type, unsigned>) {
        if (len > 256) return false;
        const int count = static_cast<int>(compact_table<kWarp>(table.keys, table.values, table.capacity(), scan_sums));
        if (count <= 128)
            write_sorted_in_registers<4>(table.keys, table.values, count, out_col, out_val);
        else
            write_sorted_in_registers<8>(table.keys, table.values, count, out_col, out_val);
        return true;
    } else {
        return false;
    }
}

// The dense accumulator of the global bin: a bit per column of C that a product touched (shared
// memory) and a value per column (the block's pool slot, kept at the initial value between rows).
template <class V>
struct DenseAccumulator {
    unsigned* touched;
    V* values;
};

// One row of C, accumulated in `table` (a HashTable or a DenseAccumulator) by the group. Inlined
// into each call, so that each call's table pointers keep their memory kind (see HashTable).
template <class Op, bool kWarp, class Table, class V, class I>
__device__ __forceinline__ void numeric_row(const NumericArgs<V, I>& p, long long row, Table table, long long* scan_sums,
                                            SpanOrder order = {}) {
    using G = Group<kWarp>;
    constexpr bool kDense = std::is_same_v<Table, DenseAccumulator<V>>;
    const long long start = p.c_ptr[row], len = p.c_ptr[row + 1] - start;
    const long long words = bitmap_words(p.cols);
    if constexpr (kDense) {
        for (long long s = G::rank(); s < words; s += G::size()) table.touched[s] = 0;
    } else {
        for (long long s = G::rank(); s < table.capacity(); s += G::size()) {
            table.keys[s] = table.kEmpty;
            table.values[s] = initial_value<Op, V>();
        }
    }
    G::sync();

    const I* mask = p.masked ? p.m_col + p.m_ptr[row] : nullptr;
    const long long mask_len = p.masked ? p.m_ptr[row + 1] - p.m_ptr[row] : 0;
    // Sub-groups of `width` lanes take A's entries; every warp runs the same number of rounds,
    // and meets at the end of each (see the file's comment).
    const int sub = G::rank() / p.width, lane = G::rank() % p.width, subs = G::size() / p.width;
    const bool exclusive = owns_distinct_slots(p.b_rows_increasing, subs, G::size());
    const I a_end = p.a_ptr[row + 1];
    for (I round = p.a_ptr[row]; round < a_end; round += subs) {
        const I pa = round + sub;
        if (pa < a_end) {
            const I k = p.a_col[pa];
            const V av = p.a_val[pa];
            const I b_end = p.b_ptr[k + 1];
            for (I q = p.b_ptr[k] + lane; q < b_end; q += p.width) {
                const I j = p.b_col[q];
                if (p.masked && contains(mask, mask_len, j) == p.complement) continue;
                const V product = Op::multiply(av, p.b_val[q]);
                if constexpr (kDense) {
                    atomicOr(table.touched + (j >> 5), 1u << (j & 31));
                    atomic_combine<Op>(table.values + j, product);
                } else {
                    const int s = table.claim(static_cast<typename Table::key_type>(j));
                    if (s >= 0) combine<Op>(table.values + s, product, exclusive);
                }
            }
        }
        __syncwarp();
    }
    G::sync();

    if constexpr (kDense) {  // the bitmap read word by word gives the columns in order (blocks only)
        static_assert(!kWarp, "the dense accumulator belongs to the global bin's blocks");
        long long written = 0;
        for (long long w0 = 0; w0 < words; w0 += G::size()) {
            const long long w = w0 + G::rank();
            unsigned b = w < words ? table.touched[w] : 0;
            long long total = 0;
            long long q = start + written + block_exclusive_scan(__popc(b), scan_sums, total);
            for (; b; b &= b - 1, ++q) {
                const long long j = 32 * w + __ffs(b) - 1;
                p.c_col[q] = static_cast<I>(j);
                p.c_val[q] = table.values[j];
                table.values[j] = initial_value<Op, V>();  // ready for the block's next dense row
            }
            written += total;
        }
    } else if (kWarp && len <= kRankedRow) {
        write_ranked(table.keys, table.values, table.capacity(), p.c_col + start, p.c_val + start);
    } else if (!kWarp && order.words > 0 &&
               write_by_span(table.keys, table.values, table.capacity(), order, scan_sums, p.c_col + start, p.c_val + start)) {
        // written in column order without a sort
    } else if (write_warp_row_sorted_in_registers<kWarp>(table, len, p.c_col + start, p.c_val + start, scan_sums)) {
        // written in column order, sorted in registers
    } else {
        sort_table<kWarp>(table.keys, table.values, table.capacity(), scan_sums);
        for (long long q = G::rank(); q < len; q += G::size()) {
            p.c_col[start + q] = static_cast<I>(table.keys[q]);
            p.c_val[start + q] = table.values[q];
        }
    }
    G::sync();  // the next row's initialisation overwrites what was read above
}

// Warp rows of at most 256 products from at most 32 entries of A (one a lane) whose values fit
// the row's table space take expand_sort.cuh's path instead of the hash table, sorting 32, 64,
// 128 or 256 places (a stencil's row of 49 products: 64).
inline constexpr unsigned kSortedMaxProducts = 256;

// The row by expand_sort.cuh (true), or nothing done (false: not such a row). Every lane of the
// warp calls it; table_space: the warp's table, table_bytes long.
template <class Op, class V, class I>
__device__ __forceinline__ bool combine_row_by_sort(const NumericArgs<V, I>& p, long long row, unsigned char* table_space,
                                                    long long table_bytes) {
    const int lane = static_cast<int>(threadIdx.x & 31);
    const I a_begin = p.a_ptr[row];
    const long long a_len = static_cast<long long>(p.a_ptr[row + 1] - a_begin);
    if (a_len > 32) return false;
    LaneEntry<V> mine{V(0), 0, 0, 0};
    if (lane < a_len) {
        const I k = p.a_col[a_begin + lane];
        mine.value = p.a_val[a_begin + lane];
        mine.b_begin = p.b_ptr[k];
        mine.count = static_cast<unsigned>(p.b_ptr[k + 1] - mine.b_begin);
    }
    const unsigned upto = warp_inclusive_sum(mine.count);
    const unsigned products = __shfl_sync(kFullMask, upto, 31);
    if (products > kSortedMaxProducts ||
        static_cast<long long>(products) * static_cast<long long>(sizeof(V)) > table_bytes)
        return false;
    mine.first = upto - mine.count;
    const ProductSource<V, I> src{p.b_col, p.b_val, p.masked, p.masked ? p.m_col + p.m_ptr[row] : nullptr,
                                  p.masked ? static_cast<long long>(p.m_ptr[row + 1] - p.m_ptr[row]) : 0, p.complement};
    const long long start = p.c_ptr[row];
    V* const staged = reinterpret_cast<V*>(table_space);
    if (products <= 32)
        combine_sorted_products<1, Op>(src, mine, products, staged, p.c_col + start, p.c_val + start);
    else if (products <= 64)
        combine_sorted_products<2, Op>(src, mine, products, staged, p.c_col + start, p.c_val + start);
    else if (products <= 128)
        combine_sorted_products<4, Op>(src, mine, products, staged, p.c_col + start, p.c_val + start);
    else
        combine_sorted_products<8, Op>(src, mine, products, staged, p.c_col + start, p.c_val + start);
    return true;
}

// Bins 1-7: a table of the bin's size per group (a warp or the block) in shared memory, never a
// pointer that could be global: the table's accesses compile to shared-memory instructions.
template <class Op, class V, class I, bool kWarp>
__device__ __forceinline__ void numeric_bin_rows(const NumericArgs<V, I>& p) {
    using G = Group<kWarp>;
    using K = key_t<I>;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ long long scan_sums[32];
    const long long table_bytes = (1ll << p.log2_capacity) * static_cast<long long>(sizeof(K) + sizeof(V));
    unsigned char* const base = smem + static_cast<long long>(G::index()) * table_bytes;
    // Block rows: the span order's bitmap and counts after the table (the host sized smem for them).
    SpanOrder order{};
    if (!kWarp && p.order_words > 0) {
        order.bitmap = reinterpret_cast<unsigned*>(smem + table_bytes);
        order.counts = reinterpret_cast<unsigned short*>(order.bitmap + p.order_words);
        order.words = p.order_words;
    }
    const long long step = static_cast<long long>(gridDim.x) * G::per_block();
    for (long long r = static_cast<long long>(blockIdx.x) * G::per_block() + G::index(); r < p.num_rows; r += step) {
        const long long row = p.rows[r];
        if constexpr (kWarp && std::is_same_v<K, unsigned>)
            if (combine_row_by_sort<Op>(p, row, base, table_bytes)) continue;
        numeric_row<Op, kWarp>(p, row, HashTable<K, V>::at(base, p.log2_capacity, p.hash_block_bits), scan_sums, order);
    }
}

// Bins 1-4, a warp a row in blocks of 128: nine blocks an SM (what their tables' shared memory
// allows in f64) hold the register sort within 56 registers.
template <class Op, class V, class I>
__global__ void __launch_bounds__(128, 9) numeric_warp_rows(NumericArgs<V, I> p) {
    numeric_bin_rows<Op, V, I, true>(p);
}

// Bins 5-7, a block a row.
template <class Op, class V, class I>
__global__ void numeric_block_rows(NumericArgs<V, I> p) {
    numeric_bin_rows<Op, V, I, false>(p);
}

// The global bin: blocks take rows from a counter, each row to the accumulator global_table
// chooses, one call of numeric_row per memory kind (a shared or a pool hash table, the dense
// accumulator).
template <class Op, class V, class I>
__global__ void numeric_global_rows(NumericArgs<V, I> p) {
    using K = key_t<I>;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ long long scan_sums[32];
    __shared__ long long claimed;
    unsigned char* const slot = p.pool + blockIdx.x * p.slot_bytes;
    const DenseAccumulator<V> dense{reinterpret_cast<unsigned*>(smem), reinterpret_cast<V*>(slot)};
    if (p.dense_values) {  // once per block: each dense row resets what it touched
        for (long long s = threadIdx.x; s < p.cols; s += blockDim.x) dense.values[s] = initial_value<Op, V>();
        __syncthreads();
    }
    for (long long r = claim_row(p.next_row, &claimed); r < p.num_rows; r = claim_row(p.next_row, &claimed)) {
        const long long row = p.rows[r];
        const long long len = p.c_ptr[row + 1] - p.c_ptr[row];
        const int log2_capacity = ceil_log2(len < 32 ? 64 : 2 * len);
        switch (global_table<K, V>(len, p.cols, p.dense_values, p.smem_bytes)) {
            case GlobalTable::dense:
                numeric_row<Op, false>(p, row, dense, scan_sums);
                break;
            case GlobalTable::shared_hash:
                numeric_row<Op, false>(p, row, HashTable<K, V>::at(smem, log2_capacity), scan_sums);
                break;
            case GlobalTable::pool_hash:
                numeric_row<Op, false>(p, row, HashTable<K, V>::at(slot, log2_capacity), scan_sums);
                break;
        }
    }
}

}  // namespace spk::detail::cuda::spgemm
