#pragma once
// The MTTKRP / TTM chunk kernel. A group of G lanes takes `chunk` consecutive non-zeros of the
// CSF and a tile of G*VEC columns (grid.y walks the tiles), so one slice or fiber holding most
// of the tensor is still shared by many groups. Each lane loads, tensor_batch non-zeros at a
// time, their factor rows (all before its FMAs); the fibers and segments of the batch's
// non-zeros come from tensor_batch fiber (and segment) starts loaded together, since without
// empty fibers a batch passes at most that many. A segment that starts and ends in the chunk is
// stored; the first and last segments, when another chunk holds part of them, are added with
// atomics (at most two rows per group). Lanes share nothing but the addresses they read
// (broadcasts): no shuffles, so groups of a warp may diverge.
#include "cuda/common/values.cuh"
#include "cuda/tensor/args.cuh"

namespace spk::detail::cuda {

// The last i in [0, n) with ptr[i] <= value, for strictly increasing ptr[0..n] with ptr[0] <= value.
template <class I>
__device__ __forceinline__ long long last_at_most(const I* ptr, long long n, long long value) {
    long long lo = 0, hi = n - 1;
    while (lo < hi) {
        const long long probe = lo + (hi - lo + 1) / 2;
        if (static_cast<long long>(__ldg(ptr + probe)) <= value)
            lo = probe;
        else
            hi = probe - 1;
    }
    return lo;
}

// The position of segment s's first non-zero (s = segments gives nnz).
template <bool MID, class T, class I>
__device__ __forceinline__ long long segment_begin(const TensorArgs<T, I>& p, long long s) {
    const long long fiber = MID ? static_cast<long long>(__ldg(p.seg_ptr + s)) : s;
    return static_cast<long long>(__ldg(p.fiber_ptr + fiber));
}

template <class T, int VEC>
__device__ __forceinline__ void flush_row(const TensorOut<T>& out, long long row, long long col0, long long rank, bool whole,
                                          const accum_t<T> (&acc)[VEC]) {
    if (!whole) {
#pragma unroll
        for (int c = 0; c < VEC; ++c)
            if (col0 + c < rank) atomicAdd(&out(row, col0 + c), from_accum<T>(acc[c]));
        return;
    }
    T* o = &out(row, col0);
    if (out.cs == 1 && col0 + VEC <= rank && reinterpret_cast<unsigned long long>(o) % (sizeof(T) * VEC) == 0) {
        store_vec<T, VEC>(o, acc);
        return;
    }
#pragma unroll
    for (int c = 0; c < VEC; ++c)
        if (col0 + c < rank) out(row, col0 + c) = from_accum<T>(acc[c]);
}

template <class T, class I, int G, int VEC, bool MID>
__global__ void __launch_bounds__(tensor_block_threads) tensor_chunk_kernel(const TensorArgs<T, I> p) {
    using A = accum_t<T>;
    constexpr int NB = tensor_batch;
    const int lane = static_cast<int>(threadIdx.x) & (G - 1);
    const long long group = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
    const long long col0 = static_cast<long long>(blockIdx.y) * (G * VEC) + static_cast<long long>(lane) * VEC;
    const long long p0 = group * p.chunk;
    if (p0 >= p.nnz || col0 >= p.rank) return;
    const long long p1 = p0 + p.chunk < p.nnz ? p0 + p.chunk : p.nnz;

    // The fiber and segment of the chunk's first non-zero; later ones follow from the batches.
    long long f = last_at_most(p.fiber_ptr, p.fibers, p0);
    long long s = MID ? last_at_most(p.seg_ptr, p.segments, f) : f;
    long long row = MID ? static_cast<long long>(__ldg(p.seg_ids + s)) : s;
    bool whole = segment_begin<MID>(p, s) == p0;  // no earlier chunk holds part of it

    A acc[VEC];
#pragma unroll
    for (int c = 0; c < VEC; ++c) acc[c] = A(0);

    for (long long q = p0; q < p1; q += NB) {
        // Past the chunk's end a batch repeats its last non-zero: every load is valid, none is used.
        I k[NB];
        A x[NB];
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            const long long pos = q + b < p1 ? q + b : p1 - 1;
            k[b] = __ldg(p.leaf_ids + pos);
            x[b] = to_accum(__ldg(p.values + pos));
        }
        // Each non-zero's fiber, as a step past f: the number of the fiber starts f + 1 .. f + NB at
        // or before it (past the last fiber the start is nnz, which no position reaches).
        I fiber_start[NB];
#pragma unroll
        for (int t = 0; t < NB; ++t) {
            const long long next = f + 1 + t;
            fiber_start[t] = __ldg(p.fiber_ptr + (next < p.fibers ? next : p.fibers));
        }
        int df[NB];
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            const long long pos = q + b < p1 ? q + b : p1 - 1;
            df[b] = 0;
#pragma unroll
            for (int t = 0; t < NB; ++t) df[b] += static_cast<long long>(fiber_start[t]) <= pos ? 1 : 0;
        }
        // Each non-zero's segment as a step past s, the same way over segment starts (in fibers).
        int ds[NB];
        if constexpr (MID) {
            I segment_start[NB];
#pragma unroll
            for (int t = 0; t < NB; ++t) {
                const long long next = s + 1 + t;
                segment_start[t] = __ldg(p.seg_ptr + (next < p.segments ? next : p.segments));
            }
#pragma unroll
            for (int b = 0; b < NB; ++b) {
                ds[b] = 0;
#pragma unroll
                for (int t = 0; t < NB; ++t) ds[b] += static_cast<long long>(segment_start[t]) <= f + df[b] ? 1 : 0;
            }
        } else {
#pragma unroll
            for (int b = 0; b < NB; ++b) ds[b] = df[b];
        }

        // The factor rows, all loads in flight before the FMAs.
        A lv[NB][VEC];
        if constexpr (MID) {
            I j[NB];
#pragma unroll
            for (int b = 0; b < NB; ++b) j[b] = __ldg(p.fiber_ids + f + df[b]);
            A mv[NB][VEC];
#pragma unroll
            for (int b = 0; b < NB; ++b) load_vec<T, VEC>(p.leaf + static_cast<long long>(k[b]) * p.ld_leaf + col0, lv[b]);
#pragma unroll
            for (int b = 0; b < NB; ++b) load_vec<T, VEC>(p.mid + static_cast<long long>(j[b]) * p.ld_mid + col0, mv[b]);
#pragma unroll
            for (int b = 0; b < NB; ++b)
#pragma unroll
                for (int c = 0; c < VEC; ++c) lv[b][c] *= mv[b][c];
        } else {
#pragma unroll
            for (int b = 0; b < NB; ++b) load_vec<T, VEC>(p.leaf + static_cast<long long>(k[b]) * p.ld_leaf + col0, lv[b]);
        }

        // The segment of the batch's first non-zero is s or s + 1; ds counts from the old s.
        const long long s0 = s;
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            if (q + b >= p1) break;  // repeated non-zeros: skipped, not weighted by 0 (0 * inf is NaN)
            if (s0 + ds[b] != s) {   // segment s ended before this non-zero, inside the chunk
                flush_row<T, VEC>(p.out, row, col0, p.rank, whole, acc);
#pragma unroll
                for (int c = 0; c < VEC; ++c) acc[c] = A(0);
                s = s0 + ds[b];
                row = MID ? static_cast<long long>(__ldg(p.seg_ids + s)) : s;
                whole = true;  // it starts here; whether it ends here is known at the next flush
            }
#pragma unroll
            for (int c = 0; c < VEC; ++c) acc[c] += x[b] * lv[b][c];
        }
        f += df[NB - 1];
    }
    whole = whole && segment_begin<MID>(p, s + 1) == p1;  // the last segment ends with the chunk
    flush_row<T, VEC>(p.out, row, col0, p.rank, whole, acc);
}

// TTM: one warp per chunk boundary c * chunk (c >= 1) zeroes the fiber it cuts, which the chunk
// kernel then adds up with atomics. MTTKRP zeroes its whole output instead (empty slices too).
template <class T, class I>
__global__ void __launch_bounds__(tensor_block_threads) tensor_zero_cut_fibers_kernel(const TensorArgs<T, I> p, long long chunks) {
    const long long c = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32 + 1;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    if (c >= chunks) return;
    const long long cut = c * p.chunk;
    const long long f = last_at_most(p.fiber_ptr, p.fibers, cut);
    if (static_cast<long long>(__ldg(p.fiber_ptr + f)) == cut) return;  // the cut falls between fibers
    for (long long r = lane; r < p.rank; r += 32) p.out(f, r) = from_accum<T>(accum_t<T>(0));
}

}  // namespace spk::detail::cuda
