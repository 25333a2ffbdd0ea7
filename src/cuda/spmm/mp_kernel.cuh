#pragma once
// Merge-path SpMM (sum and mean, f32 and f64; config "mp.v<VEC>.e<E>"): A's row ends and its
// non-zeros, merged in CSR order (row i's end after its last non-zero), are cut into equal runs of
// E items a lane and 32 * E a warp, so that every lane does the same work whatever the rows'
// lengths: a row of 100000 non-zeros takes many warps, a run of empty rows shares a lane. Meant for
// narrow B (a few columns a lane: VEC), where a row-based group idles on short rows and waits on
// long ones.
//
// A lane finds its first item by a search between its warp's bounds (the plan's warp_rows), loads
// all its non-zeros' B rows at once, then walks its items: rows it holds whole are written to C.
// The rest meet as follows, in an order fixed by the cut (deterministic):
//   - within a warp, a segmented scan of the lanes' unfinished rows gives the lane that finishes
//     a row begun in earlier lanes their part;
//   - across warps, each warp a row spans stores its part (slot_out where the row continues past
//     the warp, slot_in where the warp finishes it) and counts itself in the row's arrivals; the
//     last warp to arrive sums the parts in warp order and writes the row.
#include "cuda/spmm/rb_kernel.cuh"

namespace spk::detail::cuda {

// What the plan keeps for the merge-path kernel (state.hpp: SpmmState::merge).
template <class A>
struct MergePathArgs {
    const long long* warp_rows;  // warps + 1 entries: the row at each warp's first item
    long long warps;             // runs of 32 * E items over the rows + nnz items
    long long tiles;             // column tiles of VEC columns; a warp a (run, tile)
    A* slot_out;                 // warps x n: a warp's part of the row it leaves unfinished
    A* slot_in;                  // warps x n: a warp's part of the row it finishes, begun in an earlier warp
    unsigned* arrivals;          // warps x tiles: for each row begun in warp w and crossing its end, the warps done with it
};

// The merge-path coordinate of diagonal d: the row ends before it (the least i in [lo, hi] whose
// end comes after the d - i non-zeros before it), within bounds known to hold it.
template <class I>
__device__ __forceinline__ long long merge_row_at(const I* row_ptr, long long d, long long lo, long long hi) {
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if (static_cast<long long>(row_ptr[mid + 1]) <= d - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The plan's search: the row at each warp's first item (warps + 1 of them; the last is `rows`).
template <class I>
__global__ void merge_warp_rows(const I* row_ptr, long long rows, long long nnz, long long items_per_warp, long long warps, long long* out) {
    const long long w = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (w > warps) return;
    const long long d = w * items_per_warp < rows + nnz ? w * items_per_warp : rows + nnz;
    out[w] = merge_row_at(row_ptr, d, d - nnz > 0 ? d - nnz : 0, d < rows ? d : rows);
}

// C(row, col0 ..) = alpha * scale * sum + beta * C(row, col0 ..), scale = 1 / length for mean.
template <class T, class I, int VEC>
__device__ __forceinline__ void merge_write_row(const SpmmKernelArgs<T, I>& p, long long row, long long length, long long col0,
                                                const accum_t<T> (&sum)[VEC]) {
    using A = accum_t<T>;
    const A scale = p.mean ? (length > 0 ? p.alpha / static_cast<A>(length) : A(0)) : p.alpha;
    T* out = p.c + row * p.ldc + col0;
#pragma unroll
    for (int q = 0; q < VEC; ++q)
        if (col0 + q < p.n) out[q] = from_accum<T>(p.beta == A(0) ? scale * sum[q] : scale * sum[q] + p.beta * to_accum(out[q]));
}

// The last warp to arrive at a crossing row sums its parts (slot_out of the warps it spans but the
// last, slot_in of the last) in warp order, lanes taking every 32nd warp, and writes the row.
template <class T, class I, int VEC>
__device__ __forceinline__ void merge_combine(const SpmmKernelArgs<T, I>& p, const MergePathArgs<accum_t<T>>& m, long long row,
                                              long long items_per_warp, long long col0, long long tile, int lane) {
    using A = accum_t<T>;
    const long long begin = p.row_ptr[row], end = p.row_ptr[row + 1];
    const long long first = (begin + row) / items_per_warp, last = (end + row) / items_per_warp;
    __threadfence();  // the other warps' parts, published before their arrivals
    A sum[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) {
        sum[q] = A(0);
        if (col0 + q >= p.n) continue;
        for (long long w = first + lane; w <= last; w += 32)
            sum[q] += __ldcg((w < last ? m.slot_out : m.slot_in) + w * p.n + col0 + q);
        sum[q] = group_sum<32>(sum[q]);
    }
    if (lane == 0) {
        merge_write_row<T, I, VEC>(p, row, end - begin, col0, sum);
        m.arrivals[first * m.tiles + tile] = 0;  // ready for the next run
    }
}

template <class T, class I, int VEC, int E>
__global__ void __launch_bounds__(256) spmm_merge_kernel(const SpmmKernelArgs<T, I> p, const MergePathArgs<accum_t<T>> m, long long rows,
                                                          long long nnz) {
    using A = accum_t<T>;
    constexpr long long per_warp = 32LL * E;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const long long gw = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const long long w = gw / m.tiles, tile = gw % m.tiles;
    if (w >= m.warps) return;  // whole warps leave together
    const long long col0 = tile * VEC;
    const bool full_vector = col0 + VEC <= p.n;
    const long long items = rows + nnz;
    const long long warp_d = w * per_warp;
    const long long warp_first_row = m.warp_rows[w], next_warp_row = m.warp_rows[w + 1];

    // This lane's items: from (i0, k0) to the next lane's start (i1, k1).
    const long long d0 = warp_d + lane * E < items ? warp_d + lane * E : items;
    const long long d1 = d0 + E < items ? d0 + E : items;
    const long long lo = d0 - nnz > warp_first_row ? d0 - nnz : warp_first_row;
    const long long hi = d0 < next_warp_row ? d0 : next_warp_row;
    const long long i0 = merge_row_at(p.row_ptr, d0, lo, hi);
    const long long k0 = d0 - i0;
    long long i1 = __shfl_down_sync(full_mask, i0, 1);
    if (lane == 31) i1 = next_warp_row;
    const long long k1 = d1 - i1;

    // Every non-zero's B row on its way before the walk.
    A a[E], bv[E][VEC];
#pragma unroll
    for (int s = 0; s < E; ++s) {
        const long long k = k0 + s;
        const bool live = k < k1;
        const I j = live ? p.col_idx[k] : I(0);
        a[s] = live ? to_accum(p.values[k]) : A(0);
        const T* brow = p.b + static_cast<long long>(j) * p.ldb + col0;
        if (live && full_vector)
            load_vec<T, VEC>(brow, bv[s]);
        else {
#pragma unroll
            for (int q = 0; q < VEC; ++q) bv[s][q] = live && col0 + q < p.n ? to_accum(brow[q]) : A(0);
        }
    }

    // The walk: before non-zero k, the rows ending at or before k end (row ends precede the
    // non-zero at their offset); the lane's first row, if begun before k0, is kept for the scan.
    long long row = i0;
    const long long first_begin = row < rows ? static_cast<long long>(p.row_ptr[row]) : nnz;
    long long row_begin = first_begin;
    long long row_end = row < rows ? static_cast<long long>(p.row_ptr[row + 1]) : nnz;
    A acc[VEC], first[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) acc[q] = first[q] = A(0);
    bool first_done = false;
    long long first_length = 0;
    const auto end_rows = [&](long long k) {
        while (row < i1 && row_end <= k) {
            if (row == i0 && row_begin < k0) {
#pragma unroll
                for (int q = 0; q < VEC; ++q) first[q] = acc[q];
                first_done = true;
                first_length = row_end - row_begin;
            } else {
                merge_write_row<T, I, VEC>(p, row, row_end - row_begin, col0, acc);
            }
#pragma unroll
            for (int q = 0; q < VEC; ++q) acc[q] = A(0);
            ++row;
            row_begin = row_end;
            row_end = row < rows ? static_cast<long long>(p.row_ptr[row + 1]) : nnz;
        }
    };
#pragma unroll
    for (int s = 0; s < E; ++s) {
        if (k0 + s < k1) {
            end_rows(k0 + s);
#pragma unroll
            for (int q = 0; q < VEC; ++q) acc[q] += a[s] * bv[s][q];
        }
    }
    end_rows(k1);  // row == i1 now: acc holds this lane's part of row i1

    // Segmented inclusive scan of the unfinished rows' parts (keys ascend across lanes).
    long long key = row;
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
        const long long other = __shfl_up_sync(full_mask, key, off);
#pragma unroll
        for (int q = 0; q < VEC; ++q) {
            const A v = __shfl_up_sync(full_mask, acc[q], off);
            if (lane >= off && other == key) acc[q] += v;
        }
    }
    // The earlier lanes' part of this lane's first row (lane l - 1's unfinished row is row i0).
    A before[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) {
        before[q] = __shfl_up_sync(full_mask, acc[q], 1);
        if (lane == 0) before[q] = A(0);
    }

    // Rows within the warp are written here; rows across warps go through the slots.
    bool report_in = false;
    if (first_done) {
#pragma unroll
        for (int q = 0; q < VEC; ++q) first[q] += before[q];
        if (first_begin + i0 >= warp_d) {
            merge_write_row<T, I, VEC>(p, i0, first_length, col0, first);
        } else {
#pragma unroll
            for (int q = 0; q < VEC; ++q)
                if (col0 + q < p.n) m.slot_in[w * p.n + col0 + q] = first[q];
            report_in = true;
        }
    }
    const bool report_out =
        lane == 31 && next_warp_row < rows && static_cast<long long>(p.row_ptr[next_warp_row]) + next_warp_row < warp_d + per_warp;
    if (report_out) {
#pragma unroll
        for (int q = 0; q < VEC; ++q)
            if (col0 + q < p.n) m.slot_out[w * p.n + col0 + q] = acc[q];
    }

    // Arrivals: a crossing row's warps count themselves at the warp where it begins; the last sums.
    const auto arrive = [&](bool reporting, long long crossing_row) {
        bool last = false;
        if (reporting) {
            const long long begin = p.row_ptr[crossing_row], end = p.row_ptr[crossing_row + 1];
            const long long first_warp = (begin + crossing_row) / per_warp, last_warp = (end + crossing_row) / per_warp;
            __threadfence();  // this warp's part before its arrival
            last = atomicAdd(m.arrivals + first_warp * m.tiles + tile, 1u) == static_cast<unsigned>(last_warp - first_warp);
        }
        const unsigned ballot = __ballot_sync(full_mask, last);
        if (ballot) {
            const long long r = __shfl_sync(full_mask, crossing_row, __ffs(ballot) - 1);
            merge_combine<T, I, VEC>(p, m, r, per_warp, col0, tile, lane);
        }
    };
    arrive(report_in, i0);
    arrive(report_out, next_warp_row);
}

}  // namespace spk::detail::cuda
