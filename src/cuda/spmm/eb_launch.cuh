#pragma once
// Launch of the edge-based SpMM for a runtime shape: C's shared and empty rows prepared, then a
// switch over the compiled shapes (EB+SR: r = 1; EB+PR: r = g). Instantiated for f32 and f64
// (eb_<type>.cu).
#include <cuda_runtime.h>

#include "cuda/common/check.cuh"
#include "cuda/spmm/eb_kernel.cuh"
#include "cuda/spmm/eb_pr_kernel.cuh"
#include "spk/error.hpp"
#include "tune/spmm_config.hpp"
#include "tune/spmm_shapes.hpp"

namespace spk::detail::cuda {

template <class T, class I, int G, int R, int VEC>
void launch_eb_shape(const SpmmKernelArgs<T, I>& args, long long rows, long long nnz, cudaStream_t stream) {
    constexpr int threads = 256, tile = R == 1 ? G * VEC : VEC;
    const long long blocks = (args.num_rows * G + threads - 1) / threads;
    const long long tiles = (args.n + tile - 1) / tile;
    if (blocks == 0 || tiles == 0) return;
    if (blocks > 0x7fffffffLL || tiles > 65535)
        unsupported("spmm: problem too large for one launch (" + std::to_string(blocks) + " x " + std::to_string(tiles) + " blocks)");
    const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles));
    if constexpr (R == 1)
        spmm_eb_kernel<T, I, G, VEC><<<grid, threads, 0, stream>>>(args, rows, nnz);
    else
        spmm_eb_pr_kernel<T, I, G, VEC><<<grid, threads, 0, stream>>>(args, rows, nnz);
    SPK_CUDA_CHECK_LAUNCH();
}

// args.num_rows: the number of chunks, args.chunk: non-zeros a chunk (EB+PR rounds it up to a
// multiple of G, and its rows count as shared where they cross a step of G).
template <class T, class I>
void launch_eb(const RbShape& s, const SpmmKernelArgs<T, I>& args, long long rows, long long nnz, cudaStream_t stream) {
    SpmmKernelArgs<T, I> a = args;
    if (s.r > 1) {
        a.chunk = (args.chunk + s.g - 1) / s.g * s.g;
        a.num_rows = (nnz + a.chunk - 1) / a.chunk;
    }
    const long long shared_span = s.r > 1 ? s.g : a.chunk;
    if (rows > 0) {
        eb_prepare_rows<T, I><<<static_cast<unsigned>((rows + 7) / 8), 256, 0, stream>>>(a.row_ptr, rows, shared_span, a.c, a.ldc, a.n,
                                                                                           a.beta);
        SPK_CUDA_CHECK_LAUNCH();
    }
#define SPK_EB_CASE(G, R, VEC)                                     \
    if (s.g == G && s.r == R && s.vec == VEC) {                    \
        launch_eb_shape<T, I, G, R, VEC>(a, rows, nnz, stream);    \
        return;                                                    \
    }
    SPK_SPMM_EB_SHAPES(SPK_EB_CASE)
#undef SPK_EB_CASE
    invalid_argument("spmm: edge-based shape " + eb_shape_name(s) + " is not compiled");
}

}  // namespace spk::detail::cuda
