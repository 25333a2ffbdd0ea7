// CUDA-event timing: median of per-call times after warm-up.
#include <cuda_runtime.h>

#include <algorithm>

#include "baselines/baselines.hpp"
#include "cuda/common/check.cuh"

namespace spk::baselines {

double time_device_ms(const Executor& exec, const std::function<void()>& fn, int warmup, int reps) {
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    for (int i = 0; i < warmup; ++i) fn();
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaEvent_t start, stop;
    SPK_CUDA_CHECK(cudaEventCreate(&start));
    SPK_CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> times;
    for (int i = 0; i < std::max(reps, 1); ++i) {
        SPK_CUDA_CHECK(cudaEventRecord(start, stream));
        fn();
        SPK_CUDA_CHECK(cudaEventRecord(stop, stream));
        SPK_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        SPK_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::nth_element(times.begin(), times.begin() + static_cast<long>(times.size() / 2), times.end());
    return times[times.size() / 2];
}

} // namespace spk::baselines
