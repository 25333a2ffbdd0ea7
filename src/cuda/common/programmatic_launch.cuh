#pragma once
// Programmatic dependent launch (sm_90): a kernel launched with launch_after_previous may be
// scheduled while the stream's previous kernel still runs, and must call wait_for_previous_grid()
// before it touches global memory; that wait returns once the previous grid has finished and its
// writes are visible (no kernel of spk triggers its dependents early). Without the launch
// attribute, or below sm_90, the wait is a no-op.
//
// Why: on the H200 host of bench/results/h200-spmm.md a launch costs the host 4.3-4.5 us with
// <<<>>>, 4.0-4.2 us through cudaLaunchKernelEx and 3.4-3.6 us with this attribute (same empty
// kernel, 256 back-to-back launches, two rounds), and a loop of small calls runs at the host's pace.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda/common/check.cuh"

namespace spk::detail::cuda {

__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...), launched after the previous kernel.
template <class... Params, class... Args>
void launch_after_previous(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                           Args&&... args) {
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    SPK_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace spk::detail::cuda
