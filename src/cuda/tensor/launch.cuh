#pragma once
// Launches of the tensor kernels for a runtime shape: a switch over the compiled shapes, G in
// {1, 2, 4, 8, 16, 32} lanes and VEC in {1, 16 bytes' worth}. Included by kernels_<type>.cu only.
#include <string>

#include "cuda/common/check.cuh"
#include "cuda/tensor/chunk_kernel.cuh"
#include "spk/error.hpp"

namespace spk::detail::cuda {

// Values per 16-byte load.
template <class T>
constexpr int tensor_vector_width = static_cast<int>(16 / sizeof(T));

inline void check_tensor_grid(long long blocks, long long tiles, const char* op) {
    if (blocks > 0x7fffffffLL || tiles > 65535)
        unsupported(std::string(op) + ": problem too large for one launch (" + std::to_string(blocks) + " x " + std::to_string(tiles) +
                    " blocks)");
}

template <class T, class I, int G, int VEC, bool MID>
void launch_chunks_shape(const TensorArgs<T, I>& args, cudaStream_t stream, const char* op) {
    const long long groups = (args.nnz + args.chunk - 1) / args.chunk;
    const long long blocks = (groups * G + tensor_block_threads - 1) / tensor_block_threads;
    const long long tiles = (args.rank + G * VEC - 1) / (G * VEC);
    if (blocks == 0 || tiles == 0) return;
    check_tensor_grid(blocks, tiles, op);
    tensor_chunk_kernel<T, I, G, VEC, MID>
        <<<dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles)), tensor_block_threads, 0, stream>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

// Calls launch<G, VEC>() for the compiled shape equal to s.
template <class T, class Launch>
void dispatch_tensor_shape(const TensorShape& s, const char* op, Launch&& launch) {
    constexpr int wide = tensor_vector_width<T>;
#define SPK_TENSOR_CASE(G)                                                 \
    if (s.g == G && s.vec == 1) return launch.template operator()<G, 1>(); \
    if (s.g == G && s.vec == wide) return launch.template operator()<G, wide>();
    SPK_TENSOR_CASE(1)
    SPK_TENSOR_CASE(2)
    SPK_TENSOR_CASE(4)
    SPK_TENSOR_CASE(8)
    SPK_TENSOR_CASE(16)
    SPK_TENSOR_CASE(32)
#undef SPK_TENSOR_CASE
    invalid_argument(std::string(op) + ": no kernel compiled for " + std::to_string(s.g) + " lanes x " + std::to_string(s.vec) + " values");
}

template <class T, class I>
void launch_mttkrp(const TensorShape& shape, const TensorArgs<T, I>& args, cudaStream_t stream) {
    dispatch_tensor_shape<T>(shape, "mttkrp", [&]<int G, int VEC>() { launch_chunks_shape<T, I, G, VEC, true>(args, stream, "mttkrp"); });
}

template <class T, class I>
void launch_ttm(const TensorShape& shape, const TensorArgs<T, I>& args, cudaStream_t stream) {
    const long long chunks = (args.nnz + args.chunk - 1) / args.chunk;
    if (chunks > 1) {
        const long long blocks = ((chunks - 1) * 32 + tensor_block_threads - 1) / tensor_block_threads;
        check_tensor_grid(blocks, 1, "ttm");
        tensor_zero_cut_fibers_kernel<T, I><<<static_cast<unsigned>(blocks), tensor_block_threads, 0, stream>>>(args, chunks);
        SPK_CUDA_CHECK_LAUNCH();
    }
    dispatch_tensor_shape<T>(shape, "ttm", [&]<int G, int VEC>() { launch_chunks_shape<T, I, G, VEC, false>(args, stream, "ttm"); });
}

}  // namespace spk::detail::cuda
