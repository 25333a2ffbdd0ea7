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
    int log2_capacity;  // shared tables of the bin; 0: the global bin
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

template <class Op, class V, class I, bool kWarp>
__global__ void numeric_rows(NumericArgs<V, I> p) {
    using G = Group<kWarp>;
    using K = key_t<I>;
    constexpr K kEmpty = ~K(0);
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ long long scan_sums[32];
    __shared__ long long claimed;
    const bool global_bin = !kWarp && p.log2_capacity == 0;
    unsigned char* const slot = global_bin ? p.pool + blockIdx.x * p.slot_bytes : nullptr;
    V* const dense_values = reinterpret_cast<V*>(slot);
    if (global_bin && p.dense_values) {  // once per block: each dense row resets what it touched
        for (long long s = G::rank(); s < p.cols; s += G::size()) dense_values[s] = initial_value<Op, V>();
        G::sync();
    }
    const long long step = static_cast<long long>(gridDim.x) * G::per_block();
    long long r = static_cast<long long>(blockIdx.x) * G::per_block() + G::index();
    if constexpr (!kWarp)
        if (global_bin) r = claim_row(p.next_row, &claimed);
    while (r < p.num_rows) {
        const long long row = p.rows[r];
        const long long start = p.c_ptr[row], len = p.c_ptr[row + 1] - start;
        int log2_capacity = p.log2_capacity;
        unsigned char* base = smem + (static_cast<long long>(G::index()) << log2_capacity) * static_cast<long long>(sizeof(K) + sizeof(V));
        bool dense = false;
        if (global_bin) {
            log2_capacity = ceil_log2(len < 32 ? 64 : 2 * len);
            const GlobalTable table = global_table<K, V>(len, p.cols, p.dense_values, p.smem_bytes);
            dense = table == GlobalTable::dense;
            base = table == GlobalTable::pool_hash ? slot : smem;
        }
        const long long capacity = 1ll << log2_capacity;
        K* keys = reinterpret_cast<K*>(base);
        V* values = dense ? dense_values : reinterpret_cast<V*>(base + capacity * static_cast<long long>(sizeof(K)));
        unsigned* touched = reinterpret_cast<unsigned*>(smem);  // dense only
        const long long words = bitmap_words(p.cols);
        if (dense) {
            for (long long s = G::rank(); s < words; s += G::size()) touched[s] = 0;
        } else {
            for (long long s = G::rank(); s < capacity; s += G::size()) {
                keys[s] = kEmpty;
                values[s] = initial_value<Op, V>();
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
                    if (dense) {
                        atomicOr(touched + (j >> 5), 1u << (j & 31));
                        atomic_combine<Op>(values + j, product);
                    } else {
                        const int s = claim_slot(keys, log2_capacity, static_cast<K>(j));
                        if (s >= 0) combine<Op>(values + s, product, exclusive);
                    }
                }
            }
            __syncwarp();
        }
        G::sync();

        if (dense) {  // the bitmap read word by word gives the columns in order
            if constexpr (!kWarp) {
                long long written = 0;
                for (long long w0 = 0; w0 < words; w0 += G::size()) {
                    const long long w = w0 + G::rank();
                    unsigned b = w < words ? touched[w] : 0;
                    long long total = 0;
                    long long q = start + written + block_exclusive_scan(__popc(b), scan_sums, total);
                    for (; b; b &= b - 1, ++q) {
                        const long long j = 32 * w + __ffs(b) - 1;
                        p.c_col[q] = static_cast<I>(j);
                        p.c_val[q] = values[j];
                        values[j] = initial_value<Op, V>();  // ready for the block's next dense row
                    }
                    written += total;
                }
            }
        } else if (kWarp && len <= kRankedRow) {
            write_ranked(keys, values, capacity, p.c_col + start, p.c_val + start);
        } else {
            sort_table<kWarp>(keys, values, capacity, scan_sums);
            for (long long q = G::rank(); q < len; q += G::size()) {
                p.c_col[start + q] = static_cast<I>(keys[q]);
                p.c_val[start + q] = values[q];
            }
        }
        G::sync();  // the next row's initialisation overwrites what was read above
        if constexpr (!kWarp)
            if (global_bin) {
                r = claim_row(p.next_row, &claimed);
                continue;
            }
        r += step;
    }
}

}  // namespace spk::detail::cuda::spgemm
