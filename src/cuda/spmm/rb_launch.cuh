#pragma once
// Launch of one row-based SpMM kernel for a runtime shape: a switch over the compiled shapes.
// Instantiated once per value type (rb_<type>.cu) so those files compile in parallel.
#include <cuda_runtime.h>

#include "cuda/common/check.cuh"
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/spmm/rb_fused_kernel.cuh"
#include "cuda/spmm/rb_kernel.cuh"
#include "spk/error.hpp"
#include "tune/spmm_config.hpp"
#include "tune/spmm_shapes.hpp"

namespace spk::detail::cuda {

constexpr int rb_block_threads = 256;
static_assert(rb_piece_threads == rb_block_threads, "a piece block is a row kernel's block");

// Whether a launch of blocks x tiles row-kernel blocks takes the wide kernels (rb_wide_load_registers).
template <class T, class I>
bool takes_wide(const SpmmKernelArgs<T, I>& args, long long blocks, long long tiles) {
    return blocks * tiles * (rb_block_threads / 32) <= args.wide_warps;
}

template <class T, class I, int G, int R, int VEC, Fold F, bool Split = false>
void launch_rb_shape(const SpmmKernelArgs<T, I>& args, cudaStream_t stream) {
    constexpr int tile = (G / R) * VEC;
    const long long groups_per_block = rb_block_threads / G;
    const long long blocks = (args.num_rows + groups_per_block - 1) / groups_per_block;
    const long long tiles = (args.n + tile - 1) / tile;
    if (blocks == 0 || tiles == 0) return;
    if (blocks > 0x7fffffffLL || tiles > 65535)
        unsupported("spmm: problem too large for one launch (" + std::to_string(blocks) + " x " + std::to_string(tiles) + " blocks)");
    const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles));
    if constexpr (F == Fold::sum && !Split) {
        if (takes_wide(args, blocks, tiles)) {
            launch_after_previous(spmm_rb_kernel<T, I, G, R, VEC, F, false, true>, grid, rb_block_threads, 0, stream, args);
            return;
        }
    }
    launch_after_previous(spmm_rb_kernel<T, I, G, R, VEC, F, Split>, grid, rb_block_threads, 0, stream, args);
}

template <class T, class I, Fold F>
void launch_rb_fold(const RbShape& s, const SpmmKernelArgs<T, I>& args, cudaStream_t stream) {
#define SPK_SHAPE_CASE(G, R, VEC)                          \
    if (s.g == G && s.r == R && s.vec == VEC) {            \
        launch_rb_shape<T, I, G, R, VEC, F>(args, stream); \
        return;                                            \
    }
    SPK_SPMM_RB_SHAPES(SPK_SHAPE_CASE)
#undef SPK_SHAPE_CASE
    invalid_argument("spmm: shape " + to_string(s) + " is not compiled");
}

template <class T, class I>
void launch_rb(const RbShape& s, Fold fold, const SpmmKernelArgs<T, I>& args, cudaStream_t stream) {
    switch (fold) {
        case Fold::sum:
            launch_rb_fold<T, I, Fold::sum>(s, args, stream);
            break;
        case Fold::max:
            launch_rb_fold<T, I, Fold::max>(s, args, stream);
            break;
        case Fold::min:
            launch_rb_fold<T, I, Fold::min>(s, args, stream);
            break;
    }
}

// Long rows cut into chunks, each chunk's sum added atomically (f32/f64 only; full-warp shapes).
template <class T, class I>
void launch_rb_split(const RbShape& s, const SpmmKernelArgs<T, I>& args, cudaStream_t stream) {
    static_assert(sizeof(T) >= 4, "split rows add atomically in the value type: f32 and f64 only");
#define SPK_SPLIT_CASE(G, R, VEC)                                            \
    if constexpr (G == 32) {                                                 \
        if (s.g == G && s.r == R && s.vec == VEC) {                          \
            launch_rb_shape<T, I, G, R, VEC, Fold::sum, true>(args, stream); \
            return;                                                          \
        }                                                                    \
    }
    SPK_SPMM_RB_SHAPES(SPK_SPLIT_CASE)
#undef SPK_SPLIT_CASE
    invalid_argument("spmm: split long rows need a 32-lane shape, got " + to_string(s));
}

// Short rows and pieces of long rows in one launch (spmm_rb_fused_kernel): the pieces' blocks
// first, then the short rows' (args.row_list, args.num_rows) as launch_rb_shape lays them out.
template <class T, class I, int G, int R, int VEC>
void launch_rb_fused_shape(const SpmmKernelArgs<T, I>& args, const RbPieces<T, I>& pieces, cudaStream_t stream) {
    constexpr int tile = (G / R) * VEC;
    const long long groups_per_block = rb_block_threads / G;
    const long long blocks = pieces.count + (args.num_rows + groups_per_block - 1) / groups_per_block;
    const long long tiles = (args.n + tile - 1) / tile;
    if (blocks == 0 || tiles == 0) return;
    if (blocks > 0x7fffffffLL || tiles > 65535)
        unsupported("spmm: problem too large for one launch (" + std::to_string(blocks) + " x " + std::to_string(tiles) + " blocks)");
    const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles));
    if (takes_wide(args, blocks, tiles))
        launch_after_previous(spmm_rb_fused_kernel<T, I, G, R, VEC, true>, grid, rb_block_threads, 0, stream, args, pieces);
    else
        launch_after_previous(spmm_rb_fused_kernel<T, I, G, R, VEC>, grid, rb_block_threads, 0, stream, args, pieces);
}

// s: the short rows' shape; the long rows' is one_launch_long_shape(s), a full warp over its tile.
template <class T, class I>
void launch_rb_fused(const RbShape& s, const SpmmKernelArgs<T, I>& args, const RbPieces<T, I>& pieces, cudaStream_t stream) {
    static_assert(sizeof(T) >= 4, "the split rules: sum and mean in f32 and f64");
#define SPK_FUSED_CASE(G, R, VEC)                                     \
    if (s.g == G && s.r == R && s.vec == VEC) {                       \
        launch_rb_fused_shape<T, I, G, R, VEC>(args, pieces, stream); \
        return;                                                       \
    }
    SPK_SPMM_RB_SHAPES(SPK_FUSED_CASE)
#undef SPK_FUSED_CASE
    invalid_argument("spmm: shape " + to_string(s) + " is not compiled");
}

}  // namespace spk::detail::cuda
