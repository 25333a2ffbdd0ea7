#pragma once
// Numeric reuse with kept places for short rows of C (bins 1 to 4: at most 256 entries), S lanes
// a row. replay_rows hands A's entries to sub-groups a round at a time, so a row of a stencil
// product (Laplace: 7 entries of A, 49 products, 25 of C) walks a chain of dependent loads per
// round: each round loads an entry of A, then its row of B's bounds, then the products. Here the
// row's lanes take S entries of A at once, one each; a scan of their rows' lengths numbers the
// chunk's products, and lane t takes products t, t + S, ...: every product of the chunk is one
// place and one value of B, all loaded together, and the row costs about five dependent loads
// (row id, row bounds, A's entries, B's row bounds, the products) instead of two a round.
// A product's entry of A is the first lane whose inclusive scan passes its number (a binary search
// over the lanes by shuffles); products of one round belong to several entries, so two lanes can
// meet on one value slot and every product combines by an atomic: replays_short (reuse_places.cuh)
// keeps replay_rows where its rounds need none.
#include <cuda_runtime.h>

#include "cuda/spgemm/numeric_reuse_kernels.cuh"
#include "cuda/spgemm/reuse_places_kernels.cuh"

namespace spk::detail::cuda::spgemm {

// A pass numbers at most this many products of each entry of A, so that S entries' products fit an
// int (S <= 32); a row of B longer than this (only conceivable with 64-bit indices or a row of A
// repeating one column) takes more passes.
inline constexpr long long kReplayPass = 1ll << 25;
// Products a lane loads before it combines any (memory-level parallelism per lane).
inline constexpr int kReplayBatch = 4;

template <class Op, class V, class I, int S>
__global__ void replay_short_rows(ReuseArgs<V, I> p) {
    static_assert(S >= 2 && S <= 32 && (S & (S - 1)) == 0, "S lanes, a power of two up to a warp");
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = static_cast<int>(threadIdx.x) & (S - 1);
    const int group = static_cast<int>(threadIdx.x) / S, groups = static_cast<int>(blockDim.x) / S;
    const unsigned mask = S == 32 ? kFullMask : ((1u << S) - 1u) << (static_cast<int>(threadIdx.x) & 31 & ~(S - 1));
    V* const values = reinterpret_cast<V*>(smem + static_cast<long long>(group) * (1ll << p.log2_capacity) * sizeof(V));
    const long long step = static_cast<long long>(gridDim.x) * groups;
    for (long long r = static_cast<long long>(blockIdx.x) * groups + group; r < p.num_rows; r += step) {
        const long long row = p.rows[r];
        const long long start = p.c_ptr[row], len = p.c_ptr[row + 1] - start;
        if (len == 0) continue;  // the whole group agrees
        const long long a_begin = p.a_ptr[row], a_end = p.a_ptr[row + 1];
        long long chunk_place = p.entry_offset[a_begin];  // the row's products' places are contiguous, in A's order
        for (long long t = lane; t < len; t += S) values[t] = initial_value<Op, V>();
        __syncwarp(mask);
        for (long long chunk = a_begin; chunk < a_end; chunk += S) {
            const long long pa = chunk + lane;
            V a = V(0);
            long long b_begin = 0, b_len = 0;
            if (pa < a_end) {
                const I k = p.a_col[pa];
                a = p.a_val[pa];
                b_begin = p.b_ptr[k];
                b_len = static_cast<long long>(p.b_ptr[k + 1]) - b_begin;
            }
            long long before = b_len;  // inclusive scan of the chunk's product counts, then exclusive
            for (int o = 1; o < S; o <<= 1) {
                const long long x = __shfl_up_sync(mask, before, o, S);
                if (lane >= o) before += x;
            }
            const long long chunk_products = __shfl_sync(mask, before, S - 1, S);
            before -= b_len;
            const long long place_minus_q = chunk_place + before - b_begin;  // this entry's product q sits at places[q + place_minus_q]
            for (long long pass = 0;; pass += kReplayPass) {
                const int count = static_cast<int>(b_len - pass < 0 ? 0 : b_len - pass < kReplayPass ? b_len - pass : kReplayPass);
                int upto = count;  // inclusive scan of this pass's counts
                for (int o = 1; o < S; o <<= 1) {
                    const int x = __shfl_up_sync(mask, upto, o, S);
                    if (lane >= o) upto += x;
                }
                const int total = __shfl_sync(mask, upto, S - 1, S);
                const long long q_minus_t = b_begin + pass - (upto - count);  // product t of the pass, if this lane's: q = t + q_minus_t
                for (int t0 = 0; t0 < total; t0 += kReplayBatch * S) {
                    place_t at[kReplayBatch];
                    V product[kReplayBatch];
#pragma unroll
                    for (int i = 0; i < kReplayBatch; ++i) {  // every load of the batch first, then the combines
                        const int t = t0 + i * S + lane;
                        int owner = 0;  // the first lane whose scan passes t
                        for (int half = S / 2; half > 0; half >>= 1) {
                            const int seen = __shfl_sync(mask, upto, owner + half - 1, S);
                            if (seen <= t) owner += half;
                        }
                        const long long q = t + __shfl_sync(mask, q_minus_t, owner, S);
                        const long long place = q + __shfl_sync(mask, place_minus_q, owner, S);
                        const V a_owner = __shfl_sync(mask, a, owner, S);
                        at[i] = t < total ? p.places[place] : kNoPlace;
                        product[i] = t < total ? Op::multiply(a_owner, p.b_val[q]) : V(0);
                    }
#pragma unroll
                    for (int i = 0; i < kReplayBatch; ++i)
                        if (at[i] != kNoPlace) atomic_combine<Op>(values + at[i], product[i]);
                }
                if (!__any_sync(mask, b_len - pass > kReplayPass)) break;
            }
            chunk_place += chunk_products;
        }
        __syncwarp(mask);
        for (long long t = lane; t < len; t += S) p.c_val[start + t] = values[t];
        __syncwarp(mask);  // the next row's values overwrite these
    }
}

// Lanes a row of bin `bin` gets in replay_short_rows (0: the bin's rows are not short).
inline int short_replay_lanes(int bin) { return bin == 1 ? 8 : bin == 2 ? 16 : bin <= 4 ? 32 : 0; }

}  // namespace spk::detail::cuda::spgemm
