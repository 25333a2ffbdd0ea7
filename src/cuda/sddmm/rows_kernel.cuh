#pragma once
// The SDDMM dot kernel in neighbour-row mode (the forward pass: out(p, h) = s_p <X_i, Y_j>_h, no
// weights), for matrices whose neighbouring rows are about equally long and share columns, as a
// mesh's do (dot_mode.cu decides).
//
// Work split: the P = 32/G sub-groups of a warp own P consecutive rows, the warps of a block
// consecutive groups of rows, so a block covers 8P neighbouring rows. With split > 1 (matrices
// with too few rows to fill the device), `split` consecutive warps share a group, each walking an
// equal span of its positions. The sub-groups walk their
// rows in lockstep by position: in one instruction sub-group s loads the Y row of entry
// row_ptr[r0 + s] + k. Where neighbouring rows share their column pattern (the unknowns of one
// mesh node) those are the same bytes, fetched once; where they are shifted copies (a stencil's
// neighbouring nodes), the Y rows one warp needs next were just fetched by its neighbours: the
// block's Y reads at any moment stay within a small window of Y, which L1 can hold (what the
// slices mode lacks on long rows: its warps walk rows far apart, each re-reading its own row's
// Y rows for the next row of a triple after they left L1). X's row (one head) sits in
// registers for the whole walk: HELD steps of G*VEC features per lane, lanes past d hold zeros.
//
// Rows of different lengths: the warp runs to its longest row; lanes past their row's end load no
// Y row and write nothing (their index loads read nothing either), so their cost is idle issue
// slots, which dot_mode.cu bounds by choosing this mode only when a warp's rows are about equal.
// Per lane, U entries (HELD == 1) or HELD steps of one entry (HELD > 1) have their Y loads in flight
// before the FMAs; the next round's column indices are on their way meanwhile.
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/common/segment_group.cuh"
#include "cuda/common/values.cuh"
#include "cuda/sddmm/args.cuh"
#include "cuda/common/readonly_load.cuh"

namespace spk::detail::cuda {

// FULL: every step's features lie within d (d = HELD*G*VEC, as d = 32 and 128 are with the wide
// shapes), so that no lane tests its features against d; the others test every step's.
template <class T, class I, int G, int VEC, int HELD, bool FULL>
__global__ void __launch_bounds__(sddmm_block_threads, sddmm_dot_min_blocks) sddmm_rows_kernel(const DotArgs<T, I> p) {
    wait_for_previous_grid();  // launched after the stream's previous kernel (launch_after_previous)
    using A = accum_t<T>;
    using Vec = vec_storage<T, VEC>;
    constexpr int P = 32 / G;
    constexpr int U = sddmm_rows_round(HELD);  // entries per lane and round
    static_assert(U <= G, "a sub-group's lanes write its round's entries");
    const int warp_lane = static_cast<int>(threadIdx.x) & 31;
    const int lane = warp_lane & (G - 1);
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const long long first_row = warp / p.split * P;
    if (first_row >= p.rows) return;  // whole warps leave together: the shuffles below stay legal
    const long long row = first_row + warp_lane / G;
    const bool has_row = row < p.rows;
    // Positions within a row count in 32 bits: the host runs this kernel only when nnz < 2^30.
    const long long begin = has_row ? static_cast<long long>(__ldg(p.row_ptr + row)) : 0;
    const int len = has_row ? static_cast<int>(static_cast<long long>(__ldg(p.row_ptr + row + 1)) - begin) : 0;
    const int warp_len = group_reduce<32>(len, [](int a, int b) { return a > b ? a : b; });
    // This warp's share of the group's positions: part `warp % split` of `split` equal spans, in
    // whole rounds (so a round never crosses into the next warp's span).
    const int span = ((warp_len + p.split - 1) / p.split + U - 1) / U * U;
    const int first = static_cast<int>(warp % p.split) * span;
    if (first >= warp_len) return;  // warp-uniform, as above
    const int last = first + span < warp_len ? first + span : warp_len;
    // Offsets into Y and from out in 32 bits (run_dot runs this kernel only where Y and the
    // output span fewer than 2^31 elements). A round's addresses come from pointers that advance
    // by a round (immediate offsets for its U entries) and one wide multiply-add per Y row: with
    // an index into the row and 64-bit sums per load, address arithmetic took half of the loop.
    const unsigned ldy_bytes = static_cast<unsigned>(p.ldy) * static_cast<unsigned>(sizeof(T));
    const unsigned out_step = static_cast<unsigned>(p.out.rs);
    const unsigned d = static_cast<unsigned>(p.d);

#pragma unroll 1
    for (long long h = 0; h < p.heads; ++h) {
        const unsigned head = static_cast<unsigned>(h) * d;
        // This lane's features of the head: step t covers [t*G*VEC + lane*VEC, + VEC).
        const unsigned lane_feature = static_cast<unsigned>(lane * VEC);
        const auto in_d = [&](int t) { return FULL || lane_feature + static_cast<unsigned>(t * G * VEC) < d; };
        Vec x[HELD];
#pragma unroll
        for (int t = 0; t < HELD; ++t)
            x[t] = has_row && in_d(t) ? load_readonly<T, VEC>(p.x + row * p.ldx + head + lane_feature + t * (G * VEC)) : Vec{};
        const char* const y_lane = reinterpret_cast<const char*>(p.y + (head + lane_feature));  // this lane's features of Y's row 0
        // Positions past the row's end read no index; their column (0) is never used.
        const I* cols = p.col_idx + begin + first;  // position k's index at cols[k - first]
        const T* scale = p.scale ? p.scale + begin + first : nullptr;
        T* out = &p.out(begin + first, h);  // position k's output at out[(k - first) * out_step]

        I next[U];
#pragma unroll
        for (int u = 0; u < U; ++u) next[u] = first + u < len ? __ldg(cols + u) : I(0);
#pragma unroll 1
        for (int k = first; k < last; k += U, cols += U, out += U * out_step) {
            I col[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                col[u] = next[u];
                next[u] = k + U + u < len ? __ldg(cols + U + u) : I(0);  // on their way while this round computes
            }
            // Entries past the row's end load nothing and leave their vectors unset: their sums
            // are never written, and no other entry's sum reads them (a sub-group shares one row).
            Vec y[U][HELD];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const T* const y_row = reinterpret_cast<const T*>(
                    y_lane + static_cast<unsigned long long>(static_cast<unsigned>(col[u])) * ldy_bytes);
#pragma unroll
                for (int t = 0; t < HELD; ++t)
                    if (k + u < len && in_d(t)) y[u][t] = load_readonly<T, VEC>(y_row + t * (G * VEC));
            }
            A acc[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                acc[u] = A(0);
#pragma unroll
                for (int t = 0; t < HELD; ++t)
                    if (in_d(t))
#pragma unroll
                        for (int q = 0; q < VEC; ++q) acc[u] += to_accum(x[t].v[q]) * to_accum(y[u][t].v[q]);
            }
            // The U sums at once: lanes u*(G/U) .. of a sub-group end with entry k + u's, and the
            // first of them writes it (one store a round).
            const A mine = group_transpose_sum<G, U>(acc);
            const int u = lane / (G / U);
            if (lane % (G / U) == 0 && k + u < len) {
                const A s = scale ? to_accum(__ldg(scale + (k - first) + u)) : A(1);
                out[static_cast<unsigned>(u) * out_step] = from_accum<T>(s * mine);
            }
        }
    }
}

}  // namespace spk::detail::cuda
