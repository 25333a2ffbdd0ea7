#pragma once
// What both FusedMM backward paths (backward_kernels.cuh, backward_resident.cuh) compute per
// entry of A: a batch of entries, their scores' terms (s, w = f(s), α, dα, the aggregation's
// factor c) and the score's gradient ds.
#include "cuda/fusedmm/split.cuh"

namespace spk::detail::cuda::fused {

template <class T, class I>
using BackwardArgs = BackwardKernelArgs<T, I, accum_t<T>>;

// A batch of entries of A: row i, column j, entry number p; invalid slots repeat slot 0.
template <class I>
struct Batch {
    long long i[kBackwardBatch], p[kBackwardBatch];
    I j[kBackwardBatch];
    bool valid[kBackwardBatch];
};

// Row i's entries p0 .. p0 + kBackwardBatch - 1 below end, with their columns.
template <class I>
__device__ __forceinline__ Batch<I> row_batch(const I* col_idx, long long i, long long p0, long long end) {
    Batch<I> e;
    const int left = batch_left<kBackwardBatch>(p0, end);
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) {
        e.valid[b] = b < left;
        e.i[b] = i;
        e.p[b] = e.valid[b] ? p0 + b : p0;
        e.j[b] = col_idx[e.p[b]];
    }
    return e;
}

// Column j's entries t0 .. t0 + kBackwardBatch - 1 below end over Aᵀ's pattern (t_row: their rows, t_entry:
// their numbers in A).
template <class I>
__device__ __forceinline__ Batch<I> column_batch(const I* t_row, const I* t_entry, long long j, long long t0, long long end) {
    Batch<I> e;
    const int left = batch_left<kBackwardBatch>(t0, end);
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) {
        e.valid[b] = b < left;
        const long long t = e.valid[b] ? t0 + b : t0;
        e.i[b] = t_row[t];
        e.p[b] = t_entry[t];
        e.j[b] = static_cast<I>(j);
    }
    return e;
}

// Row i's σ for head h (a whole row), or the share of chunk chunk_id (the sigma pass).
template <class T, class I>
__device__ __forceinline__ void write_sigma(const BackwardArgs<T, I>& args, long long i, int h, long long chunk_id, accum_t<T> sigma) {
    if (chunk_id >= 0)
        args.split.partial_sigma[chunk_id * args.rules.heads + h] = sigma;
    else if (args.sigma != nullptr)
        args.sigma[i * args.rules.heads + h] = sigma;
}

// dA of a batch's entries, summed over the heads h0, h0 + 1, ... that one group walks: the first
// head writes, the later ones add to it.
template <class T, class I>
__device__ __forceinline__ void add_to_da(const BackwardArgs<T, I>& args, const Batch<I>& e, int h, int h0,
                                          const accum_t<T> (&ds)[kBackwardBatch]) {
    using A = accum_t<T>;
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) {
        if (!e.valid[b]) continue;
        T* out = args.da + e.p[b] * args.da_stride;
        *out = from_accum<T>((h == h0 ? A(0) : to_accum(*out)) + ds[b]);
    }
}

// What both kernels need of every entry of a batch, for head h.
template <class A>
struct Terms {
    A s[kBackwardBatch], w[kBackwardBatch], alpha[kBackwardBatch], dalpha[kBackwardBatch], c[kBackwardBatch];
};

// The score's gradient with respect to one side of the batch's entries, for this lane's C chunks
// of the head's d features: d_self += ds_b * other_b (dot) or -2 ds_b (self - other_b) (negative
// squared distance), where `self` is the side the group owns (X_i in the row kernel, for dX; Y_j
// in the column kernel, for dY) and other_b the row of the batch's other side (Y_j, X_i), found at
// others + index[b] * ld (the head's offset included in both pointers).
template <class T, int G, int VEC, int C, class K>
__device__ __forceinline__ void add_score_gradient(const Rules& r, accum_t<T> (&d)[C][VEC], const accum_t<T> (&ds)[kBackwardBatch],
                                                   const bool (&valid)[kBackwardBatch], const T* self, const T* others, long long ld,
                                                   const K (&index)[kBackwardBatch], long long tile0, int lane) {
    using A = accum_t<T>;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        const long long f = chunk_start<G, VEC>(tile0 + c, lane);
        if (f >= r.d) break;
        A ov[kBackwardBatch][VEC], sv[VEC];
#pragma unroll
        for (int b = 0; b < kBackwardBatch; ++b) load_vec<T, VEC>(others + static_cast<long long>(index[b]) * ld + f, ov[b]);
        load_or_zero<T, VEC>(self, f, r.score == Score::neg_sqdist, sv);
#pragma unroll
        for (int b = 0; b < kBackwardBatch; ++b) {
            if (!valid[b]) continue;
#pragma unroll
            for (int k = 0; k < VEC; ++k) d[c][k] += r.score == Score::dot ? ds[b] * ov[b][k] : A(-2) * ds[b] * (sv[k] - ov[b][k]);
        }
    }
}

// The forward's softmax statistics of row i, head h: its largest weight and the reciprocal of the
// sum of exp(w - max), so that α = exp(w - max) * inv_sum.
template <class A>
struct RowSoftmax {
    A max, inv_sum;
};

template <class T, class I>
__device__ __forceinline__ RowSoftmax<accum_t<T>> row_softmax(const BackwardArgs<T, I>& args, long long i, int h) {
    const long long at = i * args.rules.heads + h;
    return {args.row_max[at], accum_t<T>(1) / args.row_sum[at]};
}

// w = f(s), α and the aggregation's factor c of a batch's entries (t.s holds the scores when
// args.recompute); softmax_of(b): entry b's row's RowSoftmax (read only under softmax).
template <class T, class I, class Softmax>
__device__ __forceinline__ void entry_weights(const BackwardArgs<T, I>& args, int h, const Batch<I>& e, Terms<accum_t<T>>& t,
                                              Softmax&& softmax_of) {
    using A = accum_t<T>;
    const Rules& r = args.rules;
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) {
        t.w[b] = args.recompute ? edge_apply(r.edge, t.s[b]) : A(0);
        if (args.use_saved) {
            t.alpha[b] = to_accum(args.attention[e.p[b] * args.ld_attention + h]);
        } else if (r.softmax) {
            const RowSoftmax<A> sm = softmax_of(b);
            t.alpha[b] = softmax_exp(t.w[b] - sm.max) * sm.inv_sum;
        } else
            t.alpha[b] = t.w[b];
        if (!args.recompute) t.w[b] = t.alpha[b];  // α = w without softmax; unused when f' is constant
        t.c[b] = A(1);
        if (r.aggregate == Aggregate::mean) {  // row_ptr is read only here: it is a random access in the column kernel
            const long long len = static_cast<long long>(args.row_ptr[e.i[b] + 1]) - static_cast<long long>(args.row_ptr[e.i[b]]);
            if (len > 0) t.c[b] = A(1) / static_cast<A>(len);
        }
    }
}

// The same, each entry's row statistics read where it is needed (entries of many rows).
template <class T, class I>
__device__ __forceinline__ void entry_weights(const BackwardArgs<T, I>& args, int h, const Batch<I>& e, Terms<accum_t<T>>& t) {
    entry_weights(args, h, e, t, [&](int b) { return row_softmax(args, e.i[b], h); });
}

template <class T, class I, int G, int VEC>
__device__ __forceinline__ void entry_terms(const BackwardArgs<T, I>& args, int h, const Batch<I>& e, Terms<accum_t<T>>& t, int lane,
                                            unsigned mask) {
    using A = accum_t<T>;
    const Rules& r = args.rules;
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) t.s[b] = 0;
    if (args.recompute) {
        switch (r.score) {
            case Score::value:
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b) t.s[b] = to_accum(args.a_values[e.p[b]]);
                break;
            case Score::add:
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b)
                    t.s[b] = to_accum(args.x[e.i[b] * args.ldx + h]) + to_accum(args.y[e.j[b] * args.ldy + h]);
                break;
            case Score::dot:
            case Score::neg_sqdist: {
                A part[kBackwardBatch];
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b) part[b] = 0;
                for (long long c = 0; c * G * VEC < r.d; ++c) {
                    const long long f = chunk_start<G, VEC>(c, lane);
                    if (f >= r.d) break;
                    A xv[kBackwardBatch][VEC], yv[kBackwardBatch][VEC];
#pragma unroll
                    for (int b = 0; b < kBackwardBatch; ++b) {
                        load_vec<T, VEC>(args.x + e.i[b] * args.ldx + h * r.d + f, xv[b]);
                        load_vec<T, VEC>(args.y + e.j[b] * args.ldy + h * r.d + f, yv[b]);
                    }
#pragma unroll
                    for (int b = 0; b < kBackwardBatch; ++b) part[b] += score_terms(r.score, xv[b], yv[b]);
                }
#pragma unroll
                for (int b = 0; b < kBackwardBatch; ++b) t.s[b] = finish_score<G>(r.score, part[b], mask);
                break;
            }
        }
    }
    const bool max_agg = r.aggregate == Aggregate::max;
    entry_weights(args, h, e, t);
    A part[kBackwardBatch];
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) part[b] = 0;
    for (long long c = 0; c * G * VEC < r.dz; ++c) {
        const long long f = chunk_start<G, VEC>(c, lane);
        if (f >= r.dz) break;
        A gv[kBackwardBatch][VEC], zv[kBackwardBatch][VEC];
#pragma unroll
        for (int b = 0; b < kBackwardBatch; ++b) {
            load_vec<T, VEC>(args.de + e.i[b] * args.ldde + h * r.dz + f, gv[b]);
            load_vec<T, VEC>(args.z + e.j[b] * args.ldz + h * r.dz + f, zv[b]);
        }
#pragma unroll
        for (int b = 0; b < kBackwardBatch; ++b)
#pragma unroll
            for (int k = 0; k < VEC; ++k)
                if (!max_agg || args.argmax[e.i[b] * args.ld_argmax + h * r.dz + f + k] == e.j[b]) part[b] += gv[b][k] * zv[b][k];
    }
#pragma unroll
    for (int b = 0; b < kBackwardBatch; ++b) t.dalpha[b] = t.c[b] * group_sum<G>(part[b], mask);
}

// ds = dw f'(s), dw = α (dα - σ) under softmax, else dα.
template <class A>
__device__ __forceinline__ A score_gradient(const Rules& r, const Terms<A>& t, int b, A sigma) {
    const A dw = r.softmax ? t.alpha[b] * (t.dalpha[b] - sigma) : t.dalpha[b];
    return dw * edge_derivative(r.edge, t.s[b], t.w[b]);
}

}  // namespace spk::detail::cuda::fused
