#pragma once
// Numeric reuse with the products grouped by their entry of C (SpgemmReuse::entries). At the first
// recompute, once each product's place in its row is known (record_places), the products of the
// covered rows are laid out in the order of their entries of C, 8 bytes each: A's entry, B's entry
// and the entry's offset in its tile of kEntryTile entries of C. Later recomputes run
// replay_entries: a warp takes a tile, loads its products 32 at a time with their values of A and
// B, sums each entry's run of products by a segmented scan across the lanes and writes the tile's
// entries once, coalesced. No row structure is read (no row ids, row bounds, A's columns or B's
// row bounds), so a warp's work waits on two loads (the products, then their values), which the
// warp overlaps with the previous batch's sums; the places' replay waits on a chain of five or
// more per row (reuse_places_kernels.cuh), which bounds short rows (Laplace 128^3 squared, f64,
// H200: 0.82 ms for 98M products) well below the memory's speed. No atomics: a plan's recomputes
// all sum in the same order, and the semiring's add needs no atomic form.
// Smaller records do not make it faster: 5-byte records (B's entry and the key in 4 bytes, A's entry
// as a byte's offset from the tile's first) cut the plan's memory by 30% but ran 3-5% slower on the
// H200 (Laplace 128^3 squared, f64: 0.592 against 0.570 ms; uniform 1M x 16: 2.20 against 2.14), a
// second load a product against traffic that was not the limit (stop 23).
// The values of B are gathered a product at a time, where the places' replay reads B's rows
// whole: where those rows are long, the places' replay is ahead (kEntriesMaxRowOfB, replay_entries.cuh).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/spgemm/binning.cuh"
#include "cuda/spgemm/device_table.cuh"
#include "cuda/spgemm/reuse_places_kernels.cuh"

namespace spk::detail::cuda::spgemm {

inline constexpr int kEntryTileBits = 6;
inline constexpr int kEntryTile = 1 << kEntryTileBits;      // entries of C a warp replays at once
inline constexpr int kEntryBBits = 32 - kEntryTileBits;     // a record's bits for B's entry
inline constexpr unsigned kEntryBMask = (1u << kEntryBBits) - 1;
inline constexpr int kEntryBatch = 4;    // products a lane loads before it sums any
inline constexpr int kEntryThreads = 256;

// A record: A's entry in the low 32 bits; above them B's entry | (the entry of C's offset in its tile) << kEntryBBits.
using EntryRecord = std::uint64_t;
__device__ __forceinline__ unsigned record_a(EntryRecord r) { return static_cast<unsigned>(r); }
__device__ __forceinline__ unsigned record_b(EntryRecord r) { return static_cast<unsigned>(r >> 32) & kEntryBMask; }
__device__ __forceinline__ int record_key(EntryRecord r) { return static_cast<int>(r >> (32 + kEntryBBits)); }

// Whether row `row` of C is covered: a non-empty row of bins 1 to max_bin.
template <class I>
__device__ __forceinline__ bool entry_row_covered(const I* c_ptr, long long row, int max_bin) {
    const int bin = bin_of(static_cast<long long>(c_ptr[row + 1]) - c_ptr[row]);
    return bin >= 1 && bin <= max_bin;
}

// Walks every placed product of the covered rows, a warp a row and a lane an entry of A, calling
// at(entry of C, A's entry, B's entry); then the row's first lane calls row_done(A's entries in the row).
template <class V, class I, class At, class RowDone>
__device__ __forceinline__ void for_each_placed_product(const ReuseArgs<V, I>& shape, long long rows, int max_bin, At&& at, RowDone&& row_done) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    for (long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; row < rows; row += warps) {
        if (!entry_row_covered(shape.c_ptr, row, max_bin)) continue;  // the whole warp agrees
        const long long start = shape.c_ptr[row];
        const long long a_begin = shape.a_ptr[row], a_end = shape.a_ptr[row + 1];
        for (long long pa = a_begin + lane; pa < a_end; pa += 32) {
            const I k = shape.a_col[pa];
            const long long b_begin = shape.b_ptr[k], b_end = shape.b_ptr[k + 1];
            const place_t* places = shape.places + shape.entry_offset[pa] - b_begin;
            for (long long q = b_begin; q < b_end; ++q)
                if (places[q] != kNoPlace) at(start + places[q], pa, q);
        }
        if (lane == 0) row_done(a_end - a_begin);
    }
}

// Counts each covered entry's products into counts[e], and the covered rows' entries of A into *a_entries.
template <class V, class I>
__global__ void count_entry_products(ReuseArgs<V, I> shape, long long rows, int max_bin, unsigned* counts, unsigned long long* a_entries) {
    for_each_placed_product(
        shape, rows, max_bin, [&](long long e, long long, long long) { atomicAdd(&counts[e], 1u); },
        [&](long long n) { atomicAdd(a_entries, static_cast<unsigned long long>(n)); });
}

// Writes each covered product's record at its entry's next free position (cursor[e], which starts
// at the entry's first position).
template <class V, class I>
__global__ void place_entry_products(ReuseArgs<V, I> shape, long long rows, int max_bin, unsigned* cursor, EntryRecord* records) {
    for_each_placed_product(
        shape, rows, max_bin,
        [&](long long e, long long pa, long long q) {
            const unsigned at = atomicAdd(&cursor[e], 1u);
            const unsigned b_and_key = static_cast<unsigned>(q) | static_cast<unsigned>(e % kEntryTile) << kEntryBBits;
            records[at] = static_cast<EntryRecord>(pa) | static_cast<EntryRecord>(b_and_key) << 32;
        },
        [](long long) {});
}

// tile_start[t] = the position of tile t's first product: cursor[min(t * kEntryTile, entries)].
template <class T>
__global__ void entry_tile_starts(const T* cursor, long long entries, long long tiles, T* tile_start) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t <= tiles) tile_start[t] = cursor[min(t * kEntryTile, entries)];
}

template <class V>
struct EntryReplayArgs {
    const EntryRecord* records;
    const unsigned* tile_start;  // tiles + 1
    long long tiles;
    const V* a_val;
    const V* b_val;
    V* c_val;
};

// Loads up to kEntryBatch * 32 records from `base` (those before `end`), a lane's at base + u * 32 + lane.
__device__ __forceinline__ void load_entry_records(const EntryRecord* records, unsigned base, unsigned end, int lane, EntryRecord (&r)[kEntryBatch]) {
#pragma unroll
    for (int u = 0; u < kEntryBatch; ++u) {
        const unsigned at = base + static_cast<unsigned>(u * 32 + lane);
        r[u] = at < end ? records[at] : EntryRecord{0};
    }
}

// A warp a tile of C's entries, grid-stride. Batches of products flow through one loop: while a
// batch's values load, the warp fetches the next batch's records (the rest of this tile's, or the
// next tile's first), so a tile costs about one round trip to memory, not two.
template <class Op, class V>
__global__ void __launch_bounds__(kEntryThreads, 5) replay_entries(EntryReplayArgs<V> p) {
    constexpr int kWarps = kEntryThreads / 32;
    __shared__ V sums[kWarps][kEntryTile];
    __shared__ bool reached[kWarps][kEntryTile];  // the entry got a product: this kernel owns it
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    V* const sum = sums[warp];
    bool* const hit = reached[warp];
    const long long step = static_cast<long long>(gridDim.x) * kWarps;
    long long tile = static_cast<long long>(blockIdx.x) * kWarps + warp;
    if (tile >= p.tiles) return;
    unsigned base = p.tile_start[tile], end = p.tile_start[tile + 1];
    long long next_tile = tile + step;
    unsigned next_begin = next_tile < p.tiles ? p.tile_start[next_tile] : 0, next_end = next_tile < p.tiles ? p.tile_start[next_tile + 1] : 0;
    for (int t = lane; t < kEntryTile; t += 32) {
        sum[t] = initial_value<Op, V>();
        hit[t] = false;
    }
    EntryRecord r[kEntryBatch];
    load_entry_records(p.records, base, end, lane, r);
    while (true) {
        V x[kEntryBatch];
#pragma unroll
        for (int u = 0; u < kEntryBatch; ++u)
            x[u] = base + static_cast<unsigned>(u * 32 + lane) < end ? Op::multiply(p.a_val[record_a(r[u])], p.b_val[record_b(r[u])])
                                                                     : initial_value<Op, V>();
        const bool last = end - base <= static_cast<unsigned>(kEntryBatch * 32);
        const unsigned following = last ? next_begin : base + kEntryBatch * 32, following_end = last ? next_end : end;
        EntryRecord r_next[kEntryBatch];
        load_entry_records(p.records, following, following_end, lane, r_next);
        __syncwarp();  // the previous batch's sums are in shared memory
#pragma unroll
        for (int u = 0; u < kEntryBatch; ++u) {
            if (base + static_cast<unsigned>(u * 32) >= end) break;  // the whole warp agrees
            const bool valid = base + static_cast<unsigned>(u * 32 + lane) < end;
            const int key = valid ? record_key(r[u]) : kEntryTile;  // sorted within the batch
            V v = x[u];
            // Segmented inclusive scan: a lane adds the partial sum d lanes back when that lane is
            // in its run (keys are sorted, so every lane between is too).
            for (int d = 1; d < 32; d <<= 1) {
                const V up = __shfl_up_sync(kFullMask, v, d);
                const int up_key = __shfl_up_sync(kFullMask, key, d);
                if (lane >= d && up_key == key) v = Op::add(up, v);
            }
            const int next_key = __shfl_down_sync(kFullMask, key, 1);
            if (valid && (lane == 31 || next_key != key)) {  // the run's last lane holds its sum
                sum[key] = Op::add(sum[key], v);
                hit[key] = true;
            }
            __syncwarp();
        }
        if (last) {
            const long long first = tile * kEntryTile;
            for (int t = lane; t < kEntryTile; t += 32)
                if (hit[t]) {
                    p.c_val[first + t] = sum[t];
                    sum[t] = initial_value<Op, V>();
                    hit[t] = false;
                }
            tile = next_tile;
            if (tile >= p.tiles) break;
            end = next_end;
            next_tile += step;
            next_begin = next_tile < p.tiles ? p.tile_start[next_tile] : 0;
            next_end = next_tile < p.tiles ? p.tile_start[next_tile + 1] : 0;
        }
        base = following;
#pragma unroll
        for (int u = 0; u < kEntryBatch; ++u) r[u] = r_next[u];
    }
}

}  // namespace spk::detail::cuda::spgemm
