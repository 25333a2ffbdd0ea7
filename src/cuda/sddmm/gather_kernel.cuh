#pragma once
// The SDDMM gradient gather (dX over A's rows, dY over Aᵀ's): a row-wise SpMM whose weights
// depend on the head. A group of G lanes owns one output row and a tile of G*VEC features
// (grid.y walks the tiles), so every output element has one owner: no atomics, and sums taken in
// the pattern's order, the same on every run. Each lane loads, sddmm_batch entries at a time, the
// entries' Z rows (all before its FMAs) while the next batch's indices are on their way. Lanes
// share nothing but the entries they read (the same addresses: broadcasts), so no shuffles.
// VEC > 1 only when d % VEC == 0: a lane's features then lie in one head.
#include "cuda/common/values.cuh"
#include "cuda/sddmm/args.cuh"

namespace spk::detail::cuda {

template <class T, class I, int G, int VEC>
__global__ void __launch_bounds__(sddmm_block_threads) sddmm_gather_kernel(const GatherArgs<T, I> p) {
    using A = accum_t<T>;
    constexpr int NB = sddmm_batch;
    const int lane = static_cast<int>(threadIdx.x) & (G - 1);
    const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
    const long long col0 = static_cast<long long>(blockIdx.y) * (G * VEC) + static_cast<long long>(lane) * VEC;
    if (row >= p.rows || col0 >= p.width) return;
    const long long h = col0 / p.d;
    const long long begin = p.ptr[row], end = p.ptr[row + 1];

    A acc[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) acc[q] = A(0);

    // Past the row's end a batch repeats its last entry: every load is valid, none is used.
    const auto load_positions = [&](long long base, long long(&pos)[NB], I(&j)[NB]) {
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            pos[b] = base + b < end ? base + b : end - 1;
            j[b] = p.idx[pos[b]];
        }
    };
    long long next_pos[NB];
    I next_j[NB];
    if (begin < end) load_positions(begin, next_pos, next_j);
    for (long long base = begin; base < end; base += NB) {
        long long pos[NB];
        I j[NB];
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            pos[b] = next_pos[b];
            j[b] = next_j[b];
        }
        if (base + NB < end) load_positions(base + NB, next_pos, next_j);

        A zv[NB][VEC], w[NB];
#pragma unroll
        for (int b = 0; b < NB; ++b) load_vec<T, VEC>(p.z + static_cast<long long>(j[b]) * p.ldz + col0, zv[b]);
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            const long long e = p.entry ? static_cast<long long>(p.entry[pos[b]]) : pos[b];
            w[b] = to_accum(p.d_out(e, h));
            if (p.scale) w[b] *= to_accum(p.scale[e]);
        }
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            if (base + b >= end) break;  // repeated entries: skipped, not weighted by 0 (0 * inf is NaN)
#pragma unroll
            for (int q = 0; q < VEC; ++q) acc[q] += w[b] * zv[b][q];
        }
    }

    T* out = &p.out(row, col0);
    const bool vector_store = p.out.cs == 1 && col0 + VEC <= p.width && reinterpret_cast<unsigned long long>(out) % (sizeof(T) * VEC) == 0;
    if (vector_store)
        store_vec<T, VEC>(out, acc);
    else {
#pragma unroll
        for (int q = 0; q < VEC; ++q)
            if (col0 + q < p.width) p.out(row, col0 + q) = from_accum<T>(acc[q]);
    }
}

}  // namespace spk::detail::cuda
