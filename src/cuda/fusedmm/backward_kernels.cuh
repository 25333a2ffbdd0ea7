#pragma once
// The FusedMM backward kernels, recomputing what the forward pass did not keep:
//   rows (a group per row i and head h, or all heads for dA): α_ij from the saved statistics
//     (or the saved attention), dα_ij = c <dE_i, Z_j> (masked to the values j won under max),
//     σ_i = Σ_j α_ij dα_ij, ds_ij = (softmax ? α (dα - σ) : dα) f'(s); writes dX_i, dA and σ.
//   columns (a group per column j of A and head h, over Aᵀ's pattern): the same terms per entry,
//     gathered into dZ_j = Σ_i c α_ij dE_i and dY_j from ds_ij; σ_i comes from the row kernel.
// Both gather into registers and write each output row once: no atomics, no nnz-sized scratch.
// Rows' values that every entry of a group reuses (X_i, dE_i in the row kernel; Y_j, Z_j in the
// column kernel) are re-read per entry and come from L1.
// Long rows and long columns (split.cuh): each kernel's first blocks take the chunks of the rows
// (columns) longer than a threshold, a group a (chunk, head) item, and write the chunk's share of
// the sums (σ or dX; dZ and dY) for combine_sums; the other blocks skip those rows (columns).
// Under softmax a row chunk's ds needs the whole row's σ, so the row kernel runs twice on the
// chunks: the sigma pass (with the short rows, done whole) gives σ's shares, combine_sums adds
// them into σ, then a launch of the chunks alone gives the dX shares and the chunks' dA. When the
// caller gave the forward's output E, σ_i = <dE_i, E_i> per head comes first (sigma_from_output)
// and every row, whole or chunked, is walked once.
// When one chunk covers a head's widths the kernels run the resident path instead
// (backward_resident.cuh): the same terms, each row loaded once into registers. Under
// FusedOptions::backward_edge_terms the resident row kernel stores each entry's c α and ds, and
// the column kernel only gathers (backward_stored.cuh).
#include "cuda/fusedmm/backward_resident.cuh"
#include "cuda/fusedmm/backward_stored.cuh"

namespace spk::detail::cuda::fused {

// Entries begin .. end-1 of row i, heads h0 .. h0 + row_heads - 1, this block's tile: a whole row
// (chunk_id < 0), whose σ, dX and dA it writes, or chunk chunk_id of a long row, whose share of σ
// (sigma pass) or of dX (with dA for its entries, from the combined σ) it writes.
template <class T, class I, int G, int VEC>
__device__ __forceinline__ void backward_row_work(const BackwardArgs<T, I>& args, long long i, int h0, long long begin, long long end,
                                                  long long chunk_id, int lane, unsigned mask) {
    using A = accum_t<T>;
    constexpr int C = chunks_per_tile<VEC>;
    const Rules& r = args.rules;
    const BackwardSplit<I, A>& split = args.split;
    const long long tile0 = static_cast<long long>(blockIdx.y) * C;
    const bool first_tile = blockIdx.y == 0;
    const bool chunk = chunk_id >= 0;
    const bool want_ds = args.dx != nullptr || args.da != nullptr;

    for (int h = h0; h < h0 + args.row_heads; ++h) {
        const long long state = chunk_id * r.heads + h;  // a chunk's (chunk, head) share
        A sigma = 0;
        if (r.softmax && (args.sigma_given || (chunk && !split.sigma_pass))) {
            sigma = args.sigma[i * r.heads + h];  // from E, or combined from the sigma pass's shares
        } else if (r.softmax) {
            for (long long p0 = begin; p0 < end; p0 += kBackwardBatch) {
                const Batch<I> e = row_batch(args.col_idx, i, p0, end);
                Terms<A> t;
                entry_terms<T, I, G, VEC>(args, h, e, t, lane, mask);
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b)
                    if (e.valid[b]) sigma += t.alpha[b] * t.dalpha[b];
            }
            if (first_tile && lane == 0) write_sigma(args, i, h, chunk_id, sigma);
            if (chunk) continue;  // the sigma pass gives σ's share alone
        }
        if (!want_ds) continue;

        A dx[C][VEC];
#pragma unroll
        for (int c = 0; c < C; ++c) zero<T, VEC>(dx[c]);
        A dx_add = 0;  // the add score's dX(i, h)
        for (long long p0 = begin; p0 < end; p0 += kBackwardBatch) {
            const Batch<I> e = row_batch(args.col_idx, i, p0, end);
            Terms<A> t;
            entry_terms<T, I, G, VEC>(args, h, e, t, lane, mask);
            A ds[kBackwardBatch];
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b) ds[b] = e.valid[b] ? score_gradient(r, t, b, sigma) : A(0);
            if (args.da != nullptr && first_tile && lane == 0) add_to_da(args, e, h, h0, ds);
            if (args.dx == nullptr) continue;
            if (r.score == Score::add) {
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b) dx_add += ds[b];
                continue;
            }
            add_score_gradient<T, G, VEC, C>(r, dx, ds, e.valid, args.x + i * args.ldx + h * r.d, args.y + h * r.d, args.ldy, e.j, tile0,
                                             lane);
        }
        if (args.dx == nullptr) continue;
        if (r.score == Score::add) {
            if (first_tile && lane == 0) {
                if (chunk)
                    split.partial_dx[state] = dx_add;
                else
                    args.dx[i * args.lddx + h] = from_accum<T>(dx_add);
            }
            continue;
        }
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const long long f = chunk_start<G, VEC>(tile0 + c, lane);
            if (f >= r.d) break;
            if (chunk)
                store_vec<A, VEC>(split.partial_dx + state * r.d + f, dx[c]);
            else
                store_vec<T, VEC>(args.dx + i * args.lddx + h * r.d + f, dx[c]);
        }
    }
}

// Blocks 0 .. split.rows.blocks-1 take the chunks of long rows, a group a (chunk, head group)
// item; the others a group a (row, head group), skipping long rows. A launch for the chunks alone
// has no row blocks.
// P: the general path, or the resident one (one chunk covers the head's widths, one tile). CR:
// what the resident paths know of the rules when compiled (the general path reads them).
template <class T, class I, int G, int VEC, BackwardPath P, CompiledRules CR>
__global__ void __launch_bounds__(kBlockThreads, backward_min_blocks<T>(P)) backward_rows_kernel(const BackwardArgs<T, I> args) {
    constexpr int kGroups = kBlockThreads / G;
    const ChunkList<I>& list = args.split.rows;
    const int head_groups = args.rules.heads / args.row_heads;
    const int slot = static_cast<int>(threadIdx.x) / G;
    long long i, begin, end, k = -1;
    int h0;
    if (blockIdx.x < list.blocks) {
        if (args.split.sigma_pass && blockIdx.y > 0) return;  // σ's shares are the first tile's
        const long long item = static_cast<long long>(blockIdx.x) * kGroups + slot;
        if (item >= list.max_chunks * head_groups) return;  // whole groups leave together
        k = item / head_groups;
        h0 = static_cast<int>(item % head_groups) * args.row_heads;
        i = list.chunk_row[k];
        const long long row_begin = args.row_ptr[i], len = static_cast<long long>(args.row_ptr[i + 1]) - row_begin;
        const long long count = chunk_count(len, list.threshold), c = list.chunk_part[k];
        begin = row_begin + chunk_offset(c, len, count);
        end = row_begin + chunk_offset(c + 1, len, count);
    } else {
        const long long group = ((static_cast<long long>(blockIdx.x) - list.blocks) * kBlockThreads + threadIdx.x) / G;
        if (group >= args.rows * head_groups) return;
        i = group / head_groups;
        h0 = static_cast<int>(group % head_groups) * args.row_heads;
        begin = args.row_ptr[i];
        end = args.row_ptr[i + 1];
        if (end - begin > list.threshold) return;  // a long row: the chunk blocks walk it
    }
    if constexpr (CR == CompiledRules::attention)
        resident_row_work<T, I, G, VEC, true, false>(attention_rules(args), i, h0, begin, end, k, group_lane<G>(), group_mask<G>());
    else if constexpr (P != BackwardPath::general)
        resident_row_work<T, I, G, VEC, P == BackwardPath::resident_vector, CR == CompiledRules::max>(args, i, h0, begin, end, k,
                                                                                                       group_lane<G>(), group_mask<G>());
    else
        backward_row_work<T, I, G, VEC>(args, i, h0, begin, end, k, group_lane<G>(), group_mask<G>());
}

// Entries begin .. end-1 of Aᵀ's row j (A's column j), head h, this block's tile: a whole column
// (chunk_id < 0), whose dZ_j and dY_j it writes, or chunk chunk_id of a long column, whose shares
// it writes.
template <class T, class I, int G, int VEC>
__device__ __forceinline__ void backward_column_work(const BackwardArgs<T, I>& args, long long j, int h, long long begin, long long end,
                                                     long long chunk_id, int lane, unsigned mask) {
    using A = accum_t<T>;
    constexpr int C = chunks_per_tile<VEC>;
    const Rules& r = args.rules;
    const BackwardSplit<I, A>& split = args.split;
    const long long tile0 = static_cast<long long>(blockIdx.y) * C;
    const bool first_tile = blockIdx.y == 0;
    const bool chunk = chunk_id >= 0;
    const long long state = chunk_id * r.heads + h;  // a chunk's (chunk, head) share
    const bool max_agg = r.aggregate == Aggregate::max;

    A dz[C][VEC], dy[C][VEC];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        zero<T, VEC>(dz[c]);
        zero<T, VEC>(dy[c]);
    }
    A dy_add = 0;
    for (long long t0 = begin; t0 < end; t0 += kBackwardBatch) {
        const Batch<I> e = column_batch(args.t_row, args.t_entry, j, t0, end);
        Terms<A> t;
        entry_terms<T, I, G, VEC>(args, h, e, t, lane, mask);
        if (args.dz != nullptr) {
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const long long f = chunk_start<G, VEC>(tile0 + c, lane);
                if (f >= r.dz) break;
                A gv[kBackwardBatch][VEC];
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b) load_vec<T, VEC>(args.de + e.i[b] * args.ldde + h * r.dz + f, gv[b]);
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b) {
                    if (!e.valid[b]) continue;
                    const A beta = t.c[b] * t.alpha[b];
#pragma unroll
                    for (int k = 0; k < VEC; ++k)
                        if (!max_agg || args.argmax[e.i[b] * args.ld_argmax + h * r.dz + f + k] == e.j[b]) dz[c][k] += beta * gv[b][k];
                }
            }
        }
        if (args.dy == nullptr) continue;
        A ds[kBackwardBatch];
#pragma unroll
        for (int b = 0; b < kBackwardBatch; ++b)
            ds[b] = e.valid[b] ? score_gradient(r, t, b, r.softmax ? args.sigma[e.i[b] * r.heads + h] : A(0)) : A(0);
        if (r.score == Score::add) {
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b) dy_add += ds[b];
            continue;
        }
        add_score_gradient<T, G, VEC, C>(r, dy, ds, e.valid, args.y + j * args.ldy + h * r.d, args.x + h * r.d, args.ldx, e.i, tile0, lane);
    }
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const long long f = chunk_start<G, VEC>(tile0 + c, lane);
        if (args.dz != nullptr && f < r.dz) {
            if (chunk)
                store_vec<A, VEC>(split.partial_dz + state * r.dz + f, dz[c]);
            else
                store_vec<T, VEC>(args.dz + j * args.lddz + h * r.dz + f, dz[c]);
        }
        if (args.dy != nullptr && vector_score(r.score) && f < r.d) {
            if (chunk)
                store_vec<A, VEC>(split.partial_dy + state * r.d + f, dy[c]);
            else
                store_vec<T, VEC>(args.dy + j * args.lddy + h * r.d + f, dy[c]);
        }
    }
    if (args.dy != nullptr && r.score == Score::add && first_tile && lane == 0) {
        if (chunk)
            split.partial_dy[state] = dy_add;
        else
            args.dy[j * args.lddy + h] = from_accum<T>(dy_add);
    }
}

// Blocks 0 .. split.columns.blocks-1 take the chunks of long columns, a group a (chunk, head)
// item; the others a group a (column, head), skipping long columns.
template <class T, class I, int G, int VEC, BackwardPath P, CompiledRules CR>
__global__ void __launch_bounds__(kBlockThreads, backward_min_blocks<T>(P)) backward_columns_kernel(const BackwardArgs<T, I> args) {
    constexpr int kGroups = kBlockThreads / G;
    const ChunkList<I>& list = args.split.columns;
    const int heads = args.rules.heads;
    const int slot = static_cast<int>(threadIdx.x) / G;
    long long j, begin, end, k = -1;
    int h;
    if (blockIdx.x < list.blocks) {
        const long long item = static_cast<long long>(blockIdx.x) * kGroups + slot;
        if (item >= list.max_chunks * heads) return;  // whole groups leave together
        k = item / heads;
        h = static_cast<int>(item % heads);
        j = list.chunk_row[k];
        const long long column_begin = args.col_ptr[j], len = static_cast<long long>(args.col_ptr[j + 1]) - column_begin;
        const long long count = chunk_count(len, list.threshold), c = list.chunk_part[k];
        begin = column_begin + chunk_offset(c, len, count);
        end = column_begin + chunk_offset(c + 1, len, count);
    } else {
        const long long group = ((static_cast<long long>(blockIdx.x) - list.blocks) * kBlockThreads + threadIdx.x) / G;
        if (group >= args.cols * heads) return;
        j = group / heads;
        h = static_cast<int>(group % heads);
        begin = args.col_ptr[j];
        end = args.col_ptr[j + 1];
        if (end - begin > list.threshold) return;  // a long column: the chunk blocks walk it
    }
    if constexpr (P == BackwardPath::stored_columns)
        stored_column_work<T, I, G, VEC>(CR == CompiledRules::attention ? attention_rules(args) : args, j, h, begin, end, k, group_lane<G>());
    else if constexpr (CR == CompiledRules::attention)
        resident_column_work<T, I, G, VEC, true, false>(attention_rules(args), j, h, begin, end, k, group_lane<G>(), group_mask<G>());
    else if constexpr (P != BackwardPath::general)
        resident_column_work<T, I, G, VEC, P == BackwardPath::resident_vector, CR == CompiledRules::max>(args, j, h, begin, end, k,
                                                                                                          group_lane<G>(), group_mask<G>());
    else
        backward_column_work<T, I, G, VEC>(args, j, h, begin, end, k, group_lane<G>(), group_mask<G>());
}

}  // namespace spk::detail::cuda::fused
