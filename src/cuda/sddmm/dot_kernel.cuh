#pragma once
// The SDDMM dot kernel: out(p, h) = s_p <X_i, Y_j>_h for every entry p = (i, j) of A, or, given
// weights (dA), out(p, 0) = sum_h weights(p, h) <X_i, Y_j>_h.
//
// Work split: a warp owns `chunk` consecutive entries (equal slices balance the work whatever the
// row lengths), finds the row of its first entry once with a 32-way search, and walks the rows
// forward from there. Its lanes form P = 32/G sub-groups of G lanes and take tiles of P*U
// entries: entry base + u*P + s goes to sub-group s, so each lane has U independent Y loads in
// flight and the index loads and output stores of one u touch P consecutive entries. A lane
// covers VEC consecutive features (16-byte loads when d allows); a head's d features take `steps`
// passes of G*VEC. A tile within one row loads X's row once a lane; a tile across rows loads it
// per entry (sub-groups on the same row read the same bytes in the same instruction, an L1 hit
// after the row's first tile), so nothing has to be carried across tiles. Lane partials are combined by log2(G) xor shuffles, then lane u % G of
// each sub-group writes its entry u.
#include <type_traits>

#include "cuda/common/programmatic_launch.cuh"
#include "cuda/common/segment_group.cuh"
#include "cuda/common/values.cuh"
#include "cuda/sddmm/args.cuh"
#include "cuda/common/readonly_load.cuh"

namespace spk::detail::cuda {

// The row holding entry e < nnz: the last i < rows with row_ptr[i] <= e (a non-empty row, as
// row_ptr[rows] = nnz > e). Each round the warp probes 32 evenly spaced rows and keeps the gap
// between the last probe at or before e and the next one: a million rows take four rounds.
template <class I>
__device__ __forceinline__ long long warp_find_row(const I* row_ptr, long long rows, long long e, int warp_lane) {
    long long lo = 0, hi = rows - 1;  // row_ptr[lo] <= e, and the answer lies in [lo, hi]
    while (lo < hi) {
        const long long span = hi - lo;
        const auto probe = [&](int k) { return lo + (span * (k + 1) + 31) / 32; };  // probe(31) = hi, every probe > lo
        const bool at_or_before = static_cast<long long>(__ldg(row_ptr + probe(warp_lane))) <= e;
        const int passed = __popc(__ballot_sync(full_mask, at_or_before));  // row_ptr is sorted: the first `passed` probes
        const long long next_lo = passed > 0 ? probe(passed - 1) : lo;
        if (passed < 32) hi = probe(passed) - 1;
        lo = next_lo;
    }
    return lo;
}

// ONE_PASS: one head, one pass over d, no weights, and X, Y and the output each spanning fewer
// than 2^31 elements (the forward pass of the common shapes). Its loops over heads and passes
// vanish, which keeps it within 64 registers (4 blocks of 256 per SM), and its offsets into X,
// Y and the output take 32 bits: 64-bit ones cost each load three multiplies and the registers
// they held made the compiler recompute bases inside the loop. The general kernel keeps
// per-entry addresses across those loops and gets up to 128 registers (2 blocks per SM) rather
// than spilling.
template <class T, class I, int G, int VEC, bool ONE_PASS>
__global__ void __launch_bounds__(sddmm_block_threads, ONE_PASS ? sddmm_dot_min_blocks : sddmm_dot_min_blocks / 2)
    sddmm_dot_kernel(const DotArgs<T, I> p) {
    wait_for_previous_grid();  // launched after the stream's previous kernel (launch_after_previous)
    using A = accum_t<T>;
    constexpr int U = sddmm_batch;
    constexpr int P = 32 / G;
    constexpr int tile = P * U;
    const int warp_lane = static_cast<int>(threadIdx.x) & 31;
    const int lane = warp_lane & (G - 1);
    const int sub = warp_lane / G;
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const long long e0 = warp * p.chunk;
    if (e0 >= p.nnz) return;  // whole warps leave together: the shuffles below stay legal
    // Positions from here on count from e0, in 32-bit arithmetic: the slice holds n <= chunk < 2^30 entries.
    const int n = static_cast<int>(p.nnz - e0 < p.chunk ? p.nnz - e0 : p.chunk);
    const I* const col_idx = p.col_idx + e0;
    const long long heads = ONE_PASS ? 1 : p.heads, steps = ONE_PASS ? 1 : p.steps;
    const bool weighted = !ONE_PASS && p.weights.data;
    using Off = std::conditional_t<ONE_PASS, unsigned, long long>;  // element offsets
    const auto off = [](long long v) { return static_cast<Off>(v); };
    T* const out = p.out.data + e0 * p.out.rs;  // entry e0 + e, head h at out[e * rs + h * cs]

    // The current row and its end as a position, capped at n (which no position reaches).
    long long row = warp_find_row(p.row_ptr, p.rows, e0, warp_lane);
    const auto end_of = [&](long long r) {
        const long long end = static_cast<long long>(__ldg(p.row_ptr + r + 1)) - e0;
        return end < n ? static_cast<int>(end) : n;
    };
    int row_end = end_of(row);

    // A tile's column indices, from one pointer (immediate offsets for its U loads); past the
    // slice's end column 0 (a valid row of Y: the kernel runs only when nnz > 0), whose products
    // are never written.
    const auto load_columns = [&](int base, I(&col)[U]) {
        const I* const cols = col_idx + (base + sub);
#pragma unroll
        for (int u = 0; u < U; ++u) col[u] = base + u * P + sub < n ? __ldg(cols + u * P) : I(0);
    };
    // Entry e's dot product for head h: written, or with weights added to its total over heads,
    // written after the last head (a lane writes the same entries of a tile for every head).
    const auto write_entry = [&](int e, long long h, A dot, A& total) {
        if (weighted) {
            total += to_accum(p.weights(e0 + e, h)) * dot;
            if (h == heads - 1) out[off(e) * off(p.out.rs)] = from_accum<T>(total);
        } else {
            const A scale = p.scale ? to_accum(__ldg(p.scale + e0 + e)) : A(1);
            out[off(e) * off(p.out.rs) + off(h) * off(p.out.cs)] = from_accum<T>(scale * dot);
        }
    };
    I next[U];
    load_columns(0, next);
#pragma unroll 1
    for (int base = 0; base < n; base += tile) {
        I col[U];
#pragma unroll
        for (int u = 0; u < U; ++u) col[u] = next[u];
        load_columns(base + tile, next);  // on their way while this tile computes

        // The tile's dot products, written. ONE_ROW: every entry of the tile lies in the current
        // row, so each lane loads its features of X's row once instead of once per entry (rows of
        // more than a tile, a power-law graph's hubs and a mesh's rows, take this path).
        const auto compute = [&](auto one_row, const Off(&xrow)[U]) {
            constexpr bool ONE_ROW = decltype(one_row)::value;
            // With weights, the sums over heads so far of the entries this lane writes: one
            // (total[0]) where the sums are transposed, entry u's in total[u] otherwise.
            A total[U] = {};
#pragma unroll 1
            for (long long h = 0; h < heads; ++h) {
                A acc[U] = {};
#pragma unroll 1
                for (long long t = 0; t < steps; ++t) {
                    const long long in_head = t * (G * VEC) + lane * VEC;
                    if (in_head >= p.d) continue;  // lanes past d add nothing
                    const Off offset = off(h * p.d + in_head);
                    vec_storage<T, VEC> y[U], x[U];
#pragma unroll
                    for (int u = 0; u < U; ++u) y[u] = load_readonly<T, VEC>(p.y + (off(col[u]) * off(p.ldy) + offset));
#pragma unroll
                    for (int u = 0; u < U; ++u) x[u] = ONE_ROW && u > 0 ? x[0] : load_readonly<T, VEC>(p.x + (xrow[u] + offset));
#pragma unroll
                    for (int u = 0; u < U; ++u)
#pragma unroll
                        for (int q = 0; q < VEC; ++q) acc[u] += to_accum(x[u].v[q]) * to_accum(y[u].v[q]);
                }
                // The U sums at once where a sub-group has a lane for each (G >= U): entry u's
                // sum ends in lanes u*(G/U) .., the first of which writes it. Narrower sub-groups
                // sum each entry in turn, and lane u % G writes entry u.
                if constexpr (G >= U) {
                    const A mine = group_transpose_sum<G, U>(acc);
                    const int u = lane / (G / U);
                    const int e = base + u * P + sub;
                    if (lane % (G / U) == 0 && e < n) write_entry(e, h, mine, total[0]);
                } else {
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        const A sum = group_sum<G>(acc[u]);
                        const int e = base + u * P + sub;
                        if (u % G == lane && e < n) write_entry(e, h, sum, total[u]);
                    }
                }
            }
        };

        // Rows of the tile's entries (X's row of each, as an offset): positions only grow, so the
        // walk only moves forward. Sub-groups may end a walk on different rows; the one-row test
        // is taken by the whole warp (compute's shuffles need every lane), and where it passes
        // every lane's row holds the whole tile.
        Off xrow[U];
        const int tile_end = base + tile < n ? base + tile : n;
        if (__all_sync(full_mask, row_end >= tile_end)) {
#pragma unroll
            for (int u = 0; u < U; ++u) xrow[u] = off(row) * off(p.ldx);
            compute(std::true_type{}, xrow);
        } else {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int e = base + u * P + sub < n ? base + u * P + sub : n - 1;
                while (row_end <= e) row_end = end_of(++row);
                xrow[u] = off(row) * off(p.ldx);
            }
            compute(std::false_type{}, xrow);
        }
    }
}

}  // namespace spk::detail::cuda
