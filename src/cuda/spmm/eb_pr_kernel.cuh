#pragma once
// Edge-based SpMM with parallel reduction (third paper, §3: the EB+PR point of the design space):
// a group of G lanes owns a chunk of consecutive non-zeros (a multiple of G, so steps of G start at
// multiples of G) and takes G of them a step, one a lane; each lane multiplies its non-zero by VEC
// columns of B (a tile of the grid's y dimension). Lanes holding the same row then sum their
// products with a segmented reduction, and the row's first lane in the step writes: a plain store
// where the row lies inside the step, an atomic add where it crosses a step boundary
// (eb_prepare_rows, given G as the chunk, has scaled those rows and the empty ones by beta).
// Narrow B (n of 1 to a few vectors) on skewed rows is where it pays: every lane has a non-zero
// whatever the row lengths, where the row-based kernels leave lanes idle past short rows.
#include <climits>

#include "cuda/spmm/eb_kernel.cuh"

namespace spk::detail::cuda {

// args.num_rows is the number of chunks, args.chunk a multiple of G; row_list, chunk_begin and
// partial are unused.
template <class T, class I, int G, int VEC>
__global__ void __launch_bounds__(256) spmm_eb_pr_kernel(const SpmmKernelArgs<T, I> p, long long rows, long long nnz) {
    static_assert(sizeof(T) >= 4, "edge-based SpMM adds atomically in the value type: f32 and f64 only");
    using A = accum_t<T>;
    const unsigned mask = group_mask<G>();
    const int g = group_lane<G>();
    const long long group = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
    if (group >= p.num_rows) return;  // whole groups leave together: the shuffles below see every lane
    const long long begin = group * p.chunk, end = begin + p.chunk < nnz ? begin + p.chunk : nnz;
    const long long col0 = static_cast<long long>(blockIdx.y) * VEC;
    const bool full_vector = col0 + VEC <= p.n;

    long long row = eb_row_of(p.row_ptr, rows, begin);

    for (long long base = begin; base < end; base += G) {
        const long long e = base + g;
        const bool live = e < end;
        long long r = row;  // this lane's row: forward from the step's first row
        if (live)
            while (static_cast<long long>(p.row_ptr[r + 1]) <= e) ++r;
        A prod[VEC];
        if (live) {
            const A a = to_accum(p.values[e]);
            const T* brow = p.b + static_cast<long long>(p.col_idx[e]) * p.ldb + col0;
            A bv[VEC];
            if (full_vector)
                load_vec<T, VEC>(brow, bv);
            else
#pragma unroll
                for (int q = 0; q < VEC; ++q) bv[q] = col0 + q < p.n ? to_accum(brow[q]) : A(0);
#pragma unroll
            for (int q = 0; q < VEC; ++q) prod[q] = a * bv[q];
        } else {
#pragma unroll
            for (int q = 0; q < VEC; ++q) prod[q] = A(0);
        }
        const long long key = live ? r : LLONG_MAX;  // keys stay non-decreasing along the group
#pragma unroll
        for (int q = 0; q < VEC; ++q) prod[q] = segment_reduce<G>(prod[q], key, [](A x, A y) { return x + y; }, mask);
        const bool head = segment_head<G>(key, mask);
        if (live && head) {
            const long long row_begin = p.row_ptr[r], row_end = p.row_ptr[r + 1];
            const A scale = p.mean ? p.alpha / static_cast<A>(row_end - row_begin) : p.alpha;
            const bool shared = eb_row_is_shared(row_begin, row_end, G);
            T* out = p.c + r * p.ldc + col0;
#pragma unroll
            for (int q = 0; q < VEC; ++q) {
                if (col0 + q >= p.n) break;
                const A v = prod[q] * scale;
                if (shared)
                    atomicAdd(out + q, v);
                else
                    out[q] = from_accum<T>(p.beta == A(0) ? v : v + p.beta * to_accum(out[q]));
            }
        }
        row = __shfl_sync(mask, r, G - 1, G);  // every lane is live in all steps but a chunk's last
    }
}

}  // namespace spk::detail::cuda
