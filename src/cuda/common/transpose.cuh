#pragma once
// Out-of-place dense transpose through a shared-memory tile: in (rows x cols, row stride ld_in)
// to out (cols x rows, row stride ld_out). Used to run column-major SpMM operands through the
// row-major kernels.
#include <cuda_runtime.h>

#include "cuda/common/check.cuh"

namespace spk::detail::cuda {

template <class T>
__global__ void transpose_kernel(const T* in, long long rows, long long cols, long long ld_in, T* out, long long ld_out) {
    __shared__ T tile[32][33];  // +1 column: no bank conflicts on the transposed read
    const long long r0 = static_cast<long long>(blockIdx.y) * 32, c0 = static_cast<long long>(blockIdx.x) * 32;
    for (int k = threadIdx.y; k < 32; k += blockDim.y) {
        const long long r = r0 + k, c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[k][threadIdx.x] = in[r * ld_in + c];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < 32; k += blockDim.y) {
        const long long c = c0 + k, r = r0 + threadIdx.x;
        if (r < rows && c < cols) out[c * ld_out + r] = tile[threadIdx.x][k];
    }
}

template <class T>
void transpose(const T* in, long long rows, long long cols, long long ld_in, T* out, long long ld_out, cudaStream_t stream) {
    if (rows == 0 || cols == 0) return;
    // gridDim.y stops at 65535 blocks: tall inputs go in bands of rows.
    constexpr long long band = 65535LL * 32;
    for (long long r0 = 0; r0 < rows; r0 += band) {
        const long long band_rows = rows - r0 < band ? rows - r0 : band;
        const dim3 grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((band_rows + 31) / 32));
        transpose_kernel<T><<<grid, dim3(32, 8), 0, stream>>>(in + r0 * ld_in, band_rows, cols, ld_in, out + r0, ld_out);
        SPK_CUDA_CHECK_LAUNCH();
    }
}

}  // namespace spk::detail::cuda
