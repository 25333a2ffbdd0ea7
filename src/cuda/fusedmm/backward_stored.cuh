#pragma once
// The FusedMM backward's column kernel under FusedOptions::backward_edge_terms: the row kernel
// (resident path) stored, per entry and head, the weight c α of dE_i in dZ_j and the score's
// gradient ds (EdgeTerm, entry-major); the column kernel then only gathers over Aᵀ:
//   dZ_j = Σ_i (c α)_ij dE_i,   dY_j = Σ_i ds_ij X_i (dot), -2 Σ_i ds_ij (Y_j - X_i) (neg_sqdist),
//   Σ_i ds_ij (add),
// two sums of the SpMM kind, with no score, exponential, dα product or row statistics to
// recompute. Sum and mean aggregation only (max masks dZ by the winners). One chunk covers the
// head's widths, as on the resident path.
#include "cuda/fusedmm/backward_resident.cuh"

namespace spk::detail::cuda::fused {

// Column j's entries begin .. end-1 over Aᵀ's pattern, head h: a whole column (chunk_id < 0),
// whose dZ_j and dY_j it writes, or chunk chunk_id of a long column, whose shares it writes.
template <class T, class I, int G, int VEC>
__device__ __forceinline__ void stored_column_work(const BackwardArgs<T, I>& args, long long j, int h, long long begin, long long end,
                                                   long long chunk_id, int lane) {
    using A = accum_t<T>;
    const Rules& r = args.rules;
    const long long f = chunk_start<G, VEC>(0, lane);
    const bool vector = vector_score(r.score);
    const bool want_dz = args.dz != nullptr && f < r.dz, want_dy = args.dy != nullptr;
    const bool vector_dy = want_dy && vector && f < r.d;

    A yj[VEC], dz[VEC], dy[VEC];
    load_or_zero<T, VEC>(args.y + j * args.ldy + h * r.d, f, vector_dy && r.score == Score::neg_sqdist, yj);
    zero<T, VEC>(dz);
    zero<T, VEC>(dy);
    A dy_add = 0;
    const Gather<T> xs = gather_rows(args.x + h * r.d + f, args.ldx);
    const Gather<T> des = gather_rows(args.de + h * r.dz + f, args.ldde);
    for (long long t0 = begin; t0 < end; t0 += kBackwardBatch) {
        const Batch<I> e = column_batch(args.t_row, args.t_entry, j, t0, end);
        EdgeTerm<A> term[kBackwardBatch];
#pragma unroll
        for (int b = 0; b < kBackwardBatch; ++b)  // invalid slots repeat the first entry: their terms are zeroed
            term[b] = e.valid[b] ? args.edge_terms[e.p[b] * r.heads + h] : EdgeTerm<A>{A(0), A(0)};
        if (want_dz) {
            A g[kBackwardBatch][VEC];
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b) load_vec<T, VEC>(des.row(static_cast<I>(e.i[b])), g[b]);
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b)
#pragma unroll
                for (int k = 0; k < VEC; ++k) dz[k] += term[b].weight * g[b][k];
        }
        if (vector_dy) {
            A xv[kBackwardBatch][VEC];
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b) load_vec<T, VEC>(xs.row(static_cast<I>(e.i[b])), xv[b]);
            A ds[kBackwardBatch];
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b) ds[b] = term[b].ds;
            resident_score_gradient<A, VEC>(r.score, dy, ds, yj, xv);
        } else if (want_dy && r.score == Score::add) {
#pragma unroll
            for (int b = 0; b < kBackwardBatch; ++b) dy_add += term[b].ds;
        }
    }
    write_column_sums<T, I, VEC>(args, j, h, chunk_id, f, lane, want_dz, vector_dy, dz, dy, dy_add);
}

}  // namespace spk::detail::cuda::fused
