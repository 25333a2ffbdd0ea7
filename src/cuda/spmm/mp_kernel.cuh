#pragma once
// Merge-path SpMM (sum and mean, f32 and f64; config "mp.v<VEC>.e<E>"): A's row ends and its
// non-zeros, merged in CSR order (row i's end after its last non-zero), are cut into equal runs of
// E items a lane and 32 * E a warp, so that every lane does the same work whatever the rows'
// lengths: a row of 100000 non-zeros takes many warps, a run of empty rows shares a lane. Meant for
// narrow B (a few columns a lane: VEC), where a row-based group idles on short rows and waits on
// long ones; the selector takes it for SpMV over power-law graphs (tune/spmm_config.cpp).
//
// The plan finds every lane's first row once (merge_lane_rows). A lane loads its rows' ends and
// its non-zeros together, then all their B rows at once, and sums its non-zeros by row in
// registers (three rounds of loads, no loop over memory between them; still a round more than a
// row-based lane waits on): rows it holds whole are written to C.
// The rest meet as follows, in an order fixed by the cut (deterministic):
//   - within a block (8 warps, 256 * E items), a segmented scan of the lanes' unfinished rows in
//     each warp, then the warps' unfinished parts in shared memory, give the lane that finishes a
//     row begun in earlier lanes their part;
//   - across blocks, each block a row spans stores its part (slot_out where the row continues past
//     the block, slot_in where the block finishes it) and counts itself in the row's arrivals; the
//     last block to arrive sums the parts in block order and writes the row. Only rows crossing a
//     block's end pay for a fence and an atomic.
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/spmm/rb_kernel.cuh"

namespace spk::detail::cuda {

constexpr int merge_block_lanes = 256;

// What the plan keeps for the merge-path kernel (state.hpp: SpmmState::merge).
template <class A, class I>
struct MergePathArgs {
    const I* lane_rows;  // lanes + 1 entries: the row at each lane's first item (the plan's search)
    long long blocks;    // runs of merge_block_lanes * E items over the rows + nnz items
    long long tiles;     // column tiles of VEC columns; a block a (run, tile)
    A* slot_out;         // blocks x n: a block's part of the row it leaves unfinished
    A* slot_in;          // blocks x n: a block's part of the row it finishes, begun in an earlier block
    unsigned* arrivals;  // blocks x tiles: for each row begun in block b and crossing its end, the blocks done with it
};

// The merge-path coordinate of diagonal d: the row ends before it (the least i in [lo, hi] whose
// end comes after the d - i non-zeros before it).
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

// The plan's search: the row at each lane's first item (lanes + 1 of them; the last is `rows`).
template <class I>
__global__ void merge_lane_rows(const I* row_ptr, long long rows, long long nnz, long long items_per_lane, long long lanes, I* out) {
    const long long l = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (l > lanes) return;
    const long long d = l * items_per_lane < rows + nnz ? l * items_per_lane : rows + nnz;
    out[l] = static_cast<I>(merge_row_at(row_ptr, d, d - nnz > 0 ? d - nnz : 0, d < rows ? d : rows));
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

// The last block to arrive at a crossing row (non-zeros begin .. end) sums its parts (slot_out of
// the blocks it spans but the last, slot_in of the last) in block order, lanes of one warp taking
// every 32nd block, and writes the row.
template <class T, class I, int VEC>
__device__ __forceinline__ void merge_combine(const SpmmKernelArgs<T, I>& p, const MergePathArgs<accum_t<T>, I>& m, long long row,
                                              long long begin, long long end, long long items_per_block, long long col0, long long tile,
                                              int lane) {
    using A = accum_t<T>;
    const long long first = (begin + row) / items_per_block, last = (end + row) / items_per_block;
    __threadfence();  // the other blocks' parts, published before their arrivals
    A sum[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) {
        sum[q] = A(0);
        if (col0 + q < p.n)
            for (long long b = first + lane; b <= last; b += 32) sum[q] += __ldcg((b < last ? m.slot_out : m.slot_in) + b * p.n + col0 + q);
        sum[q] = group_sum<32>(sum[q]);
    }
    if (lane == 0) {
        merge_write_row<T, I, VEC>(p, row, end - begin, col0, sum);
        m.arrivals[first * m.tiles + tile] = 0;  // ready for the next run
    }
}

template <class T, class I, int VEC, int E>
__global__ void __launch_bounds__(merge_block_lanes)
    spmm_merge_kernel(const SpmmKernelArgs<T, I> p, const MergePathArgs<accum_t<T>, I> m, long long rows, long long nnz) {
    wait_for_previous_grid();  // launched after the stream's previous kernel (launch_after_previous)
    using A = accum_t<T>;
    constexpr int warps = merge_block_lanes / 32;
    constexpr long long per_warp = 32LL * E, per_block = merge_block_lanes * static_cast<long long>(E);
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) / 32;
    const long long block = blockIdx.x / m.tiles, tile = blockIdx.x % m.tiles;
    const long long col0 = tile * VEC;
    const bool full_vector = col0 + VEC <= p.n;
    const long long items = rows + nnz;
    const long long block_d = block * per_block, warp_d = block_d + warp * per_warp;

    // This lane's items run from (i0, k0) to the next lane's start (i1, k1): rows i0 .. i1 - 1
    // end in it, and non-zeros k0 .. k1 - 1 lie in it.
    const long long global_lane = block * merge_block_lanes + threadIdx.x;
    const long long d0 = warp_d + lane * E < items ? warp_d + lane * E : items;
    const long long d1 = d0 + E < items ? d0 + E : items;
    const long long i0 = m.lane_rows[global_lane];
    long long i1 = __shfl_down_sync(full_mask, i0, 1);
    if (lane == 31) i1 = m.lane_rows[global_lane + 1];
    const long long k0 = d0 - i0, k1 = d1 - i1;
    const int ending = static_cast<int>(i1 - i0);  // rows ending here, at most E

    // The rows' ends and the non-zeros, then their B rows, each batch of loads issued at once.
    const long long first_begin = i0 < rows ? static_cast<long long>(p.row_ptr[i0]) : nnz;
    long long row_end[E];  // row i0 + r ends before non-zero row_end[r] (r < ending)
    I col[E];
    A a[E], bv[E][VEC];
#pragma unroll
    for (int s = 0; s < E; ++s) {
        row_end[s] = s < ending ? static_cast<long long>(p.row_ptr[i0 + 1 + s]) : nnz + 1;
        const bool live = k0 + s < k1;
        col[s] = live ? p.col_idx[k0 + s] : I(0);
        a[s] = live ? to_accum(p.values[k0 + s]) : A(0);
    }
    // The end of lane 31's unfinished row (the next warp's first), for the block's last lane's
    // arrival below.
    const long long open_end = lane == 31 && i1 < rows ? static_cast<long long>(p.row_ptr[i1 + 1]) : nnz;
#pragma unroll
    for (int s = 0; s < E; ++s) {
        const bool live = k0 + s < k1;
        const T* brow = p.b + static_cast<long long>(col[s]) * p.ldb + col0;
        if (live && full_vector)
            load_vec<T, VEC>(brow, bv[s]);
        else {
#pragma unroll
            for (int q = 0; q < VEC; ++q) bv[s][q] = live && col0 + q < p.n ? to_accum(brow[q]) : A(0);
        }
    }

    // Row r's non-zeros here: [start(r), row_end[r]), start(0) = max(first_begin, k0). Non-zero
    // k0 + s lies in the row r that counts the row ends at or before it.
    const auto start_of = [&](int r) {
        long long at = first_begin > k0 ? first_begin : k0;
#pragma unroll
        for (int t = 0; t + 1 < E; ++t)
            if (t + 1 == r) at = row_end[t];
        return at;
    };
    const auto length_of = [&](int r) {  // the whole row's length (row 0 may have begun before k0)
        long long end = 0;
#pragma unroll
        for (int t = 0; t < E; ++t)
            if (t == r) end = row_end[t];
        return end - (r == 0 ? first_begin : start_of(r));
    };
    A acc[VEC], first[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q) acc[q] = first[q] = A(0);
    const bool first_begun_before = ending > 0 && first_begin < k0;
    // Rows ending here with no non-zero here: written now (empty rows), or, the first row begun
    // before k0, handed on as a zero part.
#pragma unroll
    for (int r = 0; r < E; ++r)
        if (r < ending && row_end[r] <= start_of(r) && !(r == 0 && first_begun_before))
            merge_write_row<T, I, VEC>(p, i0 + r, length_of(r), col0, acc);
#pragma unroll
    for (int s = 0; s < E; ++s) {
        if (k0 + s >= k1) break;
        // Rows ending at or before non-zero k0 + s (its row) and before the next one.
        int r = 0, r_next = 0;
#pragma unroll
        for (int t = 0; t < E; ++t) {
            r += t < ending && row_end[t] <= k0 + s ? 1 : 0;
            r_next += t < ending && row_end[t] <= k0 + s + 1 ? 1 : 0;
        }
#pragma unroll
        for (int q = 0; q < VEC; ++q) acc[q] += a[s] * bv[s][q];
        if (r_next > r) {  // its row ends in this lane: written, or kept for the scan
            if (r == 0 && first_begun_before) {
#pragma unroll
                for (int q = 0; q < VEC; ++q) first[q] = acc[q];
            } else {
                merge_write_row<T, I, VEC>(p, i0 + r, length_of(r), col0, acc);
            }
#pragma unroll
            for (int q = 0; q < VEC; ++q) acc[q] = A(0);
        }
    }
    // acc: this lane's part of row i1, unfinished here.

    // Segmented inclusive scan of the unfinished rows' parts (keys ascend across lanes).
    const long long key = i1;
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
#pragma unroll
    for (int q = 0; q < VEC; ++q) {
        const A before = __shfl_up_sync(full_mask, acc[q], 1);
        first[q] += lane > 0 ? before : A(0);
    }

    // The warps' unfinished parts, for the block.
    __shared__ long long warp_row[warps];
    __shared__ A warp_part[warps][VEC];
    if (lane == 31) {
        warp_row[warp] = i1;
#pragma unroll
        for (int q = 0; q < VEC; ++q) warp_part[warp][q] = acc[q];
    }
    __syncthreads();
    // The block's part of a row left unfinished by warp `last` and the warps before it.
    const auto block_part = [&](long long row, int last, A(&sum)[VEC]) {
        int from = last;
        while (from >= 0 && warp_row[from] == row) --from;
        for (int v = from + 1; v <= last; ++v)
#pragma unroll
            for (int q = 0; q < VEC; ++q) sum[q] += warp_part[v][q];
        return from < 0;  // every warp before held part of it
    };

    // Rows within the block are written here; rows across blocks go through the slots.
    bool report_in = false;
    if (first_begun_before) {
        const bool from_block_start = first_begin + i0 < warp_d && block_part(i0, warp - 1, first);
        if (!(from_block_start && first_begin + i0 < block_d)) {
            merge_write_row<T, I, VEC>(p, i0, row_end[0] - first_begin, col0, first);
        } else {
#pragma unroll
            for (int q = 0; q < VEC; ++q)
                if (col0 + q < p.n) m.slot_in[block * p.n + col0 + q] = first[q];
            report_in = true;
        }
    }
    // The last lane's unfinished row begins in the block or earlier (then the block holds part of
    // it) and goes on past it.
    long long open_start = first_begin;
#pragma unroll
    for (int t = 0; t < E; ++t)
        if (t + 1 == ending) open_start = row_end[t];
    const bool report_out = threadIdx.x == merge_block_lanes - 1 && i1 < rows && open_start + i1 < block_d + per_block;
    if (report_out) {
        A part[VEC];
#pragma unroll
        for (int q = 0; q < VEC; ++q) part[q] = A(0);
        (void)block_part(i1, warps - 1, part);
#pragma unroll
        for (int q = 0; q < VEC; ++q)
            if (col0 + q < p.n) m.slot_out[block * p.n + col0 + q] = part[q];
    }

    // Arrivals: a crossing row's blocks count themselves at the block where it begins; the last sums.
    const auto arrive = [&](bool reporting, long long crossing_row, long long begin, long long end) {
        bool last = false;
        if (reporting) {
            const long long first_block = (begin + crossing_row) / per_block, last_block = (end + crossing_row) / per_block;
            __threadfence();  // this block's part before its arrival
            last = atomicAdd(m.arrivals + first_block * m.tiles + tile, 1u) == static_cast<unsigned>(last_block - first_block);
        }
        const unsigned ballot = __ballot_sync(full_mask, last);
        if (ballot) {
            const int from = __ffs(ballot) - 1;
            merge_combine<T, I, VEC>(p, m, __shfl_sync(full_mask, crossing_row, from), __shfl_sync(full_mask, begin, from),
                                     __shfl_sync(full_mask, end, from), per_block, col0, tile, lane);
        }
    };
    arrive(report_in, i0, first_begin, row_end[0]);
    arrive(report_out, i1, open_start, open_end);
}

}  // namespace spk::detail::cuda
