#pragma once
// Edge-based SpMM (third paper, §3: the EB+SR point of the design space): a group of G lanes owns a
// chunk of `chunk` consecutive non-zeros whatever rows they belong to, its lanes splitting a tile
// of G*VEC columns. The group walks the chunk in order, accumulating the current row; when the row
// ends it writes the row: a plain store where the whole row lies in the chunk, an atomic add where
// the row crosses a chunk boundary (eb_prepare_rows has scaled those rows of C by beta first, and
// written the empty rows, which no chunk visits). Sum and mean in f32 and f64.
#include "cuda/spmm/rb_kernel.cuh"

namespace spk::detail::cuda {

__device__ __forceinline__ bool eb_row_is_shared(long long row_begin, long long row_end, long long chunk) {
    return row_begin == row_end || row_begin / chunk != (row_end - 1) / chunk;
}

// The row holding non-zero e < nnz (the same answer in every lane): the last row whose first
// non-zero is at or before e, stepping over empty rows.
template <class I>
__device__ __forceinline__ long long eb_row_of(const I* row_ptr, long long rows, long long e) {
    long long lo = 0, hi = rows - 1;
    while (lo < hi) {
        const long long mid = (lo + hi + 1) / 2;
        if (static_cast<long long>(row_ptr[mid]) <= e)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (static_cast<long long>(row_ptr[lo + 1]) <= e) ++lo;
    return lo;
}

// C(row, :) = beta * C(row, :) for the rows the edge-based kernel adds into: empty rows and rows
// whose non-zeros lie in more than one chunk (beta == 0 writes zeros: C may hold NaN).
template <class T, class I>
__global__ void eb_prepare_rows(const I* row_ptr, long long rows, long long chunk, T* c, long long ldc, long long n, accum_t<T> beta) {
    const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows || !eb_row_is_shared(row_ptr[row], row_ptr[row + 1], chunk)) return;
    for (long long col = threadIdx.x & 31; col < n; col += 32) {
        T* out = c + row * ldc + col;
        *out = times_beta(*out, beta);
    }
}

// Writes the current row's sum (a plain store where the row lies in this chunk alone, else an
// atomic add), clears the sums and, if non-zero `next` is in the chunk, moves to the row holding it.
template <class T, class I, int VEC>
__device__ __forceinline__ void eb_flush(const SpmmKernelArgs<T, I>& p, accum_t<T> (&acc)[VEC], long long& row, long long& row_begin,
                                         long long& row_end, long long col0, long long next, long long end) {
    using A = accum_t<T>;
    if (col0 < p.n) {
        const A scale = p.mean ? p.alpha / static_cast<A>(row_end - row_begin) : p.alpha;
        T* out = p.c + row * p.ldc + col0;
        const bool shared = eb_row_is_shared(row_begin, row_end, p.chunk);
#pragma unroll
        for (int q = 0; q < VEC; ++q) {
            if (col0 + q >= p.n) break;
            const A v = acc[q] * scale;
            if (shared)
                atomicAdd(out + q, v);
            else
                out[q] = from_accum<T>(p.beta == A(0) ? v : v + p.beta * to_accum(out[q]));
        }
    }
#pragma unroll
    for (int q = 0; q < VEC; ++q) acc[q] = A(0);
    if (next < end) {
        while (static_cast<long long>(p.row_ptr[row + 1]) <= next) ++row;
        row_begin = p.row_ptr[row];
        row_end = p.row_ptr[row + 1];
    }
}

// args.num_rows is the number of chunks; row_list, chunk_begin and partial are unused.
template <class T, class I, int G, int VEC>
__global__ void __launch_bounds__(256) spmm_eb_kernel(const SpmmKernelArgs<T, I> p, long long rows, long long nnz) {
    static_assert(sizeof(T) >= 4, "edge-based SpMM adds atomically in the value type: f32 and f64 only");
    using A = accum_t<T>;
    constexpr int batch = rb_batch<A, VEC>();
    const int g = static_cast<int>(threadIdx.x) & (G - 1);
    const unsigned mask = group_mask<G>();
    const long long group = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
    if (group >= p.num_rows) return;
    const long long begin = group * p.chunk, end = begin + p.chunk < nnz ? begin + p.chunk : nnz;
    const long long col0 = static_cast<long long>(blockIdx.y) * (G * VEC) + static_cast<long long>(g) * VEC;
    const bool columns_here = col0 < p.n, full_vector = col0 + VEC <= p.n;

    long long row = eb_row_of(p.row_ptr, rows, begin);
    long long row_begin = p.row_ptr[row], row_end = p.row_ptr[row + 1];

    A acc[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) acc[q] = A(0);

    for (long long base = begin; base < end; base += G) {
        I my_j = 0;
        A my_a = 0;
        if (base + g < end) {
            my_j = p.col_idx[base + g];
            my_a = to_accum(p.values[base + g]);
        }
        const int count = static_cast<int>(end - base < G ? end - base : G);
        for (int s0 = 0; s0 < count; s0 += batch) {  // count is the same in every lane of the group
            A a[batch];
            A bv[batch][VEC];
#pragma unroll
            for (int u = 0; u < batch; ++u) {
                const int k = s0 + u < G ? s0 + u : G - 1;
                const I j = __shfl_sync(mask, my_j, k, G);
                a[u] = __shfl_sync(mask, my_a, k, G);
                const bool live = s0 + u < count && columns_here;
                const T* brow = p.b + static_cast<long long>(j) * p.ldb + col0;
                if (live && full_vector)
                    load_vec<T, VEC>(brow, bv[u]);
                else {
#pragma unroll
                    for (int q = 0; q < VEC; ++q) bv[u][q] = live && col0 + q < p.n ? to_accum(brow[q]) : A(0);
                }
            }
#pragma unroll
            for (int u = 0; u < batch; ++u) {
                if (s0 + u >= count) break;
                const long long e = base + s0 + u;
                if (e == row_end) eb_flush<T, I, VEC>(p, acc, row, row_begin, row_end, col0, e, end);  // the row ended
#pragma unroll
                for (int q = 0; q < VEC; ++q) acc[q] += a[u] * bv[u][q];
            }
        }
    }
    eb_flush<T, I, VEC>(p, acc, row, row_begin, row_end, col0, end, end);  // the last row this chunk touched
}

}  // namespace spk::detail::cuda
