// The high-water mark of the device's default memory pool around one call: how much of the pool
// (spk's stream-ordered workspaces) the call held at once.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "baselines/baselines.hpp"
#include "cuda/common/check.cuh"

namespace spk::baselines {

std::size_t pool_peak_bytes(const Executor& exec, const std::function<void()>& fn) {
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    cudaMemPool_t pool = nullptr;
    SPK_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, exec.device()));
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::uint64_t before = 0, high = 0;
    SPK_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &before));
    std::uint64_t zero = 0;  // the only value the high-water mark can be reset to: it restarts from the current use
    SPK_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    fn();
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
    SPK_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
    return static_cast<std::size_t>(high - std::min(high, before));
}

}  // namespace spk::baselines
