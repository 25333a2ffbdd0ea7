#pragma once
// Launch of the edge-based SpMM for a runtime shape: C's shared and empty rows prepared, then a
// switch over the compiled shapes. Instantiated for f32 and f64 (eb_<type>.cu).
#include <cuda_runtime.h>

#include "cuda/common/check.cuh"
#include "cuda/spmm/eb_kernel.cuh"
#include "spk/error.hpp"
#include "tune/spmm_config.hpp"
#include "tune/spmm_shapes.hpp"

namespace spk::detail::cuda {

template <class T, class I, int G, int VEC>
void launch_eb_shape(const SpmmKernelArgs<T, I>& args, long long rows, long long nnz, cudaStream_t stream) {
    constexpr int threads = 256, tile = G * VEC;
    const long long blocks = (args.num_rows * G + threads - 1) / threads;
    const long long tiles = (args.n + tile - 1) / tile;
    if (blocks == 0 || tiles == 0) return;
    if (blocks > 0x7fffffffLL || tiles > 65535)
        unsupported("spmm: problem too large for one launch (" + std::to_string(blocks) + " x " + std::to_string(tiles) + " blocks)");
    spmm_eb_kernel<T, I, G, VEC><<<dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles)), threads, 0, stream>>>(args, rows, nnz);
    SPK_CUDA_CHECK_LAUNCH();
}

// args.num_rows: the number of chunks, args.chunk: non-zeros a chunk.
template <class T, class I>
void launch_eb(const RbShape& s, const SpmmKernelArgs<T, I>& args, long long rows, long long nnz, cudaStream_t stream) {
    if (rows > 0) {
        eb_prepare_rows<T, I><<<static_cast<unsigned>((rows + 7) / 8), 256, 0, stream>>>(args.row_ptr, rows, args.chunk, args.c, args.ldc,
                                                                                           args.n, args.beta);
        SPK_CUDA_CHECK_LAUNCH();
    }
#define SPK_EB_CASE(G, VEC)                                         \
    if (s.g == G && s.vec == VEC) {                                 \
        launch_eb_shape<T, I, G, VEC>(args, rows, nnz, stream);     \
        return;                                                     \
    }
    SPK_SPMM_EB_SHAPES(SPK_EB_CASE)
#undef SPK_EB_CASE
    invalid_argument("spmm: edge-based shape g" + std::to_string(s.g) + ".v" + std::to_string(s.vec) + " is not compiled");
}

}  // namespace spk::detail::cuda
