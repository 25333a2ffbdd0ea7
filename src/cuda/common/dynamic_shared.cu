#include <mutex>
#include <set>
#include <utility>

#include "core/cuda_runtime.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/dynamic_shared.cuh"

namespace spk::detail::cuda {

void allow_dynamic_shared_memory(const void* kernel) {
    int device = 0;
    SPK_CUDA_CHECK(cudaGetDevice(&device));
    static std::mutex mutex;
    static std::set<std::pair<int, const void*>> allowed;
    const std::lock_guard lock(mutex);
    if (allowed.contains({device, kernel})) return;
    cudaFuncAttributes attributes{};
    SPK_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    const auto most = device_properties(device).shared_per_block_optin - attributes.sharedSizeBytes;
    SPK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(most)));
    allowed.insert({device, kernel});
}

}  // namespace spk::detail::cuda
