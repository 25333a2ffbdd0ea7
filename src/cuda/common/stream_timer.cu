// CUDA-event timing of a call on a stream: the bench's figures and Tune::measure's choice.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "core/cuda_runtime.hpp"
#include "cuda/common/check.cuh"

namespace spk::detail::cuda {

namespace {

// A CUDA event destroyed with its scope, also when the timed call throws (out of memory, say).
struct Event {
    cudaEvent_t event = nullptr;
    Event() { SPK_CUDA_CHECK(cudaEventCreate(&event)); }
    ~Event() { cudaEventDestroy(event); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
};

// Calls shorter than batch_below_ms are timed in batches of back-to-back calls, each run's time
// being its batch's over the batch size. Timed one at a time, a kernel of a few microseconds
// measures the host's launch path instead: the start event fires on an idle device, which then
// waits for the launch. A batch measures what a loop of calls costs, the host's part included
// where the host is the slower side. The batch's first call still starts on an idle device: a
// batch of about 2 ms (up to 256 calls) makes that start a small part of it.
constexpr double batch_below_ms = 0.1;
constexpr double batch_target_ms = 2.0;
constexpr int max_batch = 256;

int batch_size(double single_call_ms) {
    if (single_call_ms >= batch_below_ms) return 1;
    const double calls = batch_target_ms / std::max(single_call_ms, 1e-3);
    return std::clamp(static_cast<int>(calls), 1, max_batch);
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

// A batch of calls captured once into a CUDA graph, replayed per run: the device's time for the
// calls, kernel after kernel, without the host's launch path (one graph launch a batch). Owns the
// graph and its executable form.
class CapturedBatch {
public:
    CapturedBatch(const CapturedBatch&) = delete;
    CapturedBatch& operator=(const CapturedBatch&) = delete;
    ~CapturedBatch() {
        if (exec_) cudaGraphExecDestroy(exec_);
        if (graph_) cudaGraphDestroy(graph_);
    }

    // The batch captured and uploaded, or null with `why` set where the calls cannot be captured
    // (a call that synchronises or copies to the host, say): they are then timed as a stream batch.
    static std::unique_ptr<CapturedBatch> capture(cudaStream_t stream, const std::function<void()>& fn, int batch, std::string& why) {
        std::unique_ptr<CapturedBatch> b(new CapturedBatch);
        if (const cudaError_t began = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal); began != cudaSuccess) {
            why = std::string(cudaGetErrorString(began)) + (stream ? "" : ": the legacy default stream cannot be captured");
            (void)cudaGetLastError();
            return nullptr;
        }
        try {
            for (int i = 0; i < batch; ++i) fn();
        } catch (const std::exception& e) {
            why = e.what();
        }
        const cudaError_t ended = cudaStreamEndCapture(stream, &b->graph_);
        if (why.empty() && ended != cudaSuccess) why = cudaGetErrorString(ended);
        if (why.empty()) {
            const cudaError_t made = cudaGraphInstantiate(&b->exec_, b->graph_, 0);
            if (made != cudaSuccess) why = cudaGetErrorString(made);
        }
        if (!why.empty()) {
            (void)cudaGetLastError();  // a failed capture leaves its error behind: not the next call's
            return nullptr;
        }
        SPK_CUDA_CHECK(cudaGraphUpload(b->exec_, stream));
        return b;
    }

    double time_ms(cudaStream_t stream, int batch, const Event& start, const Event& stop) const {
        SPK_CUDA_CHECK(cudaEventRecord(start.event, stream));
        SPK_CUDA_CHECK(cudaGraphLaunch(exec_, stream));
        SPK_CUDA_CHECK(cudaEventRecord(stop.event, stream));
        SPK_CUDA_CHECK(cudaEventSynchronize(stop.event));
        float ms = 0;
        SPK_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event, stop.event));
        return static_cast<double>(ms) / batch;
    }

private:
    CapturedBatch() = default;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

std::vector<double> time_calls_ms(int device, void* stream_ptr, const std::function<void()>& fn, int warmup, int reps, CallTiming timing) {
    SPK_CUDA_CHECK(cudaSetDevice(device));
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    for (int i = 0; i < warmup; ++i) fn();
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
    const Event start, stop;
    std::vector<double> times{time_batch_ms(stream, fn, 1, start, stop)};
    // Without warm-up the first call pays one-time costs: keep it as it is, a single call.
    const int batch = warmup > 0 ? batch_size(times.front()) : 1;
    if (batch > 1) times.clear();
    if (batch > 1 && timing == CallTiming::graph_replay) {
        std::string why;
        if (const auto graph = CapturedBatch::capture(stream, fn, batch, why)) {
            (void)graph->time_ms(stream, batch, start, stop);  // the first replay pays the graph's one-time setup
            while (static_cast<int>(times.size()) < std::max(reps, 1)) times.push_back(graph->time_ms(stream, batch, start, stop));
            return times;
        }
        std::fprintf(stderr, "spk: calls not captured in a CUDA graph (%s); timed as stream batches\n", why.c_str());
    }
    while (static_cast<int>(times.size()) < std::max(reps, 1)) times.push_back(time_batch_ms(stream, fn, batch, start, stop));
    return times;
}

}  // namespace spk::detail::cuda
