#pragma once
// Launches of the SDDMM kernels for a runtime shape: a switch over the compiled shapes, G in
// {1, 2, 4, 8, 16, 32} lanes and VEC in {1, 16 bytes' worth} (the rows kernel: the four shapes of
// pick_rows_shape per VEC). Included by kernels_<type>.cu only.
#include <string>

#include "cuda/common/check.cuh"
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/sddmm/dot_kernel.cuh"
#include "cuda/sddmm/gather_kernel.cuh"
#include "cuda/sddmm/rows_kernel.cuh"
#include "spk/error.hpp"

namespace spk::detail::cuda {

// Values per 16-byte load.
template <class T>
constexpr int sddmm_vector_width = static_cast<int>(16 / sizeof(T));

template <class T, class I, int G, int VEC>
void launch_dot_shape(const DotArgs<T, I>& args, cudaStream_t stream) {
    const long long warps = (args.nnz + args.chunk - 1) / args.chunk;
    const long long blocks = (warps * 32 + sddmm_block_threads - 1) / sddmm_block_threads;
    if (blocks == 0) return;
    if (blocks > 0x7fffffffLL) unsupported("sddmm: problem too large for one launch (" + std::to_string(blocks) + " blocks)");
    const bool one_pass = args.heads == 1 && args.steps == 1 && !args.weights.data && args.narrow;
    launch_after_previous(one_pass ? sddmm_dot_kernel<T, I, G, VEC, true> : sddmm_dot_kernel<T, I, G, VEC, false>,
                          static_cast<unsigned>(blocks), sddmm_block_threads, 0, stream, args);
}

template <class T, class I, int G, int VEC, int HELD>
void launch_rows_shape(const DotArgs<T, I>& args, cudaStream_t stream) {
    constexpr long long rows_per_warp = 32 / G;
    const long long warps = (args.rows + rows_per_warp - 1) / rows_per_warp * args.split;
    const long long blocks = (warps * 32 + sddmm_block_threads - 1) / sddmm_block_threads;
    if (blocks == 0) return;
    if (blocks > 0x7fffffffLL) unsupported("sddmm: problem too large for one launch (" + std::to_string(blocks) + " blocks)");
    const bool full = args.d == static_cast<long long>(HELD) * G * VEC;
    launch_after_previous(full ? sddmm_rows_kernel<T, I, G, VEC, HELD, true> : sddmm_rows_kernel<T, I, G, VEC, HELD, false>,
                          static_cast<unsigned>(blocks), sddmm_block_threads, 0, stream, args);
}

template <class T, class I, int G, int VEC>
void launch_gather_shape(const GatherArgs<T, I>& args, cudaStream_t stream) {
    const long long blocks = (args.rows * G + sddmm_block_threads - 1) / sddmm_block_threads;
    const long long tiles = (args.width + G * VEC - 1) / (G * VEC);
    if (blocks == 0 || tiles == 0) return;
    if (blocks > 0x7fffffffLL || tiles > 65535)
        unsupported("sddmm_backward: problem too large for one launch (" + std::to_string(blocks) + " x " + std::to_string(tiles) +
                    " blocks)");
    sddmm_gather_kernel<T, I, G, VEC>
        <<<dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles)), sddmm_block_threads, 0, stream>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

// Calls launch<G, VEC>() for the compiled shape equal to s.
template <class T, class Launch>
void dispatch_sddmm_shape(const SddmmShape& s, Launch&& launch) {
    constexpr int wide = sddmm_vector_width<T>;
#define SPK_SDDMM_CASE(G)                                                  \
    if (s.g == G && s.vec == 1) return launch.template operator()<G, 1>(); \
    if (s.g == G && s.vec == wide) return launch.template operator()<G, wide>();
    SPK_SDDMM_CASE(1)
    SPK_SDDMM_CASE(2)
    SPK_SDDMM_CASE(4)
    SPK_SDDMM_CASE(8)
    SPK_SDDMM_CASE(16)
    SPK_SDDMM_CASE(32)
#undef SPK_SDDMM_CASE
    invalid_argument("sddmm: no kernel compiled for " + std::to_string(s.g) + " lanes x " + std::to_string(s.vec) + " values");
}

// Calls launch<G, VEC, HELD>() for the compiled rows-mode shape equal to s (pick_rows_shape's).
template <class T, class Launch>
void dispatch_rows_shape(const SddmmRowsShape& s, Launch&& launch) {
    constexpr int wide = sddmm_vector_width<T>;
#define SPK_SDDMM_ROWS_CASE(G, VEC, HELD) \
    if (s.g == G && s.vec == VEC && s.held == HELD) return launch.template operator()<G, VEC, HELD>();
    SPK_SDDMM_ROWS_CASE(4, 1, 1)
    SPK_SDDMM_ROWS_CASE(8, 1, 1)
    SPK_SDDMM_ROWS_CASE(8, 1, sddmm_rows_held(1))
    SPK_SDDMM_ROWS_CASE(32, 1, sddmm_rows_held(1))
    SPK_SDDMM_ROWS_CASE(4, wide, 1)
    SPK_SDDMM_ROWS_CASE(8, wide, 1)
    SPK_SDDMM_ROWS_CASE(8, wide, sddmm_rows_held(wide))
    SPK_SDDMM_ROWS_CASE(32, wide, sddmm_rows_held(wide))
#undef SPK_SDDMM_ROWS_CASE
    invalid_argument("sddmm: no rows kernel compiled for " + std::to_string(s.g) + " lanes x " + std::to_string(s.vec) + " values x " +
                     std::to_string(s.held) + " steps");
}

template <class T, class I>
void launch_dot(const SddmmShape& shape, const DotArgs<T, I>& args, cudaStream_t stream) {
    dispatch_sddmm_shape<T>(shape, [&]<int G, int VEC>() { launch_dot_shape<T, I, G, VEC>(args, stream); });
}

template <class T, class I>
void launch_rows(const SddmmRowsShape& shape, const DotArgs<T, I>& args, cudaStream_t stream) {
    dispatch_rows_shape<T>(shape, [&]<int G, int VEC, int HELD>() { launch_rows_shape<T, I, G, VEC, HELD>(args, stream); });
}

template <class T, class I>
void launch_gather(const SddmmShape& shape, const GatherArgs<T, I>& args, cudaStream_t stream) {
    dispatch_sddmm_shape<T>(shape, [&]<int G, int VEC>() { launch_gather_shape<T, I, G, VEC>(args, stream); });
}

}  // namespace spk::detail::cuda
