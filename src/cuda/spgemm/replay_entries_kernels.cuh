#pragma once
// Numeric reuse with the products grouped by their entry of C (SpgemmReuse::entries). At the first
// recompute, once each product's place in its row is known (record_places), the products of the
// covered rows are laid out in the order of their entries of C: B's entry and the entry's offset in
// its tile of kEntryTile entries of C in 4 bytes, A's entry in 1 byte as an offset from the tile's
// first (narrow records, where every tile's rows hold fewer than kNarrowSpan entries of A), or in 4
// bytes (wide records, 8 bytes a product). Later recomputes run
// replay_entries: a warp takes a tile, loads its products 32 at a time with their values of A and
// B, sums each entry's run of products by a segmented scan across the lanes and writes the tile's
// entries once, coalesced. No row structure is read (no row ids, row bounds, A's columns or B's
// row bounds), so a warp's work waits on two loads (the products, then their values), which the
// warp overlaps with the previous batch's sums; the places' replay waits on a chain of five or
// more per row (reuse_places_kernels.cuh), which bounds short rows (Laplace 128^3 squared, f64,
// H200: 0.82 ms for 98M products) well below the memory's speed. The records are most of the
// replay's memory traffic (Laplace 128^3 squared, f64: 784 of 1600 MB with wide records): hence
// the narrow form. No atomics: a plan's recomputes
// all sum in the same order, and the semiring's add needs no atomic form.
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
// Narrow records keep the high half (`EntryKey`) and A's entry less the tile's first (`std::uint8_t`) in two arrays.
using EntryRecord = std::uint64_t;
using EntryKey = std::uint32_t;
inline constexpr long long kNarrowSpan = 256;  // entries of A a tile's rows may span for narrow records
inline constexpr unsigned kNoTileEntry = 0xffffffffu;  // a tile without products: its first entry of A
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
// at(entry of C, A's entry, B's entry); then each lane calls row_done(lane, C's and A's entries of the row).
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
        row_done(lane, start, static_cast<long long>(shape.c_ptr[row + 1]), a_begin, a_end);
    }
}

// Counts each covered entry's products into counts[e] and the covered rows' entries of A into
// *a_entries; keeps in tile_a_first / tile_a_last the first and last entry of A of the rows each
// tile of entries touches (both start at kNoTileEntry / 0).
template <class V, class I>
__global__ void count_entry_products(ReuseArgs<V, I> shape, long long rows, int max_bin, unsigned* counts, unsigned long long* a_entries,
                                     unsigned* tile_a_first, unsigned* tile_a_last) {
    for_each_placed_product(
        shape, rows, max_bin, [&](long long e, long long, long long) { atomicAdd(&counts[e], 1u); },
        [&](int lane, long long c_begin, long long c_end, long long a_begin, long long a_end) {
            if (lane == 0) atomicAdd(a_entries, static_cast<unsigned long long>(a_end - a_begin));
            if (a_end == a_begin) return;  // no products (C's row is empty too)
            for (long long t = c_begin / kEntryTile + lane; t <= (c_end - 1) / kEntryTile; t += 32) {
                atomicMin(&tile_a_first[t], static_cast<unsigned>(a_begin));
                atomicMax(&tile_a_last[t], static_cast<unsigned>(a_end - 1));
            }
        });
}

// Writes each covered product's record at its entry's next free position (cursor[e], which starts
// at the entry's first position): wide records, or narrow ones where a_offset is given.
template <class V, class I>
__global__ void place_entry_products(ReuseArgs<V, I> shape, long long rows, int max_bin, unsigned* cursor, EntryRecord* records, EntryKey* keys,
                                     std::uint8_t* a_offset, const unsigned* tile_a_first) {
    for_each_placed_product(
        shape, rows, max_bin,
        [&](long long e, long long pa, long long q) {
            const unsigned at = atomicAdd(&cursor[e], 1u);
            const EntryKey key = static_cast<unsigned>(q) | static_cast<unsigned>(e % kEntryTile) << kEntryBBits;
            if (a_offset) {
                keys[at] = key;
                a_offset[at] = static_cast<std::uint8_t>(pa - tile_a_first[e / kEntryTile]);
            } else {
                records[at] = static_cast<EntryRecord>(pa) | static_cast<EntryRecord>(key) << 32;
            }
        },
        [](int, long long, long long, long long, long long) {});
}

// tile_start[t] = the position of tile t's first product: cursor[min(t * kEntryTile, entries)]; and
// *widest = the most entries of A any tile's rows span (tile_a_first/last from count_entry_products).
template <class T>
__global__ void entry_tile_starts(const T* cursor, long long entries, long long tiles, T* tile_start, const unsigned* tile_a_first,
                                  const unsigned* tile_a_last, unsigned long long* widest) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t <= tiles) tile_start[t] = cursor[min(t * kEntryTile, entries)];
    if (t < tiles && tile_a_first[t] != kNoTileEntry)
        atomicMax(widest, static_cast<unsigned long long>(tile_a_last[t] - tile_a_first[t]) + 1);
}

template <class V>
struct EntryReplayArgs {
    const EntryRecord* records;  // wide records, or null
    const EntryKey* keys;        // narrow records: B's entry and the offset in the tile
    const std::uint8_t* a_offset;  // narrow records: A's entry less the tile's first
    const unsigned* tile_a_first;  // narrow records: each tile's first entry of A
    const unsigned* tile_start;  // tiles + 1
    long long tiles;
    const V* a_val;
    const V* b_val;
    V* c_val;
};

// Loads up to kEntryBatch * 32 records from `base` (those before `end`), a lane's at base + u * 32 + lane,
// each as a wide record whose A entry, for narrow ones, is the offset from the tile's first.
template <bool Narrow, class V>
__device__ __forceinline__ void load_entry_records(const EntryReplayArgs<V>& p, unsigned base, unsigned end, int lane, EntryRecord (&r)[kEntryBatch]) {
#pragma unroll
    for (int u = 0; u < kEntryBatch; ++u) {
        const unsigned at = base + static_cast<unsigned>(u * 32 + lane);
        if constexpr (Narrow)
            r[u] = at < end ? p.a_offset[at] | static_cast<EntryRecord>(p.keys[at]) << 32 : EntryRecord{0};
        else
            r[u] = at < end ? p.records[at] : EntryRecord{0};
    }
}

// A warp a tile of C's entries, grid-stride. Batches of products flow through one loop: while a
// batch's values load, the warp fetches the next batch's records (the rest of this tile's, or the
// next tile's first), so a tile costs about one round trip to memory, not two.
template <class Op, class V, bool Narrow>
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
    const auto first_a = [&](long long t) { return Narrow && t < p.tiles ? p.tile_a_first[t] : 0u; };
    unsigned base = p.tile_start[tile], end = p.tile_start[tile + 1], a_first = first_a(tile);
    long long next_tile = tile + step;
    unsigned next_begin = next_tile < p.tiles ? p.tile_start[next_tile] : 0, next_end = next_tile < p.tiles ? p.tile_start[next_tile + 1] : 0;
    unsigned next_a_first = first_a(next_tile);
    for (int t = lane; t < kEntryTile; t += 32) {
        sum[t] = initial_value<Op, V>();
        hit[t] = false;
    }
    EntryRecord r[kEntryBatch];
    load_entry_records<Narrow>(p, base, end, lane, r);
    while (true) {
        V x[kEntryBatch];
#pragma unroll
        for (int u = 0; u < kEntryBatch; ++u)
            x[u] = base + static_cast<unsigned>(u * 32 + lane) < end ? Op::multiply(p.a_val[a_first + record_a(r[u])], p.b_val[record_b(r[u])])
                                                                     : initial_value<Op, V>();
        const bool last = end - base <= static_cast<unsigned>(kEntryBatch * 32);
        const unsigned following = last ? next_begin : base + kEntryBatch * 32, following_end = last ? next_end : end;
        EntryRecord r_next[kEntryBatch];
        load_entry_records<Narrow>(p, following, following_end, lane, r_next);
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
            a_first = next_a_first;
            next_tile += step;
            next_begin = next_tile < p.tiles ? p.tile_start[next_tile] : 0;
            next_end = next_tile < p.tiles ? p.tile_start[next_tile + 1] : 0;
            next_a_first = first_a(next_tile);
        }
        base = following;
#pragma unroll
        for (int u = 0; u < kEntryBatch; ++u) r[u] = r_next[u];
    }
}

}  // namespace spk::detail::cuda::spgemm
