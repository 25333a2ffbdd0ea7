#pragma once
// The FusedMM forward kernel: one pass over each row, a group of G lanes per (row, head).
// Work split: a block is a row block, kBlockThreads / G consecutive rows of one head (the head
// varies fastest from block to block), so rows with equal or similar patterns (stencils, the
// triples of a 3-dof elasticity matrix) read the same Y_j and Z_j rows at about the same time
// and find them in L1. Under sum and mean without saved attention, rows longer than a threshold
// are cut into chunks (split.cuh): the row blocks skip them, and the first blocks of the grid
// walk the (chunk, head) items instead, writing each chunk's partial state for combine_chunks.
// With block items (small graphs, groups of whole warps: fused::ChunkList::team_threshold) each
// chunk takes a whole block, and so does each team row (longer than the team threshold, not
// cut), its warps walking spans of it and merging in shared memory as row teams do.
// Per batch of kForwardBatch entries: the scores (X_i's share in registers, loaded once; Y_j per
// entry; the batch's sums over the group at once), the edge function, the online softmax
// (running max m and sum l, the accumulator rescaled by exp(m_old - m_new) when m grows, as in
// flash attention) and the weighted Z_j rows. Groups of 4 lanes or more split into a slot an
// entry for the softmax, so that each exp runs once a slot, not once an entry in every lane.
// Nothing of size nnz is written unless the attention is asked for; then, under softmax, a
// second sweep recomputes the scores once m and l are final.
// Max aggregation under softmax is the exception: its winners are decided by comparing
// α_ij Z_j with α = exp(w - m) / l for the row's final m and l, exactly as the reference does.
// A running max would compare an early winner's value rescaled by exp(m_old - m_new) against
// later values computed afresh; the two round differently, and once m grows far enough both
// underflow to 0, where the reference's "first in the row wins" must decide, not the order in
// which the rescales happened. So that case first sweeps the row for m and l (no Z reads), then
// aggregates with the final weights.
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/fusedmm/split.cuh"

namespace spk::detail::cuda::fused {

template <class T, class I>
using ForwardArgs = ForwardKernelArgs<T, I, accum_t<T>>;

// This lane's parts of the batch's vector scores (dot or negative squared distance) for head h:
// xi is X_i's head slice, xr its first chunks in registers, y the head's Y rows.
template <class T, class I, int G, int VEC>
__device__ __forceinline__ void score_parts(const ForwardArgs<T, I>& args, const Gather<T>& y,
                                            const accum_t<T> (&xr)[forward_lane_elements(VEC) / VEC][VEC], const T* xi,
                                            const I (&j)[kForwardBatch], accum_t<T> (&part)[kForwardBatch], int lane) {
    using A = accum_t<T>;
    constexpr int C = forward_lane_elements(VEC) / VEC;
    const Rules& r = args.rules;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const long long f = chunk_start<G, VEC>(c, lane);
        if (f >= r.d) {
            if (c == 0)  // a lane past the row's end adds nothing
#pragma unroll
                for (int b = 0; b < kForwardBatch; ++b) part[b] = 0;
            break;
        }
        A yv[kForwardBatch][VEC];
#pragma unroll
        for (int b = 0; b < kForwardBatch; ++b) load_vec<T, VEC>(y.row(j[b]) + c * G * VEC, yv[b]);
        // The first chunk's terms start the parts (0 + s is not s for s = -0: the adds would stay).
#pragma unroll
        for (int b = 0; b < kForwardBatch; ++b) part[b] = c == 0 ? score_terms(r.score, xr[c], yv[b]) : part[b] + score_terms(r.score, xr[c], yv[b]);
    }
    // Score widths beyond the register share read X_i again (from L1).
    for (long long c = C; c * G * VEC < r.d; ++c) {
        const long long f = chunk_start<G, VEC>(c, lane);
        if (f >= r.d) break;
        A xv[VEC], yv[kForwardBatch][VEC];
        load_vec<T, VEC>(xi + f, xv);
#pragma unroll
        for (int b = 0; b < kForwardBatch; ++b) load_vec<T, VEC>(y.row(j[b]) + c * G * VEC, yv[b]);
#pragma unroll
        for (int b = 0; b < kForwardBatch; ++b) part[b] += score_terms(r.score, xv, yv[b]);
    }
}

// w = edge(score) for a batch of the row's entries p0 .. p0+kForwardBatch-1, in every lane.
template <class T, class I, int G, int VEC>
__device__ __forceinline__ void forward_weights(const ForwardArgs<T, I>& args, int h, const Gather<T>& y,
                                                const accum_t<T> (&xr)[forward_lane_elements(VEC) / VEC][VEC], const T* xi, long long p0,
                                                const I (&j)[kForwardBatch], const bool (&valid)[kForwardBatch],
                                                accum_t<T> (&w)[kForwardBatch], int lane, unsigned mask) {
    using A = accum_t<T>;
    const Rules& r = args.rules;
    switch (r.score) {
        case Score::value:
#pragma unroll
            for (int b = 0; b < kForwardBatch; ++b) w[b] = to_accum(args.a_values[valid[b] ? p0 + b : p0]);
            break;
        case Score::add: {
            const A xs = to_accum(xi[0]);
#pragma unroll
            for (int b = 0; b < kForwardBatch; ++b) w[b] = xs + to_accum(args.y[j[b] * args.ldy + h]);
            break;
        }
        case Score::dot:
        case Score::neg_sqdist: {
            A part[kForwardBatch];
            score_parts<T, I, G, VEC>(args, y, xr, xi, j, part, lane);
            finish_scores<G>(r.score, part, w, mask);
            break;
        }
    }
#pragma unroll
    for (int b = 0; b < kForwardBatch; ++b) w[b] = edge_apply(r.edge, w[b]);
}

// The lanes of a group form kForwardBatch slots of G / kForwardBatch lanes; slot s holds entry
// p0 + s of a batch. The softmax's scalar work (the edge function, exp) then runs once a slot
// instead of once an entry in every lane.
template <int G>
constexpr int kSlotLanes = G / kForwardBatch;

// arr[index] for a lane-dependent index, by selects (indexing a register array at run time would
// move it to local memory).
template <class X, int N>
__device__ __forceinline__ X pick(const X (&arr)[N], int index) {
    X v = arr[0];
#pragma unroll
    for (int b = 1; b < N; ++b) v = index == b ? arr[b] : v;
    return v;
}

// edge(score) of the entry of this lane's slot (G >= kForwardBatch), a vector score's parts summed
// for the whole batch at once and not broadcast.
template <class T, class I, int G, int VEC>
__device__ __forceinline__ accum_t<T> slot_weight(const ForwardArgs<T, I>& args, int h, const Gather<T>& y,
                                                  const accum_t<T> (&xr)[forward_lane_elements(VEC) / VEC][VEC], const T* xi, long long p0,
                                                  const I (&j)[kForwardBatch], bool slot_valid, int slot, int lane,
                                                  unsigned mask) {
    using A = accum_t<T>;
    const Rules& r = args.rules;
    A s;
    switch (r.score) {
        case Score::value:
            s = to_accum(args.a_values[slot_valid ? p0 + slot : p0]);
            break;
        case Score::add:
            s = to_accum(xi[0]) + to_accum(args.y[pick(j, slot) * args.ldy + h]);
            break;
        default: {
            A part[kForwardBatch];
            score_parts<T, I, G, VEC>(args, y, xr, xi, j, part, lane);
            s = group_transpose_sum<G, kForwardBatch>(part, mask);
            if (r.score == Score::neg_sqdist) s = -s;
        }
    }
    return edge_apply(r.edge, s);
}

// The batch's column indices from p0 (< end) on; past the end, entry p0's again (ignored).
// Returns the entries left in the batch (batch_left).
template <class I>
__device__ __forceinline__ int batch_columns(const I* col_idx, long long p0, long long end, I (&j)[kForwardBatch],
                                              bool (&valid)[kForwardBatch]) {
    const int left = batch_left<kForwardBatch>(p0, end);
    const I* at = col_idx + p0;
    j[0] = at[0];
    valid[0] = true;
#pragma unroll
    for (int b = 1; b < kForwardBatch; ++b) {
        valid[b] = b < left;
        j[b] = valid[b] ? at[b] : j[0];
    }
    return left;
}

// One batch of the online softmax: m grows to the batch's largest weight (NaN weights never
// win, as with std::max), l follows, and w becomes exp(w - m). Returns exp(m_old - m_new), the
// factor the running sums must take (1 when m stays; 0 at the first batch, m being -inf).
template <class A>
__device__ __forceinline__ A online_softmax(A (&w)[kForwardBatch], const bool (&valid)[kForwardBatch], A& m, A& l) {
    A top = m;
#pragma unroll
    for (int b = 0; b < kForwardBatch; ++b)
        if (valid[b] && w[b] > top) top = w[b];
    A shrink = 1;
    if (top > m) {
        shrink = exp(m - top);
        l *= shrink;
        m = top;
    }
#pragma unroll
    for (int b = 0; b < kForwardBatch; ++b) {
        w[b] = valid[b] ? exp(w[b] - m) : A(0);
        l += w[b];
    }
    return shrink;
}

// online_softmax with the batch's weights in slots (mine: this lane's slot's): the batch's
// largest weight by shuffles across the slots, one exp a lane, then every lane takes each entry's
// exp(w - m) from its slot. l_part is the slot's share of l (slot_total adds the shares); l
// adds up in another order than online_softmax's, the rest is the same arithmetic.
template <int G, class A>
__device__ __forceinline__ A slot_online_softmax(A mine, bool mine_valid, A& m, A& l_part, A (&w)[kForwardBatch], unsigned mask) {
    A top = mine_valid && mine == mine ? mine : minus_infinity<A>();  // NaN weights never win
#pragma unroll
    for (int offset = G / 2; offset >= kSlotLanes<G>; offset /= 2) top = fmax(top, __shfl_xor_sync(mask, top, offset, G));
    A shrink = 1;
    if (top > m) {
        shrink = softmax_exp(m - top);
        l_part *= shrink;
        m = top;
    }
    const A e = mine_valid ? softmax_exp(mine - m) : A(0);
    l_part += e;
#pragma unroll
    for (int b = 0; b < kForwardBatch; ++b) w[b] = __shfl_sync(mask, e, b * kSlotLanes<G>, G);
    return shrink;
}

// The sum of the slots' shares (each held by all lanes of its slot).
template <int G, class A>
__device__ __forceinline__ A slot_total(A share, unsigned mask) {
#pragma unroll
    for (int offset = G / 2; offset >= kSlotLanes<G>; offset /= 2) share += __shfl_xor_sync(mask, share, offset, G);
    return share;
}

// The lanes of this group's row team (fused_row_team.hpp): `size` groups of G lanes side by side
// in one warp, each walking a contiguous span of the row.
template <int G>
__device__ __forceinline__ unsigned team_mask(int size) {
    const int lanes = G * size, first = (static_cast<int>(threadIdx.x) & 31) / lanes * lanes;
    return lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1) << first;
}

// Merges the team's states into every lane, by a butterfly over the groups: under softmax as
// combine_chunks merges chunks (each side's sum and accumulator rescaled to the larger max; a
// side that saw no entry has max -inf and counts for nothing), otherwise by plain sums.
template <int G, int C, int VEC, class A>
__device__ __forceinline__ void merge_team(int size, bool softmax, A& m, A& l, A (&acc)[C][VEC]) {
    const unsigned mask = team_mask<G>(size);
    for (int offset = G; offset < G * size; offset *= 2) {
        A mine = 1, theirs = 1;
        if (softmax) {
            const A m_other = __shfl_xor_sync(mask, m, offset);
            const A l_other = __shfl_xor_sync(mask, l, offset);
            const A top = m > m_other ? m : m_other;
            mine = m == minus_infinity<A>() ? A(0) : exp(m - top);
            theirs = m_other == minus_infinity<A>() ? A(0) : exp(m_other - top);
            l = l * mine + l_other * theirs;
            m = top;
        }
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int q = 0; q < VEC; ++q) acc[c][q] = acc[c][q] * mine + __shfl_xor_sync(mask, acc[c][q], offset) * theirs;
    }
}

// The shared memory a block's teams of whole warps merge through: every lane's accumulator
// (lane-major, so that the stores and loads of a warp hit 32 banks) and each warp's max and sum.
template <class A, int E>
constexpr size_t team_state_bytes = (static_cast<size_t>(kBlockThreads) * E + 2 * (kBlockThreads / 32)) * sizeof(A);

// merge_team for teams of whole warps (G = 32): each warp leaves its state in shared memory, the
// team meets at its own named barrier (other teams of the block, and those that left early, are
// not waited for), then every member takes the merged max and sum (the attention's second sweep
// needs them) and the first, which writes E_i, the merged accumulator.
template <int C, int VEC, class A>
__device__ __forceinline__ void merge_team_warps(int size, bool softmax, A& m, A& l, A (&acc)[C][VEC]) {
    extern __shared__ __align__(16) unsigned char team_states[];
    constexpr int E = C * VEC;
    A* accs = reinterpret_cast<A*>(team_states);
    A* stats = accs + kBlockThreads * E;  // warp w's max at 2w, its sum at 2w + 1
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) & 31;
    const int first = warp / size * size;
    if (warp != first)
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int q = 0; q < VEC; ++q) accs[(warp * E + c * VEC + q) * 32 + lane] = acc[c][q];
    if (lane == 0) {
        stats[2 * warp] = m;
        stats[2 * warp + 1] = l;
    }
    // Barrier 0 is __syncthreads; a block holds at most 4 teams of 2 warps or more.
    asm volatile("barrier.sync %0, %1;" ::"r"(1 + warp / size), "r"(32 * size) : "memory");
    A top = minus_infinity<A>();
    for (int w = first; w < first + size; ++w) top = fmax(top, stats[2 * w]);
    A total = 0;
    for (int w = first; w < first + size; ++w) {
        const A mw = stats[2 * w];
        const A scale = !softmax ? A(1) : mw == minus_infinity<A>() ? A(0) : exp(mw - top);
        total += stats[2 * w + 1] * scale;
        if (warp != first) continue;
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
            for (int q = 0; q < VEC; ++q)
                acc[c][q] = w == first ? acc[c][q] * scale : acc[c][q] + accs[(w * E + c * VEC + q) * 32 + lane] * scale;
    }
    if (softmax) {
        m = top;
        l = total;
    }
}

// The groups that walk one item together (forward_kernel): a block for a chunk or a team row with
// block items, args.team for a row block's row, else one.
template <class T, class I, int G, bool TEAMS>
__device__ __forceinline__ int forward_team(const ForwardArgs<T, I>& args, long long k) {
    if constexpr (!TEAMS) return 1;
    const SplitArgs<I, accum_t<T>>& split = args.split;
    const bool block_items = G == 32 && split.block_items;  // groups of whole warps only (fusedmm.cu)
    if (k >= 0) return block_items ? kBlockThreads / G : 1;
    if (block_items && blockIdx.x < split.blocks + split.team_blocks) return kBlockThreads / G;
    return args.team;
}

// Entries begin .. end-1 of row i, head h, this block's tile: a whole row or a team member's span
// of one (k < 0), whose E row, statistics and attention it writes (the team's first member; each
// member writes its span's attention), or chunk k of a long row, whose state it writes. What the
// team needs after the walk is derived again there, so that nothing of it is live during the walk
// (kept, it pushed the hot kernels' spills into the batch loop). TEAMS: the kernel forms teams
// (args.team > 1, or block items), a kernel of its own: the merge's code alone, compiled into the kernels that
// run without teams, cost them spills in the batch loop (H200, one head: with the shared-memory
// merge, R-MAT 20 at k = 128 3.3 -> 4.2 ms and squirrel 74 -> 85 us; with the shuffle merge,
// Laplace 128^3 at k = 32 669 -> 740 us and luxembourg_osm 32 -> 36 us).
template <class T, class I, int G, int VEC, bool MAX, bool TEAMS>
__device__ __forceinline__ void forward_work(const ForwardArgs<T, I>& args, long long i, int h, long long begin, long long end, long long k,
                                             int lane, unsigned mask) {
    using A = accum_t<T>;
    constexpr int C = forward_lane_elements(VEC) / VEC;
    const Rules& r = args.rules;
    const SplitArgs<I, A>& split = args.split;
    const long long tile0 = static_cast<long long>(blockIdx.y) * C;
    const bool first_tile = blockIdx.y == 0;
    const bool uses_x = r.score != Score::value;
    const T* xi = uses_x ? args.x + i * args.ldx + h * r.d : nullptr;
    const bool write_attention = args.attention != nullptr && first_tile && lane == 0;
    const Gather<T> y = gather_rows(vector_score(r.score) ? args.y + h * r.d + chunk_start<G, VEC>(0, lane) : nullptr, args.ldy);
    const long long fz0 = chunk_start<G, VEC>(tile0, lane);  // this lane's first value of E_i's tile
    const Gather<T> z = gather_rows(args.z + h * r.dz + fz0, args.ldz);

    A xr[C][VEC];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const long long f = chunk_start<G, VEC>(c, lane);
        load_or_zero<T, VEC>(xi, f, vector_score(r.score) && f < r.d, xr[c]);
    }
    A m = minus_infinity<A>(), l = 0;
    // Max aggregation under softmax: m and l first, so that the aggregation sees the final α.
    const bool final_weights = MAX && r.softmax;
    if (final_weights)
        for (long long p0 = begin; p0 < end; p0 += kForwardBatch) {
            I j[kForwardBatch];
            bool valid[kForwardBatch];
            batch_columns(args.col_idx, p0, end, j, valid);
            A w[kForwardBatch];
            forward_weights<T, I, G, VEC>(args, h, y, xr, xi, p0, j, valid, w, lane, mask);
            online_softmax(w, valid, m, l);
        }

    // The softmax by slots where the group has a lane for each entry of a batch (then l is the
    // slot's share until the loop ends).
    const bool by_slot = G >= kForwardBatch && r.softmax && !final_weights;
    A acc[C][VEC];
    I arg[C][VEC];
#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
        for (int q = 0; q < VEC; ++q) {
            acc[c][q] = 0;
            arg[c][q] = I(-1);
        }
    for (long long p0 = begin; p0 < end; p0 += kForwardBatch) {
        I j[kForwardBatch];
        bool valid[kForwardBatch];
        const int left = batch_columns(args.col_idx, p0, end, j, valid);
        A w[kForwardBatch];
        A shrink = 1;
        bool weighed = false;
        if constexpr (G >= kForwardBatch) {
            if (by_slot) {
                const int slot = lane / kSlotLanes<G>;
                const A mine = slot_weight<T, I, G, VEC>(args, h, y, xr, xi, p0, j, slot < left, slot, lane, mask);
                shrink = slot_online_softmax<G>(mine, slot < left, m, l, w, mask);
                weighed = true;
            }
        }
        if (!weighed) {
            forward_weights<T, I, G, VEC>(args, h, y, xr, xi, p0, j, valid, w, lane, mask);
            if (final_weights) {
#pragma unroll
                for (int b = 0; b < kForwardBatch; ++b) w[b] = valid[b] ? exp(w[b] - m) / l : A(0);  // the reference's α, to the rounding
            } else if (r.softmax) {
                shrink = online_softmax(w, valid, m, l);
            }
        }
        if (shrink < A(1))
#pragma unroll
            for (int c = 0; c < C; ++c)
#pragma unroll
                for (int q = 0; q < VEC; ++q) acc[c][q] *= shrink;
        // Without softmax w is α; with final weights too. Otherwise a second sweep writes α.
        if (write_attention && (!r.softmax || final_weights))
#pragma unroll
            for (int b = 0; b < kForwardBatch; ++b)
                if (valid[b]) args.attention[(p0 + b) * args.ld_attention + h] = from_accum<T>(w[b]);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            if (fz0 + c * G * VEC >= r.dz) break;
            A zv[kForwardBatch][VEC];
#pragma unroll
            for (int b = 0; b < kForwardBatch; ++b) load_vec<T, VEC>(z.row(j[b]) + c * G * VEC, zv[b]);
#pragma unroll
            for (int b = 0; b < kForwardBatch; ++b) {
                if (!valid[b]) continue;
#pragma unroll
                for (int q = 0; q < VEC; ++q) {
                    const A v = w[b] * zv[b][q];
                    if constexpr (!MAX) {
                        acc[c][q] += v;
                    } else if (arg[c][q] < 0 || v > acc[c][q] || (v != v && acc[c][q] == acc[c][q])) {
                        // Entries come in row order: the first maximum wins ties; a NaN takes over and stays.
                        acc[c][q] = v;
                        arg[c][q] = j[b];
                    }
                }
            }
        }
    }

    if constexpr (G >= kForwardBatch)
        if (by_slot) l = slot_total<G>(l, mask);
    // The walk's team, derived again from the block (forward_kernel) rather than kept through the walk.
    const int team = forward_team<T, I, G, TEAMS>(args, k);
    if constexpr (TEAMS) {
        if (team > 1) {
            if constexpr (G == 32)
                merge_team_warps<C, VEC>(team, r.softmax, m, l, acc);  // groups of whole warps
            else
                merge_team<G>(team, r.softmax, m, l, acc);
        }
    }
    const bool writer = static_cast<int>(threadIdx.x) / G % team == 0;

    if (!MAX && k >= 0) {  // a chunk: its state, unnormalised, for combine_chunks
        if (!writer) return;
        const long long state = k * r.heads + h;
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const long long f = chunk_start<G, VEC>(tile0 + c, lane);
            if (f >= r.dz) break;
            store_vec<A, VEC>(split.partial_acc + state * r.dz + f, acc[c]);
        }
        if (r.softmax && first_tile && lane == 0) {
            split.partial_max[state] = m;
            split.partial_sum[state] = l;
        }
        return;
    }

    const long long len = static_cast<long long>(args.row_ptr[i + 1]) - static_cast<long long>(args.row_ptr[i]);
    A factor = 0;  // an empty row gives E_i = 0
    if (len > 0) {
        factor = r.softmax && !final_weights ? A(1) / l : A(1);
        if (r.aggregate == Aggregate::mean) factor /= static_cast<A>(len);
    }
#pragma unroll
    for (int c = 0; c < C && writer; ++c) {
        const long long f = chunk_start<G, VEC>(tile0 + c, lane);
        if (f >= r.dz) break;
        A out[VEC];
#pragma unroll
        for (int q = 0; q < VEC; ++q) out[q] = len > 0 ? acc[c][q] * factor : A(0);
        store_vec<T, VEC>(args.e + i * args.lde + h * r.dz + f, out);
        if constexpr (MAX) {
#pragma unroll
            for (int q = 0; q < VEC; ++q) args.argmax[i * args.ld_argmax + h * r.dz + f + q] = arg[c][q];
        }
    }
    if (!r.softmax || !first_tile) return;
    if (lane == 0 && writer) {
        args.row_max[i * r.heads + h] = m;
        args.row_sum[i * r.heads + h] = l;
    }
    if (args.attention == nullptr || final_weights) return;
    // α = exp(w - m) / l needs the final m and l: a second sweep recomputes w.
    for (long long p0 = begin; p0 < end; p0 += kForwardBatch) {
        I j[kForwardBatch];
        bool valid[kForwardBatch];
        batch_columns(args.col_idx, p0, end, j, valid);
        A w[kForwardBatch];
        forward_weights<T, I, G, VEC>(args, h, y, xr, xi, p0, j, valid, w, lane, mask);
        if (lane == 0)
#pragma unroll
            for (int b = 0; b < kForwardBatch; ++b)
                if (valid[b]) args.attention[(p0 + b) * args.ld_attention + h] = from_accum<T>(exp(w[b] - m) / l);
    }
}

// CR: what the kernel knows of the rules when compiled (kernel_args.hpp): max aggregation, or
// dot-product attention's rules, whose batch loop is a third of the machine code of the general one.
// TEAMS: row blocks of teams (args.team > 1) or block items (never under max), launched with
// team_state_bytes where the groups are whole warps.
template <class T, class I, int G, int VEC, CompiledRules CR, bool TEAMS>
__global__ void __launch_bounds__(kBlockThreads, forward_min_blocks<T, VEC, CR == CompiledRules::max>)
    forward_kernel(const ForwardArgs<T, I> args) {
    wait_for_previous_grid();  // launched after the stream's previous kernel (launch_after_previous)
    constexpr bool MAX = CR == CompiledRules::max;
    constexpr int kGroups = kBlockThreads / G;
    const Rules& r = args.rules;
    const SplitArgs<I, accum_t<T>>& split = args.split;
    const int slot = static_cast<int>(threadIdx.x) / G;
    long long i, begin, end, k = -1;
    int h, team = 1;
    // A walk of `team` groups over entries from..to-1, this group member `member` of them.
    const auto span = [&](long long from, long long to, int member) {
        begin = from + chunk_offset(member, to - from, team);
        end = from + chunk_offset(member + 1, to - from, team);
    };
    const bool block_items = TEAMS && G == 32 && split.block_items;  // as forward_team
    if (!MAX && blockIdx.x < split.blocks) {
        // A chunk block: a group a (chunk, head) item, or with block items a block. The blocks
        // cover every item the workspaces allow; those past the chunks find_long_rows made leave
        // at once.
        const long long item = block_items ? static_cast<long long>(blockIdx.x) : static_cast<long long>(blockIdx.x) * kGroups + slot;
        if (item >= static_cast<long long>(*split.counts & 0xffffffffull) * r.heads) return;  // whole groups (blocks) leave together
        k = item / r.heads;
        h = static_cast<int>(item % r.heads);
        i = split.chunk_row[k];
        const long long row_begin = args.row_ptr[i], len = static_cast<long long>(args.row_ptr[i + 1]) - row_begin;
        const long long count = chunk_count(len, split.threshold), c = split.chunk_part[k];
        team = block_items ? kGroups : 1;
        span(row_begin + chunk_offset(c, len, count), row_begin + chunk_offset(c + 1, len, count), block_items ? slot : 0);
    } else if (block_items && blockIdx.x < split.blocks + split.team_blocks) {
        // A team row's block: a (row, head), each group an equal span.
        const long long item = static_cast<long long>(blockIdx.x) - split.blocks;
        i = split.team_rows[item / r.heads];
        h = static_cast<int>(item % r.heads);
        team = kGroups;
        span(args.row_ptr[i], args.row_ptr[i + 1], slot);
    } else {
        // A row block: kGroups / team consecutive rows of one head, a team of groups a row, each
        // member an equal span of it.
        team = TEAMS ? args.team : 1;
        const long long block = static_cast<long long>(blockIdx.x) - split.blocks - (block_items ? split.team_blocks : 0);
        h = static_cast<int>(block % r.heads);
        i = block / r.heads * (kGroups / team) + slot / team;
        if (i >= args.rows) return;  // whole teams leave together
        const long long row_begin = args.row_ptr[i], len = static_cast<long long>(args.row_ptr[i + 1]) - row_begin;
        if (len > (block_items ? split.team_threshold : split.threshold)) return;  // a long row: chunk or team-row blocks walk it
        span(row_begin, row_begin + len, slot % team);
    }
    if constexpr (CR == CompiledRules::attention) {
        ForwardArgs<T, I> attention = args;
        attention.rules = attention_rules(args.rules);
        forward_work<T, I, G, VEC, false, TEAMS>(attention, i, h, begin, end, k, group_lane<G>(), group_mask<G>());
    } else {
        forward_work<T, I, G, VEC, MAX, TEAMS>(args, i, h, begin, end, k, group_lane<G>(), group_mask<G>());
    }
}

}  // namespace spk::detail::cuda::fused
