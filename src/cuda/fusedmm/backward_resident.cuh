#pragma once
// The FusedMM backward when one chunk of G*VEC values covers a head's score width d and output
// width dz (every f32 head up to 128 wide with 16-byte vectors): the resident path. A lane holds
// VEC values of each row it touches; the group's own rows (X_i and dE_i in the row kernel, Y_j
// and Z_j in the column kernel) are loaded once, and a batch's other rows (Y_j and Z_j; X_i and
// dE_i) are loaded together, once, and serve the score, dα and the gradient sums from registers.
// The general path (backward_kernels.cuh) re-reads rows per use and keeps kLaneElements
// accumulators a lane for wide heads; on the H200 (uniform 1M x 16, 4 heads of 32) its row and
// column kernels held 125 and 110 registers, a quarter of the threads an SM can hold, and the
// column kernel moved 0.8 TB/s against the forward kernel's 3.7.
#include "cuda/fusedmm/backward_terms.cuh"

namespace spk::detail::cuda::fused {

// f32's resident kernels ask for 3 blocks of 256 threads an SM: at most 80 registers a thread,
// with a few hundred bytes of spills where they would take 124-128 unbounded. On the H200 (4 heads
// of 32, k = 32) that took the backward from 26.5 to 23.3 ms on uniform 1M x 16, 13.8 to 12.3 on
// elasticity 40^3 x 3 and 7.7 to 5.9 on R-MAT 18 over 2 blocks an SM. The other types (wider
// accumulators or more values a vector) spill twice that at 80 and keep 2 blocks (f16 and
// bf16, 8 values a vector, still spill 260-420 bytes at 128).
// With scalar scores (GAT's add, GCN's values) the kernels hold no rows of X and Y, and f32's ask
// for 4 blocks (64 registers, 140-170 bytes of spills against 20-36 at 80): on the H200, GAT's
// shapes on R-MAT 20 (16.1M entries) took the backward from 19.6 to 15.9 ms (4 heads of 32) and
// from 5.4 to 4.6 ms (1 head of 16) over 3 blocks.
template <class T>
constexpr int resident_min_blocks = sizeof(T) == 4 ? 3 : 2;

template <class T>
constexpr int backward_min_blocks(BackwardPath p) {
    if (p == BackwardPath::general) return 1;
    const bool light = p == BackwardPath::resident_scalar || p == BackwardPath::stored_columns;
    return light && sizeof(T) == 4 ? 4 : resident_min_blocks<T>;
}

// args with dot-product attention's rules written in as constants (attention_rules), scores
// recomputed rather than read from saved α, so that a kernel walking them folds every branch on the
// rules.
template <class T, class I>
__device__ __forceinline__ BackwardArgs<T, I> attention_rules(BackwardArgs<T, I> args) {
    args.rules = attention_rules(args.rules);
    args.recompute = true;
    args.use_saved = false;
    return args;
}

// The batch's scalar scores (add, value; vector scores are summed in resident_sums): x_scalar +
// y_scalar for add, A's value for value, 0 where nothing is recomputed.
template <class T, class I>
__device__ __forceinline__ void scalar_scores(const BackwardArgs<T, I>& args, int h, const Batch<I>& e, Terms<accum_t<T>>& t) {
    const Rules& r = args.rules;
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) {
        t.s[b] = 0;
        if (!args.recompute) continue;
        if (r.score == Score::value)
            t.s[b] = to_accum(args.a_values[e.p[b]]);
        else if (r.score == Score::add)
            t.s[b] = to_accum(args.x[e.i[b] * args.ldx + h]) + to_accum(args.y[static_cast<long long>(e.j[b]) * args.ldy + h]);
    }
}

// The batch's scores t.s and the sums behind dα (dalpha_sum[b] = Σ_k [won(b, k)] g_bk z_bk over
// the head's dz values, where won(b, k) (max aggregation only, else true) says entry b's column
// won output value k of its row; dα = c dalpha_sum once entry_weights gives c). `mine` is the
// group's own row, `theirs` the batch's (the score is symmetric in X_i and Y_j). A vector score's
// parts and the dα parts are summed over the group together, 2B sums by one transposed sum
// (finish_scores): at G = 32 and B = 2, 10 shuffles a batch where four group sums took 20, a
// tenth of the row kernel's instructions. `won` is a predicate, not an array: a
// [kBackwardBatch][VEC] array of flags cost the kernels their spill-free 80 registers.
template <class T, class I, int G, int VEC, bool VECTOR, class Won>
__device__ __forceinline__ void resident_sums(const BackwardArgs<T, I>& args, int h, const Batch<I>& e, const accum_t<T> (&mine)[VEC],
                                              const accum_t<T> (&theirs)[kBackwardBatch][VEC], const accum_t<T> (&g)[kBackwardBatch][VEC],
                                              const accum_t<T> (&z)[kBackwardBatch][VEC], Won&& won, Terms<accum_t<T>>& t,
                                              accum_t<T> (&dalpha_sum)[kBackwardBatch], unsigned mask) {
    using A = accum_t<T>;
    constexpr int B = kBackwardBatch;
    const Rules& r = args.rules;
    A dpart[B];
#pragma unroll
    for (int b = 0; b < B; ++b) {
        dpart[b] = 0;
#pragma unroll
        for (int k = 0; k < VEC; ++k)
            if (won(b, k)) dpart[b] += g[b][k] * z[b][k];
    }
    if constexpr (VECTOR) {
        if (args.recompute && vector_score(r.score)) {
            A part[2 * B], sum[2 * B];
#pragma unroll
            for (int b = 0; b < B; ++b) {
                part[b] = score_terms(r.score, mine, theirs[b]);
                part[B + b] = dpart[b];
            }
            finish_scores<G>(Score::dot, part, sum, mask);
#pragma unroll
            for (int b = 0; b < B; ++b) {
                t.s[b] = r.score == Score::neg_sqdist ? -sum[b] : sum[b];
                dalpha_sum[b] = sum[B + b];
            }
            return;
        }
    }
    scalar_scores(args, h, e, t);
    finish_scores<G>(Score::dot, dpart, dalpha_sum, mask);
}

// dα_b = c_b dalpha_sum_b (resident_sums), once entry_weights has given c.
template <class A>
__device__ __forceinline__ void scale_dalpha(Terms<A>& t, const A (&dalpha_sum)[kBackwardBatch]) {
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) t.dalpha[b] = t.c[b] * dalpha_sum[b];
}

// d_self += ds_b * other_b (dot) or -2 ds_b (self - other_b) (negative squared distance).
template <class A, int VEC>
__device__ __forceinline__ void resident_score_gradient(Score score, A (&d)[VEC], const A (&ds)[kBackwardBatch], const A (&self)[VEC],
                                                        const A (&others)[kBackwardBatch][VEC]) {
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b)
#pragma unroll
        for (int k = 0; k < VEC; ++k) d[k] += score == Score::dot ? ds[b] * others[b][k] : A(-2) * ds[b] * (self[k] - others[b][k]);
}

// Row i's entries begin .. end-1, heads h0 .. h0 + row_heads - 1: a whole row (chunk_id < 0),
// whose σ, dX and dA it writes, or chunk chunk_id of a long row, whose share of σ (sigma pass) or
// of dX (with dA for its entries, from the combined σ) it writes. As backward_row_work, one tile.
// MAX: max aggregation (the rules' aggregate), a template argument so that the other aggregations
// hold no winners: 11 registers fewer in the f32 row kernel.
template <class T, class I, int G, int VEC, bool VECTOR, bool MAX>
__device__ __forceinline__ void resident_row_work(const BackwardArgs<T, I>& args, long long i, int h0, long long begin, long long end,
                                                  long long chunk_id, int lane, unsigned mask) {
    using A = accum_t<T>;
    const Rules& r = args.rules;
    const BackwardSplit<I, A>& split = args.split;
    const bool chunk = chunk_id >= 0, want_ds = args.dx != nullptr || args.da != nullptr || args.edge_terms != nullptr;
    const long long f = chunk_start<G, VEC>(0, lane);
    constexpr bool vector = VECTOR, max_agg = MAX;
    const bool has_d = vector && f < r.d, has_dz = f < r.dz;

    for (int h = h0; h < h0 + args.row_heads; ++h) {
        const long long state = chunk_id * r.heads + h;  // a chunk's (chunk, head) share
        A xi[VEC], gi[VEC];
        const Gather<T> ys = gather_rows(args.y + h * r.d + f, args.ldy);
        const Gather<T> zs = gather_rows(args.z + h * r.dz + f, args.ldz);
        load_or_zero<T, VEC>(args.x + i * args.ldx + h * r.d, f, has_d && (args.recompute || args.dx != nullptr), xi);
        load_or_zero<T, VEC>(args.de + i * args.ldde + h * r.dz, f, has_dz, gi);
        [[maybe_unused]] I winner[max_agg ? VEC : 1];  // under max: the column that won each of row i's output values
        if constexpr (max_agg)
#pragma unroll
            for (int k = 0; k < VEC; ++k) winner[k] = has_dz ? args.argmax[i * args.ld_argmax + h * r.dz + f + k] : I(0);

        // Row i's softmax statistics, read once (every entry of the sweep is in row i).
        const RowSoftmax<A> softmax = r.softmax && !args.use_saved ? row_softmax(args, i, h) : RowSoftmax<A>{};
        // One sweep over the entries: each batch's terms, then visit(e, t, Y_j rows).
        const auto sweep = [&](auto&& visit) {
            for (long long p0 = begin; p0 < end; p0 += kBackwardBatch) {
                const Batch<I> e = row_batch(args.col_idx, i, p0, end);
                A yv[kBackwardBatch][VEC], zv[kBackwardBatch][VEC], gv[kBackwardBatch][VEC];
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b) {
                    load_or_zero<T, VEC>(ys.row(e.j[b]), 0, has_d && (args.recompute || args.dx != nullptr), yv[b]);
                    load_or_zero<T, VEC>(zs.row(e.j[b]), 0, has_dz, zv[b]);
#pragma unroll
                    for (int k = 0; k < VEC; ++k) gv[b][k] = gi[k];
                }
                Terms<A> t;
                A dalpha_sum[kBackwardBatch];
                resident_sums<T, I, G, VEC, VECTOR>(
                    args, h, e, xi, yv, gv, zv,
                    [&](int b, int k) {
                        if constexpr (max_agg)
                            return winner[k] == e.j[b];
                        else
                            return true;
                    },
                    t, dalpha_sum, mask);
                entry_weights(args, h, e, t, [&](int) { return softmax; });
                scale_dalpha(t, dalpha_sum);
                visit(e, t, yv);
            }
        };

        A sigma = 0;
        if (r.softmax && (args.sigma_given || (chunk && !split.sigma_pass))) {
            sigma = args.sigma[i * r.heads + h];  // from E, or combined from the sigma pass's shares
        } else if (r.softmax) {
            sweep([&](const Batch<I>& e, const Terms<A>& t, const A(&)[kBackwardBatch][VEC]) {
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b)
                    if (e.valid[b]) sigma += t.alpha[b] * t.dalpha[b];
            });
            if (lane == 0) write_sigma(args, i, h, chunk_id, sigma);
            if (chunk) continue;  // the sigma pass gives σ's share alone
        }
        if (!want_ds) continue;

        A dx[VEC];
        zero<T, VEC>(dx);
        A dx_add = 0;  // the add score's dX(i, h)
        sweep([&](const Batch<I>& e, const Terms<A>& t, const A(&yv)[kBackwardBatch][VEC]) {
            A ds[kBackwardBatch];
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b) ds[b] = e.valid[b] ? score_gradient(r, t, b, sigma) : A(0);
            if (args.edge_terms != nullptr && lane == 0)  // for the column kernel (backward_stored.cuh)
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b)
                    if (e.valid[b]) args.edge_terms[e.p[b] * r.heads + h] = {t.c[b] * t.alpha[b], ds[b]};
            if (args.da != nullptr && lane == 0) add_to_da(args, e, h, h0, ds);
            if (r.score == Score::add) {
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b) dx_add += ds[b];
            } else if (vector && args.dx != nullptr) {
                resident_score_gradient<A, VEC>(r.score, dx, ds, xi, yv);
            }
        });
        if (args.dx == nullptr) continue;
        if (r.score == Score::add) {
            if (lane == 0) {
                if (chunk)
                    split.partial_dx[state] = dx_add;
                else
                    args.dx[i * args.lddx + h] = from_accum<T>(dx_add);
            }
        } else if (has_d) {
            if (chunk)
                store_vec<A, VEC>(split.partial_dx + state * r.d + f, dx);
            else
                store_vec<T, VEC>(args.dx + i * args.lddx + h * r.d + f, dx);
        }
    }
}

// Column j's sums for head h, this lane's VEC values at f: dZ_j (when has_dz), dY_j (vector
// scores, when has_dy) and the add score's dY_j (lane 0), or chunk chunk_id's shares of them.
template <class T, class I, int VEC>
__device__ __forceinline__ void write_column_sums(const BackwardArgs<T, I>& args, long long j, int h, long long chunk_id, long long f,
                                                  int lane, bool has_dz, bool has_dy, const accum_t<T> (&dz)[VEC],
                                                  const accum_t<T> (&dy)[VEC], accum_t<T> dy_add) {
    using A = accum_t<T>;
    const Rules& r = args.rules;
    const BackwardSplit<I, A>& split = args.split;
    const bool chunk = chunk_id >= 0;
    const long long state = chunk_id * r.heads + h;
    if (has_dz) {
        if (chunk)
            store_vec<A, VEC>(split.partial_dz + state * r.dz + f, dz);
        else
            store_vec<T, VEC>(args.dz + j * args.lddz + h * r.dz + f, dz);
    }
    if (has_dy) {
        if (chunk)
            store_vec<A, VEC>(split.partial_dy + state * r.d + f, dy);
        else
            store_vec<T, VEC>(args.dy + j * args.lddy + h * r.d + f, dy);
    }
    if (args.dy != nullptr && r.score == Score::add && lane == 0) {
        if (chunk)
            split.partial_dy[state] = dy_add;
        else
            args.dy[j * args.lddy + h] = from_accum<T>(dy_add);
    }
}

// Column j's entries begin .. end-1 over Aᵀ's pattern, head h: a whole column (chunk_id < 0),
// whose dZ_j and dY_j it writes, or chunk chunk_id of a long column, whose shares it writes.
// MAX as in resident_row_work.
template <class T, class I, int G, int VEC, bool VECTOR, bool MAX>
__device__ __forceinline__ void resident_column_work(const BackwardArgs<T, I>& args, long long j, int h, long long begin, long long end,
                                                     long long chunk_id, int lane, unsigned mask) {
    using A = accum_t<T>;
    const Rules& r = args.rules;
    const long long f = chunk_start<G, VEC>(0, lane);
    constexpr bool vector = VECTOR, max_agg = MAX;
    const bool has_d = vector && f < r.d, has_dz = f < r.dz;

    A yj[VEC], zj[VEC];
    load_or_zero<T, VEC>(args.y + j * args.ldy + h * r.d, f, has_d && (args.recompute || r.score == Score::neg_sqdist), yj);
    load_or_zero<T, VEC>(args.z + j * args.ldz + h * r.dz, f, has_dz, zj);
    A dz[VEC], dy[VEC];
    zero<T, VEC>(dz);
    zero<T, VEC>(dy);
    A dy_add = 0;
    const Gather<T> xs = gather_rows(args.x + h * r.d + f, args.ldx);
    const Gather<T> des = gather_rows(args.de + h * r.dz + f, args.ldde);
    for (long long t0 = begin; t0 < end; t0 += kBackwardBatch) {
        const Batch<I> e = column_batch(args.t_row, args.t_entry, j, t0, end);
        A xv[kBackwardBatch][VEC], gv[kBackwardBatch][VEC], zv[kBackwardBatch][VEC];
#pragma unroll
        for (int b = 0; b < kBackwardBatch; ++b) {
            const I i = static_cast<I>(e.i[b]);  // read from Aᵀ's t_row (type I)
            load_or_zero<T, VEC>(xs.row(i), 0, has_d && (args.recompute || args.dy != nullptr), xv[b]);
            load_or_zero<T, VEC>(des.row(i), 0, has_dz, gv[b]);
#pragma unroll
            for (int k = 0; k < VEC; ++k) zv[b][k] = zj[k];
        }
        // Under max, whether row i_b's output value k was won by this column (re-read from L1 by the dZ sum).
        const auto won = [&](int b, int k) {
            return !max_agg || (has_dz && args.argmax[e.i[b] * args.ld_argmax + h * r.dz + f + k] == e.j[b]);
        };
        Terms<A> t;
        A dalpha_sum[kBackwardBatch];
        resident_sums<T, I, G, VEC, VECTOR>(args, h, e, yj, xv, gv, zv, won, t, dalpha_sum, mask);
        entry_weights(args, h, e, t);
        scale_dalpha(t, dalpha_sum);
        if (args.dz != nullptr) {
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b) {
                if (!e.valid[b]) continue;
                const A beta = t.c[b] * t.alpha[b];
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                    if (won(b, k)) dz[k] += beta * gv[b][k];
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
        } else if (vector) {
            resident_score_gradient<A, VEC>(r.score, dy, ds, yj, xv);
        }
    }
    write_column_sums<T, I, VEC>(args, j, h, chunk_id, f, lane, args.dz != nullptr && has_dz, args.dy != nullptr && has_d, dz, dy, dy_add);
}

}  // namespace spk::detail::cuda::fused
