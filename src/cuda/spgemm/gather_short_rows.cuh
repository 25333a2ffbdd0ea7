#pragma once
// Numeric reuse of short rows of C (bins 1 to 3: at most 128 entries) by gathers instead of
// scatters. The places (reuse_places_kernels.cuh) say where each product goes; replaying them
// scatters into a row's values in shared memory, a compare-and-swap loop a product wherever two
// lanes may meet on one value (sm_90 has no shared-memory float add), and a round of dependent
// loads per entry of A where they cannot. Here the first recompute also sorts each row's products
// by their entry of C (pick_rows): a pick names a product by its entry of A within the row and its
// offset in that entry's row of B, one byte each, and slot_counts[e] says how many products entry
// e of C has. Later recomputes (gather_rows) give each lane entries of C: it reads their counts
// and picks, sums its products in registers and writes its values, no atomics, no shared values,
// and the loads of all its entries' products issue together.
// Rows qualify when their row of A has at most kGatherEntries entries and every row of B they
// reach at most 256 (a pick's two bytes); a bin whose rows do not all qualify keeps the places.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/spgemm/numeric_reuse_kernels.cuh"
#include "cuda/spgemm/reuse_places_kernels.cuh"

namespace spk::detail::cuda::spgemm {

inline constexpr int kGatherEntries = 64;     // entries of A a gathered row may have (staged in shared memory)
inline constexpr long long kGatherOffsets = 256;  // length a row of B reached by a gathered row may have
inline constexpr int kGatherSlots = 128;      // entries of C a gathered row may have (bin 3's limit)
inline constexpr int kGatherLastBin = 3;
inline constexpr int kPickThreads = 128;

// Lanes a row of bin 1, 2 or 3 gets in gather_rows; each lane then holds up to 4 entries of C.
inline constexpr int gather_lanes(int bin) { return bin == 1 ? 8 : bin == 2 ? 16 : 32; }
inline constexpr int kGatherTiles = 4;
static_assert(gather_lanes(kGatherLastBin) * kGatherTiles >= kGatherSlots && kGatherSlots == 4 * 32);

// Writes the picks of every row of a bin (a warp a row) from its places, and each entry of C's
// count of products; sets *unfit where a row does not qualify (the bin then keeps its places).
template <class I>
__global__ void pick_rows(const I* rows, long long num_rows, const I* a_ptr, const I* a_col, const I* b_ptr, const I* c_ptr,
                          const long long* entry_offset, const place_t* places, std::uint16_t* picks, std::uint8_t* slot_counts,
                          unsigned* unfit) {
    __shared__ int counts[kPickThreads / 32][kGatherSlots];
    const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
    int* const cnt = counts[warp];
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    for (long long r = static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + warp; r < num_rows; r += warps) {
        const long long row = rows[r];
        const long long start = c_ptr[row], len = c_ptr[row + 1] - start;
        const long long a_begin = a_ptr[row], entries = a_ptr[row + 1] - a_begin;
        if (len == 0) continue;
        bool too_long = entries > kGatherEntries || len > kGatherSlots;
        for (long long e = lane; !too_long && e < entries; e += 32) {
            const I k = a_col[a_begin + e];
            too_long = static_cast<long long>(b_ptr[k + 1]) - b_ptr[k] > kGatherOffsets;
        }
        if (__any_sync(kFullMask, too_long)) {
            if (lane == 0) atomicOr(unfit, 1u);
            continue;
        }
        for (long long s = lane; s < len; s += 32) cnt[s] = 0;
        __syncwarp();
        const long long base = entry_offset[a_begin];
        // Both passes walk the row's products in A's order (the places' order): entry by entry,
        // the lanes over its row of B.
        const auto for_each_product = [&](auto&& visit) {
            long long t = base;
            for (int e = 0; e < entries; ++e) {
                const I k = a_col[a_begin + e];
                const long long b_len = static_cast<long long>(b_ptr[k + 1]) - b_ptr[k];
                for (int off = lane; off < b_len; off += 32) {
                    const place_t at = places[t + off];
                    if (at != kNoPlace) visit(at, static_cast<std::uint16_t>((e << 8) | off));
                }
                t += b_len;
            }
        };
        for_each_product([&](place_t at, std::uint16_t) { atomicAdd(&cnt[at], 1); });
        __syncwarp();
        // Counts out, then each entry's first pick (an exclusive scan; a lane takes 4 entries in a row).
        int mine[kGatherSlots / 32], sum = 0;
#pragma unroll
        for (int i = 0; i < kGatherSlots / 32; ++i) {
            const int s = lane * (kGatherSlots / 32) + i;
            mine[i] = s < len ? cnt[s] : 0;
            sum += mine[i];
        }
        // A count is at most the row's entries of A, unless B's rows repeat columns: a byte each.
        const bool crowded = mine[0] > 255 || mine[1] > 255 || mine[2] > 255 || mine[3] > 255;
        if (__any_sync(kFullMask, crowded)) {
            if (lane == 0) atomicOr(unfit, 1u);
            __syncwarp();  // the next row zeroes the counts
            continue;
        }
#pragma unroll
        for (int i = 0; i < kGatherSlots / 32; ++i) {
            const int s = lane * (kGatherSlots / 32) + i;
            if (s < len) slot_counts[start + s] = static_cast<std::uint8_t>(mine[i]);
        }
        int upto = sum;
        for (int o = 1; o < 32; o <<= 1) {
            const int x = __shfl_up_sync(kFullMask, upto, o);
            if (lane >= o) upto += x;
        }
        __syncwarp();  // every count read before the cursors overwrite them
        int cursor = upto - sum;
#pragma unroll
        for (int i = 0; i < kGatherSlots / 32; ++i) {
            const int s = lane * (kGatherSlots / 32) + i;
            if (s < len) cnt[s] = cursor;
            cursor += mine[i];
        }
        __syncwarp();
        for_each_product([&](place_t at, std::uint16_t pick) { picks[base + atomicAdd(&cnt[at], 1)] = pick; });
        __syncwarp();  // the next row zeroes the counts
    }
}

// C's values of a bin's rows from the picks, S lanes a row, each lane entries lane, lane + S, ...
// (at most kGatherTiles of them) of C. The row's entries of A (value, start of their row of B)
// wait in shared memory.
template <class Op, class V, class I, int S>
__global__ void gather_rows(ReuseArgs<V, I> p, const std::uint16_t* picks, const std::uint8_t* slot_counts) {
    static_assert(S >= 2 && S <= 32 && (S & (S - 1)) == 0, "S lanes, a power of two up to a warp");
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = static_cast<int>(threadIdx.x) & (S - 1);
    const int group = static_cast<int>(threadIdx.x) / S, groups = static_cast<int>(blockDim.x) / S;
    const unsigned mask = S == 32 ? kFullMask : ((1u << S) - 1u) << (static_cast<int>(threadIdx.x) & 31 & ~(S - 1));
    long long* const b_start = reinterpret_cast<long long*>(smem) + static_cast<long long>(group) * kGatherEntries;
    V* const a_value = reinterpret_cast<V*>(reinterpret_cast<long long*>(smem) + static_cast<long long>(groups) * kGatherEntries) +
                       static_cast<long long>(group) * kGatherEntries;
    const long long step = static_cast<long long>(gridDim.x) * groups;
    for (long long r = static_cast<long long>(blockIdx.x) * groups + group; r < p.num_rows; r += step) {
        const long long row = p.rows[r];
        const long long start = p.c_ptr[row], len = p.c_ptr[row + 1] - start;
        if (len == 0) continue;  // the whole group agrees
        const long long a_begin = p.a_ptr[row], entries = p.a_ptr[row + 1] - a_begin;
        const long long base = p.entry_offset[a_begin];
        for (long long e = lane; e < entries; e += S) {
            a_value[e] = p.a_val[a_begin + e];
            b_start[e] = p.b_ptr[p.a_col[a_begin + e]];
        }
        int count[kGatherTiles], first[kGatherTiles], most = 0, running = 0;
#pragma unroll
        for (int i = 0; i < kGatherTiles; ++i) {
            const long long c = static_cast<long long>(i) * S + lane;
            count[i] = c < len ? slot_counts[start + c] : 0;
            most = count[i] > most ? count[i] : most;
        }
#pragma unroll
        for (int i = 0; i < kGatherTiles; ++i) {  // each entry's first pick: a scan over the row's entries of C
            int upto = count[i];
            for (int o = 1; o < S; o <<= 1) {
                const int x = __shfl_up_sync(mask, upto, o, S);
                if (lane >= o) upto += x;
            }
            first[i] = running + upto - count[i];
            running += __shfl_sync(mask, upto, S - 1, S);
        }
        __syncwarp(mask);  // the row's entries of A are in shared memory
        V sum[kGatherTiles];
#pragma unroll
        for (int i = 0; i < kGatherTiles; ++i) sum[i] = initial_value<Op, V>();
        for (int j = 0; j < most; ++j) {
#pragma unroll
            for (int i = 0; i < kGatherTiles; ++i) {
                if (j < count[i]) {
                    const unsigned pick = picks[base + first[i] + j];
                    const unsigned e = pick >> 8, off = pick & 0xffu;
                    sum[i] = Op::add(sum[i], Op::multiply(a_value[e], p.b_val[b_start[e] + off]));
                }
            }
        }
#pragma unroll
        for (int i = 0; i < kGatherTiles; ++i) {
            const long long c = static_cast<long long>(i) * S + lane;
            if (c < len) p.c_val[start + c] = sum[i];
        }
        __syncwarp(mask);  // the next row's entries overwrite these
    }
}

}  // namespace spk::detail::cuda::spgemm
