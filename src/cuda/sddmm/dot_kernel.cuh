#pragma once
// The SDDMM dot kernel (first paper's NT-threads-per-row SDDMM, on segment groups): a group of G
// lanes owns `chunk` consecutive entries of A, which cover runs of one or more rows; equal chunks
// balance the work whatever the row lengths. Along a run of row i the group reads X's row once
// (kept in registers when it fits in sddmm_cached_slices slices) and, sddmm_batch entries at a
// time, loads their Y rows (every load before the first FMA) while the next batch's column indices
// are already on their way. A head's dot product is G lane partials combined by group_sum.
//
// Feature layout: head h's d features are cut into `steps` slices of G*VEC; lane l holds features
// [t*G*VEC + l*VEC, + VEC) of slice t (lanes past d hold zeros). Slice s of the row is head
// s / steps, step s % steps.
#include "cuda/common/segment_group.cuh"
#include "cuda/common/values.cuh"
#include "cuda/sddmm/args.cuh"

namespace spk::detail::cuda {

template <class T, class I, int G, int VEC>
__global__ void __launch_bounds__(sddmm_block_threads) sddmm_dot_kernel(const DotArgs<T, I> p) {
    using A = accum_t<T>;
    constexpr int NB = sddmm_batch;
    constexpr int XS = sddmm_cached_slices;
    const int lane = static_cast<int>(threadIdx.x) & (G - 1);
    const unsigned mask = group_mask<G>();
    const long long group = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
    const long long e0 = group * p.chunk;
    if (e0 >= p.nnz) return;  // whole groups leave together: the shuffles below stay legal
    const long long e1 = e0 + p.chunk < p.nnz ? e0 + p.chunk : p.nnz;
    const long long slices = p.steps * p.heads;
    const bool cached = slices <= XS;

    // The row holding e0: the last i with row_ptr[i] <= e0 (non-empty, as row_ptr[rows] = nnz > e0).
    long long row = 0;
    for (long long hi = p.rows - 1; row < hi;) {
        const long long mid = (row + hi + 1) / 2;
        if (static_cast<long long>(p.row_ptr[mid]) <= e0)
            row = mid;
        else
            hi = mid - 1;
    }

    const auto feature = [&](long long s, long long& offset) {  // lane's first feature of slice s; false past d
        const long long h = s / p.steps, in_head = (s - h * p.steps) * (G * VEC) + lane * VEC;
        offset = h * p.d + in_head;
        return in_head < p.d;
    };
    const auto load_x = [&](const T* xrow, long long s, A(&xv)[VEC]) {
        long long offset;
        if (feature(s, offset))
            load_vec<T, VEC>(xrow + offset, xv);
        else {
#pragma unroll
            for (int q = 0; q < VEC; ++q) xv[q] = A(0);
        }
    };

    A xr[XS][VEC];
    for (long long begin = e0; begin < e1;) {
        const long long end = static_cast<long long>(p.row_ptr[row + 1]) < e1 ? static_cast<long long>(p.row_ptr[row + 1]) : e1;
        const T* xrow = p.x + row * p.ldx;
        if (cached) {
#pragma unroll
            for (int s = 0; s < XS; ++s)
                if (s < slices) load_x(xrow, s, xr[s]);
        }

        // Column indices of a batch; past the run's end they repeat its last entry, so that every
        // load is valid and no branch separates them (those lanes' results are never written).
        const auto load_columns = [&](long long base, I(&j)[NB]) {
#pragma unroll
            for (int b = 0; b < NB; ++b) j[b] = p.col_idx[base + b < end ? base + b : end - 1];
        };
        I next[NB];
        load_columns(begin, next);
        for (long long base = begin; base < end; base += NB) {
            I j[NB];
#pragma unroll
            for (int b = 0; b < NB; ++b) j[b] = next[b];
            if (base + NB < end) load_columns(base + NB, next);

            A acc[NB], total[NB];
#pragma unroll
            for (int b = 0; b < NB; ++b) acc[b] = total[b] = A(0);
            const auto slice = [&](long long s, const A(&xv)[VEC]) {
                long long offset;
                if (feature(s, offset)) {
                    A yv[NB][VEC];
#pragma unroll
                    for (int b = 0; b < NB; ++b) load_vec<T, VEC>(p.y + static_cast<long long>(j[b]) * p.ldy + offset, yv[b]);
#pragma unroll
                    for (int b = 0; b < NB; ++b)
#pragma unroll
                        for (int q = 0; q < VEC; ++q) acc[b] += xv[q] * yv[b][q];
                }
                // Once a head is complete: combine the lanes, and lane b % G writes entry b.
                const long long h = s / p.steps;
                if (s - h * p.steps != p.steps - 1) return;
#pragma unroll
                for (int b = 0; b < NB; ++b) {
                    const A dot = group_sum<G>(acc[b], mask);
                    acc[b] = A(0);
                    const long long e = base + b;
                    if (e >= end || lane != b % G) continue;
                    if (p.weights.data) {
                        total[b] += to_accum(p.weights(e, h)) * dot;
                        if (h == p.heads - 1) p.out(e, 0) = from_accum<T>(total[b]);
                    } else {
                        const A scale = p.scale ? to_accum(p.scale[e]) : A(1);
                        p.out(e, h) = from_accum<T>(scale * dot);
                    }
                }
            };
            if (cached) {
#pragma unroll
                for (int s = 0; s < XS; ++s)
                    if (s < slices) slice(s, xr[s]);
            } else {
                for (long long s = 0; s < slices; ++s) {
                    A xv[VEC];
                    load_x(xrow, s, xv);
                    slice(s, xv);
                }
            }
        }

        begin = end;
        if (begin < e1) {  // the next non-empty row
            ++row;
            while (static_cast<long long>(p.row_ptr[row + 1]) <= begin) ++row;
        }
    }
}

}  // namespace spk::detail::cuda
