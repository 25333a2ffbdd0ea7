#pragma once
// Numeric-phase kernel (second paper, kkmem): each row of C accumulated in a hash table keyed by
// column (shared memory, sized from the row's exact length; or a slot of the global pool), or in
// a dense array of values plus a bitmap of touched columns for dense rows in the pool. Rows leave
// sorted by column: a bitonic sort of the table, or the bitmap read in order. Always sorted, even
// when unsorted output is allowed: the table's layout depends on the order of concurrent inserts,
// and recompute must write every entry where compute wrote it.
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
    const I* m_ptr;  // null: no mask
    const I* m_col;  // sorted within each row
    bool complement;
    const long long* c_ptr;
    I* c_col;  // null: values only (the columns are already there)
    V* c_val;
    const I* rows;  // the bin's rows
    long long num_rows;
    int log2_capacity;    // shared tables; 0: the global pool
    unsigned char* pool;  // global: one slot of slot_bytes per block
    long long slot_bytes;
    long long cols;  // of C
    int width;       // threads per entry of A (a power of two, at most 32)
};

// Bytes of a dense accumulator over `cols` columns: the values, then a bit per column.
template <class V>
__host__ __device__ inline long long dense_bytes(long long cols) {
    return cols * static_cast<long long>(sizeof(V)) + 4 * ((cols + 31) / 32);
}

template <class Op, class V, class I, bool kWarp>
__global__ void numeric_rows(NumericArgs<V, I> p) {
    using G = Group<kWarp>;
    using K = key_t<I>;
    constexpr K kEmpty = ~K(0);
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ long long scan_sums[32];
    const long long step = static_cast<long long>(gridDim.x) * G::per_block();
    for (long long r = static_cast<long long>(blockIdx.x) * G::per_block() + G::index(); r < p.num_rows; r += step) {
        const long long row = p.rows[r];
        const long long start = p.c_ptr[row], len = p.c_ptr[row + 1] - start;
        int log2_capacity = p.log2_capacity;
        unsigned char* base;
        bool dense = false;
        if (log2_capacity > 0) {
            base = smem + (static_cast<long long>(G::index()) << log2_capacity) * static_cast<long long>(sizeof(K) + sizeof(V));
        } else {
            log2_capacity = ceil_log2(len < 32 ? 64 : 2 * len);
            dense = !kWarp && dense_bytes<V>(p.cols) <= (static_cast<long long>(sizeof(K) + sizeof(V)) << log2_capacity);
            base = p.pool + blockIdx.x * p.slot_bytes;
        }
        const long long capacity = 1ll << log2_capacity;
        K* keys = reinterpret_cast<K*>(base);
        V* values = dense ? reinterpret_cast<V*>(base) : reinterpret_cast<V*>(base + capacity * static_cast<long long>(sizeof(K)));
        unsigned* touched = reinterpret_cast<unsigned*>(base + p.cols * static_cast<long long>(sizeof(V)));  // dense only
        const long long words = (p.cols + 31) / 32;
        if (dense) {
            for (long long s = G::rank(); s < p.cols; s += G::size()) values[s] = initial_value<Op, V>();
            for (long long s = G::rank(); s < words; s += G::size()) touched[s] = 0;
        } else {
            for (long long s = G::rank(); s < capacity; s += G::size()) {
                keys[s] = kEmpty;
                values[s] = initial_value<Op, V>();
            }
        }
        G::sync();

        const I* mask = p.m_ptr ? p.m_col + p.m_ptr[row] : nullptr;
        const long long mask_len = p.m_ptr ? p.m_ptr[row + 1] - p.m_ptr[row] : 0;
        const int sub = G::rank() / p.width, lane = G::rank() % p.width, subs = G::size() / p.width;
        for (long long pa = p.a_ptr[row] + sub; pa < p.a_ptr[row + 1]; pa += subs) {
            const long long k = p.a_col[pa];
            const V av = p.a_val[pa];
            for (long long q = p.b_ptr[k] + lane; q < p.b_ptr[k + 1]; q += p.width) {
                const long long j = p.b_col[q];
                if (mask && contains(mask, mask_len, j) == p.complement) continue;
                const V product = Op::multiply(av, p.b_val[q]);
                if (dense) {
                    atomicOr(touched + (j >> 5), 1u << (j & 31));
                    atomic_combine<Op>(values + j, product);
                } else {
                    const long long s = claim_slot(keys, log2_capacity, static_cast<K>(j));
                    if (s >= 0) atomic_combine<Op>(values + s, product);
                }
            }
        }
        G::sync();

        if constexpr (!kWarp) {
            if (dense) {  // the bitmap read word by word gives the columns in order
                long long written = 0;
                for (long long w0 = 0; w0 < words; w0 += G::size()) {
                    const long long w = w0 + G::rank();
                    unsigned b = w < words ? touched[w] : 0;
                    long long total = 0;
                    long long q = start + written + block_exclusive_scan(__popc(b), scan_sums, total);
                    for (; b; b &= b - 1, ++q) {
                        const long long j = 32 * w + __ffs(b) - 1;
                        if (p.c_col) p.c_col[q] = static_cast<I>(j);
                        p.c_val[q] = values[j];
                    }
                    written += total;
                }
                G::sync();  // the next row's initialisation overwrites values read above
                continue;
            }
        }
        sort_by_key<G>(keys, values, capacity);
        for (long long q = G::rank(); q < len; q += G::size()) {
            if (p.c_col) p.c_col[start + q] = static_cast<I>(keys[q]);
            p.c_val[start + q] = values[q];
        }
        G::sync();
    }
}

}  // namespace spk::detail::cuda::spgemm
