#pragma once
// The few CUDA runtime services the core needs, behind plain C++ declarations.
// Implemented in src/cuda/common/runtime.cu, or by src/cuda_stub/ when CUDA is not built
// (the stub throws Unsupported("built without CUDA")).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace spk::detail::cuda {

// What kernels size themselves by, read from the driver once per device.
struct DeviceProperties {
    std::string name;                         // e.g. "NVIDIA H200"
    int sm_count = 0;                         // streaming multiprocessors
    int max_threads_per_sm = 0;
    std::size_t l2_bytes = 0;
    std::size_t shared_per_sm = 0;            // shared memory of one multiprocessor
    std::size_t shared_per_block_optin = 0;   // the most one block may ask for (cudaFuncSetAttribute)
    std::size_t global_bytes = 0;
};

bool built_with_cuda() noexcept;

// The executor's device made current for one operation, the caller's restored afterwards:
// kernels, streams and events belong to the current device, and a caller working on another
// (a framework's thread, another executor) must find its own still current. One cudaGetDevice
// where the two agree.
class DeviceScope {
public:
    explicit DeviceScope(int device);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int previous_ = -1;  // the caller's device where it differs, else -1
};
int device_count();                                    // 0 when no device or no driver
const DeviceProperties& device_properties(int device);
std::string device_name(int device);                   // device_properties(device).name
void* device_allocate(int device, std::size_t bytes);  // OutOfMemory on failure
void device_free(int device, void* ptr) noexcept;
// Stream-ordered allocation from the device's memory pool (cudaMallocAsync), which keeps freed
// memory for the next request: workspaces cost no cudaMalloc and, freed on the stream that used
// them, need no synchronisation. OutOfMemory on failure.
void* stream_allocate(int device, void* stream, std::size_t bytes);
void stream_free(int device, void* stream, void* ptr) noexcept;
// kind: 0 host->device, 1 device->host, 2 device->device
void memcpy_bytes(void* dst, const void* src, std::size_t bytes, int kind);
// The same on `stream`, returning before the copy completes.
void memcpy_bytes_async(void* dst, const void* src, std::size_t bytes, int kind, int device, void* stream);
// Page-locks host memory that malloc gave (cudaHostRegister), so that copies to and from it run at
// full bandwidth and asynchronously; false (nothing registered) when the driver refuses.
bool host_register(void* ptr, std::size_t bytes) noexcept;
void host_unregister(void* ptr) noexcept;
void synchronize(int device, void* stream);
// Milliseconds per call of each of `reps` runs of fn on `stream` after `warmup` calls, timed with
// CUDA events (at least one run). After a warm-up, calls under 0.1 ms run in batches of
// back-to-back calls (a run = one batch, its time over its size), so that a kernel of a few
// microseconds is not measured as its launch's latency. A batch measures what a loop of calls
// costs, the host's launch path included where it is the slower side; graph_replay captures the
// batch in a CUDA graph once and replays it, which leaves the device's time alone (calls that
// cannot be captured fall back to stream batches, with a line on stderr).
enum class CallTiming { stream_batches, graph_replay };
std::vector<double> time_calls_ms(int device, void* stream, const std::function<void()>& fn, int warmup, int reps,
                                  CallTiming timing = CallTiming::stream_batches);
// What spk holds on the device: cudaMalloc'd arrays and the workspace pool's use, now and at peak.
struct MemoryUse {
    std::size_t arrays = 0, arrays_peak = 0, pool = 0, pool_peak = 0;
};
MemoryUse memory_use(int device);
void reset_memory_peaks(int device);

}  // namespace spk::detail::cuda
