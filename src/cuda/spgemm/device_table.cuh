#pragma once
// Device building blocks of the SpGEMM kernels: the group that owns a row (a warp or a block),
// open-addressing hash tables (linear probing, Fibonacci hashing, keys claimed by atomicCAS),
// semiring accumulation by atomics, the bitonic sort that orders a row, and mask lookups.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/spgemm_semiring.hpp"
#include "cuda/common/segment_group.cuh"

namespace spk::detail::cuda::spgemm {

inline constexpr unsigned kFullMask = 0xffffffffu;

// The threads that compute one row: a warp (kWarp) or the whole block.
template <bool kWarp>
struct Group {
    static __device__ int size() { return kWarp ? 32 : static_cast<int>(blockDim.x); }
    static __device__ int rank() { return static_cast<int>(kWarp ? threadIdx.x & 31 : threadIdx.x); }
    static __device__ int index() { return static_cast<int>(kWarp ? threadIdx.x >> 5 : 0); }  // group within the block
    static __device__ int per_block() { return static_cast<int>(kWarp ? blockDim.x >> 5 : 1); }
    static __device__ void sync() {
        if constexpr (kWarp)
            __syncwarp();
        else
            __syncthreads();
    }
    // The warp's lanes meet (its share of the group: a round's end, see numeric_kernels.cuh).
    static __device__ void converge() { __syncwarp(); }
};

// The threads that compute one row when rows are short: S lanes of a warp (S a power of two below
// 32), so that a warp has 32 / S rows' chains of dependent loads in flight instead of one. Same
// interface as Group; the sub-groups of a warp go their own ways, so its syncs name their lanes.
template <int S>
struct SubWarp {
    static_assert(S > 0 && S < 32 && (S & (S - 1)) == 0, "S lanes, a power of two below a warp");
    static __device__ int size() { return S; }
    static __device__ int rank() { return static_cast<int>(threadIdx.x) & (S - 1); }
    static __device__ int index() { return static_cast<int>(threadIdx.x) / S; }
    static __device__ int per_block() { return static_cast<int>(blockDim.x) / S; }
    static __device__ unsigned mask() { return ((1u << S) - 1u) << (static_cast<int>(threadIdx.x) & 31 & ~(S - 1)); }
    static __device__ void sync() { __syncwarp(mask()); }
    static __device__ void converge() { __syncwarp(mask()); }
};

// Sum over the group; every thread gets it. scratch: one shared word (blocks only).
template <bool kWarp>
__device__ long long group_sum(long long v, unsigned long long* scratch) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
    if constexpr (kWarp) {
        return v;
    } else {
        if (threadIdx.x == 0) *scratch = 0;
        __syncthreads();
        if ((threadIdx.x & 31) == 0) atomicAdd(scratch, static_cast<unsigned long long>(v));
        __syncthreads();
        const long long total = static_cast<long long>(*scratch);
        __syncthreads();
        return total;
    }
}

// Exclusive prefix sum over the block; total gets the block's sum. sums: 32 shared words.
__device__ inline long long block_exclusive_scan(long long v, long long* sums, long long& total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const long long inclusive = warp_inclusive_sum(v);
    if (lane == 31) sums[warp] = inclusive;
    __syncthreads();
    if (warp == 0) sums[lane] = warp_inclusive_sum(lane < warps ? sums[lane] : 0ll);
    __syncthreads();
    const long long before = (warp > 0 ? sums[warp - 1] : 0) + inclusive - v;
    total = sums[warps - 1];
    __syncthreads();
    return before;
}

// The next row of a block-per-row kernel from a shared counter (rows of very different cost
// balance dynamically); `slot`: one shared word.
__device__ inline long long claim_row(unsigned long long* counter, long long* slot) {
    if (threadIdx.x == 0) *slot = static_cast<long long>(atomicAdd(counter, 1ull));
    __syncthreads();
    const long long r = *slot;
    __syncthreads();
    return r;
}

// Hash keys: 32-bit for int32 columns and for column blocks, 64-bit for int64 columns.
template <class I>
using key_t = std::conditional_t<sizeof(I) == 8, unsigned long long, unsigned>;

// A key's first slot: the top bits of a mixed key. Fibonacci hashing alone (one multiply) maps the
// columns of stencil and FEM rows, arithmetic progressions in several strides, onto clusters
// (elasticity's rows of 375 columns averaged 2.2 probes a lookup, their warps 4.4 at the slowest
// lane); a xor-shift before and after the multiply spreads them (1.5 and 2.2) for a few more
// instructions, with every lane active.
template <class K>
__device__ __forceinline__ unsigned home_slot(K key, int log2_capacity) {
    if constexpr (sizeof(K) == 4) {
        unsigned h = static_cast<unsigned>(key);
        h ^= h >> 15;
        h *= 0x2c1b3c6du;
        h ^= h >> 12;
        return h >> (32 - log2_capacity);
    } else {
        unsigned long long h = static_cast<unsigned long long>(key);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 29;
        return static_cast<unsigned>(h >> (64 - log2_capacity));
    }
}

// Finds or claims key's slot; -1 if the table is full (cannot happen when sized from the
// symbolic phase: the bound only keeps a corrupted input from hanging the kernel). Tables hold
// fewer than 2^31 slots. block_bits > 0: the keys of each run of 2^block_bits consecutive
// values share a home block of as many consecutive slots, in their order, and probes step
// 2^block_bits + 1 slots (odd: every slot is reached), so a warp's lanes on a run of columns
// (a mesh row's neighbouring unknowns) load distinct banks and collide together or not at all
// (scripts/spgemm-hash-sim.py).
template <class K>
__device__ __forceinline__ int claim_slot(K* keys, int log2_capacity, K key, int block_bits = 0) {
    constexpr K kEmpty = ~K(0);
    const unsigned capacity = 1u << log2_capacity, mask = capacity - 1;
    const unsigned in_block = (1u << block_bits) - 1;
    unsigned s = (home_slot(key >> block_bits, log2_capacity - block_bits) << block_bits) | (static_cast<unsigned>(key) & in_block);
    const unsigned step = block_bits == 0 ? 1u : in_block + 2;
    for (unsigned probe = 0; probe < capacity; ++probe, s = (s + step) & mask) {
        K k = *reinterpret_cast<volatile K*>(keys + s);
        if (k == kEmpty) {
            const K old = atomicCAS(keys + s, kEmpty, key);
            k = old == kEmpty ? key : old;
        }
        if (k == key) return static_cast<int>(s);
    }
    return -1;
}

// One row's hash table: 2^log2_capacity keys, then as many values. Its pointers name no memory
// kind: a kernel builds the table from shared memory or from a pool slot where it calls an
// inlined row function, one call per memory kind, so that each call's accesses compile to that
// kind's instructions (one pointer that may be either compiles to generic loads and atomics, and
// a float add to a failed global atomic, an address-space test and a compare-and-swap loop).
template <class K, class V>
struct HashTable {
    using key_type = K;
    static constexpr K kEmpty = ~K(0);
    K* keys;
    V* values;
    int log2_capacity;
    int block_bits;  // see claim_slot

    static __device__ __forceinline__ HashTable at(unsigned char* base, int log2_capacity, int block_bits = 0) {
        K* const keys = reinterpret_cast<K*>(base);
        return {keys, reinterpret_cast<V*>(keys + (1ll << log2_capacity)), log2_capacity, block_bits};
    }
    __device__ __forceinline__ long long capacity() const { return 1ll << log2_capacity; }
    // See claim_slot.
    __device__ __forceinline__ int claim(K key) const { return claim_slot(keys, log2_capacity, key, block_bits); }
};

// Whether key is in the table: its probe sequence meets it before an empty slot.
template <class K>
__device__ __forceinline__ bool holds_key(const K* keys, int log2_capacity, K key) {
    constexpr K kEmpty = ~K(0);
    const unsigned capacity = 1u << log2_capacity, mask = capacity - 1;
    unsigned s = home_slot(key, log2_capacity);
    for (unsigned probe = 0; probe < capacity; ++probe, s = (s + 1) & mask) {
        const K k = keys[s];
        if (k == key) return true;
        if (k == kEmpty) return false;
    }
    return false;
}

__device__ __forceinline__ unsigned to_bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned long long to_bits(double x) { return static_cast<unsigned long long>(__double_as_longlong(x)); }
__device__ __forceinline__ float from_bits(unsigned x) { return __uint_as_float(x); }
__device__ __forceinline__ double from_bits(unsigned long long x) { return __longlong_as_double(static_cast<long long>(x)); }

// The value an accumulator starts from: 0 where it is the identity, else NaN, which fmin/fmax
// drop (so the first product wins, and a lone NaN product stays NaN, as in the reference).
template <class Op, class T>
__device__ __forceinline__ T initial_value() {
    if constexpr (Op::kZeroIsIdentity)
        return T(0);
    else if constexpr (sizeof(T) == 8)
        return from_bits(0x7ff8000000000000ull);
    else
        return from_bits(0x7fc00000u);
}

// *at = Op::add(*at, x), atomically.
template <class Op, class T>
__device__ __forceinline__ void atomic_combine(T* at, T x) {
    if constexpr (std::is_same_v<Op, PlusTimes> || std::is_same_v<Op, PlusPair>) {
        atomicAdd(at, x);
    } else {
        using U = decltype(to_bits(T()));
        U* word = reinterpret_cast<U*>(at);
        U old = *reinterpret_cast<volatile U*>(word);
        for (;;) {
            const U want = to_bits(Op::add(from_bits(old), x));
            if (want == old) return;
            const U seen = atomicCAS(word, old, want);
            if (seen == old) return;
            old = seen;
        }
    }
}

// *at = Op::add(*at, x): a plain read-modify-write where the caller's lanes own distinct slots
// (`exclusive`, see owns_distinct_slots), atomically otherwise. Shared-memory float and double
// adds compile to a load and a compare-and-swap loop on sm_90, whose round trip sits in every
// product's chain of dependent operations.
template <class Op, class T>
__device__ __forceinline__ void combine(T* at, T x, bool exclusive) {
    if (exclusive)
        *at = Op::add(*at, x);
    else
        atomic_combine<Op>(at, x);
}

// Whether a group's lanes combine into distinct slots: one sub-group takes all of a round's
// products (one row of B, every lane of the group on it), B's rows have no repeated column (so a
// round's products have distinct columns, hence distinct slots), and the group's lanes meet at
// the end of each round (the kernels' __syncwarp), which orders one round's writes before the
// next round's reads. A block's warps do not meet per round: groups of one warp or less only.
__device__ __forceinline__ bool owns_distinct_slots(bool b_rows_increasing, int sub_groups, int group_size) {
    return b_rows_increasing && sub_groups == 1 && group_size <= 32;
}

// Sorts keys[0, n) (n a power of two, below 2^31) with their values, ascending; empty slots (all
// ones) go last. Each thread takes compare-exchange pairs (i, i + j), so no thread idles in a
// stage; 32-bit positions (64-bit ones doubled the instructions of this loop).
template <class G, class K, class T>
__device__ void sort_by_key(K* keys, T* values, int n) {
    for (int k = 2; k <= n; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int t = G::rank(); t < (n >> 1); t += G::size()) {
                const int i = ((t & ~(j - 1)) << 1) | (t & (j - 1)), l = i + j;
                const K ki = keys[i], kl = keys[l];
                if ((i & k) == 0 ? ki > kl : ki < kl) {
                    keys[i] = kl;
                    keys[l] = ki;
                    const T v = values[i];
                    values[i] = values[l];
                    values[l] = v;
                }
            }
            G::sync();
        }
}

// Moves the occupied slots of a hash table (keys/values[0, capacity)) to its front, in slot
// order, and returns their number. A chunk of the group's size is read into registers before
// the scan's barrier; its writes land at or below its own slots, so no unread slot is lost.
// scan_sums: 32 shared words (blocks only).
template <bool kWarp, class K, class T>
__device__ long long compact_table(K* keys, T* values, long long capacity, long long* scan_sums) {
    using G = Group<kWarp>;
    constexpr K kEmpty = ~K(0);
    long long written = 0;
    for (long long s0 = 0; s0 < capacity; s0 += G::size()) {
        const long long s = s0 + G::rank();
        K key = kEmpty;
        T value{};
        if (s < capacity) {
            key = keys[s];
            value = values[s];
        }
        const bool occupied = key != kEmpty;
        long long before = 0, total = 0;
        if constexpr (kWarp) {
            const unsigned ballot = __ballot_sync(kFullMask, occupied);
            before = __popc(ballot & ((1u << G::rank()) - 1));
            total = __popc(ballot);
            __syncwarp();
        } else {
            before = block_exclusive_scan(occupied ? 1 : 0, scan_sums, total);
        }
        if (occupied) {
            keys[written + before] = key;
            values[written + before] = value;
        }
        written += total;
    }
    G::sync();
    return written;
}

// The table's entries in column order at its front (returns their number): compacted, padded
// with empty keys to a power of two, sorted. Sorting only the occupied entries costs far less
// than sorting the whole table (at least twice as many slots, by the load bound).
template <bool kWarp, class K, class T>
__device__ int sort_table(K* keys, T* values, long long capacity, long long* scan_sums) {
    using G = Group<kWarp>;
    const int count = static_cast<int>(compact_table<kWarp>(keys, values, capacity, scan_sums));
    int n = 1;
    while (n < count) n <<= 1;
    for (int q = count + G::rank(); q < n; q += G::size()) keys[q] = ~K(0);
    G::sync();
    sort_by_key<G>(keys, values, n);
    return count;
}

// Where a block row's entries go in column order without a sort, for rows whose columns span
// few words of bits (a banded or mesh row): a bitmap of the span [lowest, highest] column, one
// bit per column the table holds, and per word the count of bits before it. An entry's place is
// its word's count plus the bits below it in its word. words: the most words the caller has room
// for (bitmap: that many unsigned, counts: that many unsigned short).
struct SpanOrder {
    unsigned* bitmap = nullptr;
    unsigned short* counts = nullptr;
    long long words = 0;
};

// Writes the block's table (keys/values[0, capacity), empty slots all ones) to out_col/out_val
// in column order through `order` and returns true, or returns false (writing nothing) where the
// row's span needs more than order.words words. Every thread of the block calls it.
template <class K, class T, class I>
__device__ bool write_by_span(const K* keys, const T* values, long long capacity, SpanOrder order, long long* scan_sums, I* out_col,
                              T* out_val) {
    constexpr K kEmpty = ~K(0);
    __shared__ K lowest, highest;
    if (threadIdx.x == 0) {
        lowest = kEmpty;
        highest = 0;
    }
    K lo = kEmpty, hi = 0;
    for (long long s = threadIdx.x; s < capacity; s += blockDim.x) {
        const K key = keys[s];
        if (key != kEmpty) {
            lo = key < lo ? key : lo;
            hi = key > hi ? key : hi;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        const K other_lo = __shfl_xor_sync(kFullMask, lo, o), other_hi = __shfl_xor_sync(kFullMask, hi, o);
        lo = other_lo < lo ? other_lo : lo;
        hi = other_hi > hi ? other_hi : hi;
    }
    __syncthreads();  // lowest and highest set
    if ((threadIdx.x & 31) == 0 && lo != kEmpty) {
        atomicMin(&lowest, lo);
        atomicMax(&highest, hi);
    }
    __syncthreads();
    const K first = lowest;
    if (first == kEmpty) return true;  // an empty row
    const long long words = static_cast<long long>((highest - first) >> 5) + 1;
    if (words > order.words) return false;  // every thread read the same two words
    for (long long w = threadIdx.x; w < words; w += blockDim.x) order.bitmap[w] = 0;
    __syncthreads();
    for (long long s = threadIdx.x; s < capacity; s += blockDim.x) {
        const K key = keys[s];
        if (key != kEmpty) atomicOr(order.bitmap + ((key - first) >> 5), 1u << ((key - first) & 31));
    }
    __syncthreads();
    // Each thread counts a run of consecutive words; a block scan gives each run its start.
    const long long per_thread = (words + blockDim.x - 1) / blockDim.x;
    const long long w0 = threadIdx.x * per_thread, w1 = w0 + per_thread < words ? w0 + per_thread : words;
    long long bits = 0;
    for (long long w = w0; w < w1; ++w) bits += __popc(order.bitmap[w]);
    long long total = 0;
    long long before = block_exclusive_scan(bits, scan_sums, total);
    for (long long w = w0; w < w1; ++w) {
        order.counts[w] = static_cast<unsigned short>(before);
        before += __popc(order.bitmap[w]);
    }
    __syncthreads();
    for (long long s = threadIdx.x; s < capacity; s += blockDim.x) {
        const K key = keys[s];
        if (key == kEmpty) continue;
        const long long w = static_cast<long long>((key - first) >> 5);
        const unsigned below = order.bitmap[w] & ((1u << ((key - first) & 31)) - 1u);
        const long long at = order.counts[w] + __popc(below);
        out_col[at] = static_cast<I>(key);
        out_val[at] = values[s];
    }
    return true;
}

// First position in the sorted cols[0, len) not below x.
template <class I>
__device__ __forceinline__ long long lower_bound(const I* cols, long long len, long long x) {
    long long lo = 0, hi = len;
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (static_cast<long long>(cols[mid]) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

template <class I>
__device__ __forceinline__ bool contains(const I* cols, long long len, long long x) {
    const long long q = lower_bound(cols, len, x);
    return q < len && static_cast<long long>(cols[q]) == x;
}

// Bit c set when column 32 * block + c is in the sorted cols[0, len).
template <class I>
__device__ __forceinline__ unsigned bits_in_block(const I* cols, long long len, long long block) {
    unsigned bits = 0;
    for (long long q = lower_bound(cols, len, 32 * block); q < len && static_cast<long long>(cols[q]) < 32 * block + 32; ++q)
        bits |= 1u << (cols[q] & 31);
    return bits;
}

__host__ __device__ inline int ceil_log2(long long x) {
    int b = 0;
    while ((1ll << b) < x) ++b;
    return b;
}

}  // namespace spk::detail::cuda::spgemm
