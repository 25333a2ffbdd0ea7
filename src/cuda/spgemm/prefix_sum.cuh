#pragma once
// A row pointer from per-row counts on the device (cub's scan), for the SpGEMM symbolic phase and
// the triangle count's lower triangle.
#include <cub/cub.cuh>

#include "cuda/spgemm/launch.cuh"

namespace spk::detail::cuda::spgemm {

// out[0] = 0, out[i + 1] = Σ counts[0..i]. The caller makes sure Σ counts fits T (then every
// partial sum does too, whatever type cub accumulates in).
template <class C, class T>
void prefix_sum(const Executor& exec, const C* counts, long long rows, T* out) {
    SPK_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(T), stream_of(exec)));
    if (rows == 0) return;
    run_cub(exec, [&](void* temp, std::size_t& bytes) { return cub::DeviceScan::InclusiveSum(temp, bytes, counts, out + 1, rows, stream_of(exec)); });
}

}  // namespace spk::detail::cuda::spgemm
