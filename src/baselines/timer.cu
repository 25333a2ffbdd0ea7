// CUDA-event timing (core/cuda_runtime.hpp: short calls timed in batches) and the copy bandwidth.
#include <cuda_runtime.h>

#include <algorithm>

#include "baselines/baselines.hpp"
#include "core/cuda_runtime.hpp"
#include "cuda/common/check.cuh"

namespace spk::baselines {

namespace {
detail::cuda::CallTiming call_timing = detail::cuda::CallTiming::stream_batches;
}

void set_graph_replay(bool on) { call_timing = on ? detail::cuda::CallTiming::graph_replay : detail::cuda::CallTiming::stream_batches; }

std::shared_ptr<void> make_stream(int device) {
    SPK_CUDA_CHECK(cudaSetDevice(device));
    cudaStream_t stream = nullptr;
    SPK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return {stream, [](void* s) { cudaStreamDestroy(static_cast<cudaStream_t>(s)); }};
}

std::vector<double> time_device_runs_ms(const Executor& exec, const std::function<void()>& fn, int warmup, int reps) {
    return detail::cuda::time_calls_ms(exec.device(), exec.stream(), fn, warmup, reps, call_timing);
}

double time_device_ms(const Executor& exec, const std::function<void()>& fn, int warmup, int reps) {
    std::vector<double> times = time_device_runs_ms(exec, fn, warmup, reps);
    std::nth_element(times.begin(), times.begin() + static_cast<long>(times.size() / 2), times.end());
    return times[times.size() / 2];
}

double copy_bandwidth(const Executor& exec) {
    constexpr std::size_t bytes = std::size_t{1} << 30;
    void *src = nullptr, *dst = nullptr;
    SPK_CUDA_CHECK(cudaMalloc(&src, bytes));
    const cudaError_t err = cudaMalloc(&dst, bytes);
    if (err != cudaSuccess) {
        cudaFree(src);
        SPK_CUDA_CHECK(err);
    }
    double ms = 0;
    try {
        SPK_CUDA_CHECK(cudaMemset(src, 1, bytes));  // never time a copy of untouched pages
        const auto stream = static_cast<cudaStream_t>(exec.stream());
        ms = time_device_ms(
            exec, [&] { SPK_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream)); }, 2, 9);
    } catch (...) {
        cudaFree(src);
        cudaFree(dst);
        throw;
    }
    cudaFree(src);
    cudaFree(dst);
    return 2.0 * static_cast<double>(bytes) / (ms / 1e3);
}

}  // namespace spk::baselines
