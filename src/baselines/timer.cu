// CUDA-event timing: median of per-call times after warm-up (short calls timed in batches).
#include <cuda_runtime.h>

#include <algorithm>

#include "baselines/baselines.hpp"
#include "cuda/common/check.cuh"

namespace spk::baselines {

namespace {

// A CUDA event destroyed with its scope, also when the timed call throws (out of memory, say).
struct Event {
    cudaEvent_t event = nullptr;
    Event() { SPK_CUDA_CHECK(cudaEventCreate(&event)); }
    ~Event() { cudaEventDestroy(event); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
};

// Calls shorter than kBatchBelowMs are timed in batches of back-to-back calls, each run's time being its batch's over
// the batch size. Timed one at a time, a kernel of a few microseconds measures the host's launch path instead: the start
// event fires on an idle device, which then waits for the launch. A batch measures what a loop of calls costs, the
// host's part included where the host is the slower side (METHOD.md: time many small launches together).
constexpr double kBatchBelowMs = 0.1;
constexpr double kBatchTargetMs = 0.5;
constexpr int kMaxBatch = 64;

int batch_size(double single_call_ms) {
    if (single_call_ms >= kBatchBelowMs) return 1;
    const double calls = kBatchTargetMs / std::max(single_call_ms, 1e-3);
    return std::clamp(static_cast<int>(calls), 1, kMaxBatch);
}

double time_batch_ms(cudaStream_t stream, const std::function<void()>& fn, int batch, const Event& start, const Event& stop) {
    SPK_CUDA_CHECK(cudaEventRecord(start.event, stream));
    for (int i = 0; i < batch; ++i) fn();
    SPK_CUDA_CHECK(cudaEventRecord(stop.event, stream));
    SPK_CUDA_CHECK(cudaEventSynchronize(stop.event));
    float ms = 0;
    SPK_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event, stop.event));
    return static_cast<double>(ms) / batch;
}

}  // namespace

std::vector<double> time_device_runs_ms(const Executor& exec, const std::function<void()>& fn, int warmup, int reps) {
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    for (int i = 0; i < warmup; ++i) fn();
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
    const Event start, stop;
    std::vector<double> times{time_batch_ms(stream, fn, 1, start, stop)};
    // Without warm-up the first call pays one-time costs: keep it as it is, a single call.
    const int batch = warmup > 0 ? batch_size(times.front()) : 1;
    if (batch > 1) times.clear();
    while (static_cast<int>(times.size()) < std::max(reps, 1)) times.push_back(time_batch_ms(stream, fn, batch, start, stop));
    return times;
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
