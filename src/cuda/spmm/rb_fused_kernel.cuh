#pragma once
// The split of long rows in one launch, without atomics on C (sum and mean in f32/f64): the grid's
// first blocks each take one piece of a long row (up to rb_piece_warps * threshold non-zeros), the
// rest the short rows as spmm_rb_kernel does. A piece block's warps each fold an equal slice of the
// piece with the full-warp shape {32, 32 / column lanes, VEC}, which covers the same column tile as
// the short rows' shape, and meet in shared memory in warp order. A row of one piece (most long
// rows) is written to C there, alpha and beta applied once. A longer row's pieces write their
// parts; the block that completes the row (an arrival count per row) adds the parts in piece order
// and writes C. Every sum has a fixed order: the result does not depend on timing.
#include "cuda/spmm/rb_kernel.cuh"

namespace spk::detail::cuda {

// Warps of a 256-thread block, and so the non-zeros of a piece: rb_piece_warps chunks of the
// long-row threshold, each warp folding as many non-zeros as a chunk of the atomic split does.
constexpr int rb_piece_warps = 8;
constexpr int rb_piece_threads = 32 * rb_piece_warps;  // the row kernels' block

// Long rows cut into pieces: piece k holds non-zeros [begin[k], begin[k] + size) of row rows[k]
// (cut at the row's end); a row's pieces are consecutive, its first one at the row's first
// non-zero.
template <class T, class I>
struct RbPieces {
    const I* rows;
    const long long* begin;
    long long count;
    long long size;
    accum_t<T>* partial;  // count x n: each piece's part, for rows of more than one piece
    unsigned* arrivals;   // at a row's first piece: its blocks done; the last sets it back to 0
};

// Piece k of a long row, on the full-warp shape {32, R, VEC} (the short rows' column tile).
template <class T, class I, int R, int VEC, int LoadRegisters>
__device__ __forceinline__ void rb_piece(const SpmmKernelArgs<T, I>& p, const RbPieces<T, I>& pieces, long long k) {
    using A = accum_t<T>;
    constexpr int tile = (32 / R) * VEC;
    __shared__ A parts[rb_piece_warps][tile];
    __shared__ A sums[rb_piece_threads];
    // The piece's row and bounds, read once and kept in shared memory: registers are scarce
    // (48 a thread) and none need hold them through the fold.
    __shared__ long long piece_row, piece_row_begin, piece_row_end, piece_begin;
    __shared__ bool completes_row;
    if (threadIdx.x == 0) {
        const long long row = pieces.rows[k];
        piece_row = row;
        piece_row_begin = p.row_ptr[row];
        piece_row_end = p.row_ptr[row + 1];
        piece_begin = pieces.begin[k];
    }
    __syncthreads();

    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) & 31;
    const long long tile0 = static_cast<long long>(blockIdx.y) * tile;
    {
        const long long begin = piece_begin;
        const long long end = begin + pieces.size < piece_row_end ? begin + pieces.size : piece_row_end;
        // Equal slices, not whole chunks of 32: a piece of 100 keeps all eight warps busy.
        const long long slice = (end - begin + rb_piece_warps - 1) / rb_piece_warps;
        const long long slice_begin = begin + warp * slice < end ? begin + warp * slice : end;
        const long long slice_end = slice_begin + slice < end ? slice_begin + slice : end;
        const int column_lane = lane / R;
        A acc[VEC];
        I unused[VEC];
        rb_fold_columns<T, I, 32, R, VEC, Fold::sum, true, LoadRegisters>(p, slice_begin, slice_end, lane, tile0 + column_lane * VEC, acc, unused);
        if ((lane & (R - 1)) == 0) {
#pragma unroll
            for (int q = 0; q < VEC; ++q) parts[warp][column_lane * VEC + q] = acc[q];
        }
    }
    __syncthreads();

    const long long row = piece_row, row_begin = piece_row_begin;
    const long long len = piece_row_end - row_begin;
    const long long row_pieces = (len + pieces.size - 1) / pieces.size;
    const int t = static_cast<int>(threadIdx.x);
    const long long col = tile0 + t;
    if (t < tile && col < p.n) {
        A v = 0;
#pragma unroll
        for (int w = 0; w < rb_piece_warps; ++w) v += parts[w][t];
        if (p.mean) v /= static_cast<A>(len);
        v *= p.alpha;
        if (row_pieces == 1) {
            T* out = p.c + row * p.ldc + col;
            if (p.beta != A(0)) v += p.beta * to_accum(*out);
            *out = from_accum<T>(v);
        } else {
            pieces.partial[k * p.n + col] = v;
        }
    }
    if (row_pieces == 1) return;  // the same for the whole block

    // The row's last block to arrive (over its pieces and column tiles) adds the parts.
    const long long first = k - (piece_begin - row_begin) / pieces.size;
    __threadfence();  // this block's parts are visible device-wide before it counts itself
    __syncthreads();
    if (t == 0) {
        const unsigned expected = static_cast<unsigned>(row_pieces) * gridDim.y;
        completes_row = atomicAdd(&pieces.arrivals[first], 1u) + 1u == expected;
        if (completes_row) pieces.arrivals[first] = 0;  // every block of the row has counted: ready for the next run
    }
    __syncthreads();
    if (!completes_row) return;
    __threadfence();

    // The threads split the columns (width at a time) and, when n is narrower than the block, the
    // parts: share s adds parts s, s + shares, ... (in L2: __ldcg, as other SMs wrote them), then
    // one thread a column adds the shares' sums in share order.
    const int width = p.n < rb_piece_threads ? static_cast<int>(p.n) : rb_piece_threads;
    const int shares = rb_piece_threads / width;
    const int share = t / width, column = t % width;
    for (long long c0 = 0; c0 < p.n; c0 += width) {
        const long long c = c0 + column;
        A v = 0;
        if (share < shares && c < p.n)
            for (long long piece = first + share; piece < first + row_pieces; piece += shares)
                v += __ldcg(&pieces.partial[piece * p.n + c]);
        __syncthreads();  // the previous columns' sums are read
        sums[t] = v;
        __syncthreads();
        if (share == 0 && c < p.n) {
            for (int s = 1; s < shares; ++s) v += sums[s * width + column];
            T* out = p.c + row * p.ldc + c;
            if (p.beta != A(0)) v += p.beta * to_accum(*out);
            *out = from_accum<T>(v);
        }
    }
}

// Pieces of long rows first (the longest work starts first), then groups of G lanes a short row.
// B through the read-only path in both (rb_fold_columns says why).
template <class T, class I, int G, int R, int VEC, bool Wide = false>
__global__ void __launch_bounds__(256, Wide ? rb_wide_min_blocks : rb_min_blocks)
    spmm_rb_fused_kernel(const SpmmKernelArgs<T, I> p, const RbPieces<T, I> pieces) {
    static_assert(sizeof(T) >= 4, "f32 and f64 (the short-row shape and the config's split rules)");
    constexpr int long_r = 32 * R / G;  // a full warp over the same column tile
    constexpr int load_registers = Wide ? rb_wide_load_registers : SPK_RB_LOAD_REGISTERS;
    wait_for_previous_grid();  // launched after the stream's previous kernel (launch_after_previous)
    if (blockIdx.x < pieces.count)
        rb_piece<T, I, long_r, VEC, load_registers>(p, pieces, blockIdx.x);
    else
        rb_rows<T, I, G, R, VEC, Fold::sum, false, true, load_registers>(p, static_cast<long long>(blockIdx.x) - pieces.count);
}

}  // namespace spk::detail::cuda
