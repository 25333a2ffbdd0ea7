#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "core/cuda_runtime.hpp"
#include "cuda/common/check.cuh"

namespace spk::detail::cuda {

namespace {

constexpr int max_devices = 64;

// Per device, filled on first use: its properties and a pool that keeps what it frees.
struct DeviceState {
    std::once_flag once;
    DeviceProperties properties;
    cudaMemPool_t pool = nullptr;
    // The arrays' sizes (cudaFree does not tell), for memory_use.
    std::mutex arrays_mutex;
    std::unordered_map<void*, std::size_t> array_sizes;
    std::size_t array_bytes = 0, array_peak = 0;
};

std::array<DeviceState, max_devices> states;

// The devices a process sees are fixed once the runtime starts, so they are counted once:
// state_of is on every call's path (device_properties), and cudaGetDeviceCount is a runtime call.
int counted_devices() {
    static const int count = device_count();
    return count;
}

// DeviceScope for the frees, which must not throw: errors leave the current device as it is.
class QuietDeviceScope {
public:
    explicit QuietDeviceScope(int device) noexcept {
        int current = 0;
        if (cudaGetDevice(&current) == cudaSuccess && current != device && cudaSetDevice(device) == cudaSuccess) previous_ = current;
    }
    ~QuietDeviceScope() {
        if (previous_ >= 0) (void)cudaSetDevice(previous_);
    }
    QuietDeviceScope(const QuietDeviceScope&) = delete;
    QuietDeviceScope& operator=(const QuietDeviceScope&) = delete;

private:
    int previous_ = -1;
};

DeviceState& state_of(int device) {
    if (device < 0 || device >= max_devices || device >= counted_devices())
        invalid_argument("CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(counted_devices()) +
                         " devices)");
    DeviceState& s = states[static_cast<std::size_t>(device)];
    std::call_once(s.once, [&] {
        cudaDeviceProp prop{};
        SPK_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        s.properties = DeviceProperties{prop.name,
                                        prop.multiProcessorCount,
                                        prop.maxThreadsPerMultiProcessor,
                                        static_cast<std::size_t>(prop.l2CacheSize),
                                        prop.sharedMemPerMultiprocessor,
                                        prop.sharedMemPerBlockOptin,
                                        prop.totalGlobalMem};
        SPK_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&s.pool, device));
        // By default a pool returns its memory to the device at every synchronisation; keeping it
        // is what makes the next workspace free of cost.
        std::uint64_t keep = UINT64_MAX;
        SPK_CUDA_CHECK(cudaMemPoolSetAttribute(s.pool, cudaMemPoolAttrReleaseThreshold, &keep));
    });
    return s;
}

[[noreturn]] void allocation_failed(const char* what, std::size_t bytes, int device, cudaError_t err) {
    (void)cudaGetLastError();
    out_of_memory(std::string(what) + " of " + std::to_string(bytes) + " bytes on device " + std::to_string(device) +
                  " failed: " + cudaGetErrorString(err));
}

}  // namespace

bool built_with_cuda() noexcept { return true; }

int device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();  // no driver or no device: not an error here, clear it
        return 0;
    }
    return n;
}

DeviceScope::DeviceScope(int device) {
    int current = 0;
    SPK_CUDA_CHECK(cudaGetDevice(&current));
    if (current == device) return;
    SPK_CUDA_CHECK(cudaSetDevice(device));
    previous_ = current;
}

DeviceScope::~DeviceScope() {
    if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

const DeviceProperties& device_properties(int device) { return state_of(device).properties; }

std::string device_name(int device) { return device_properties(device).name; }

void* device_allocate(int device, std::size_t bytes) {
    DeviceState& s = state_of(device);
    const DeviceScope scope(device);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
        // Memory the workspace pool keeps is free to give back: return it and try once more.
        (void)cudaGetLastError();
        SPK_CUDA_CHECK(cudaDeviceSynchronize());
        SPK_CUDA_CHECK(cudaMemPoolTrimTo(s.pool, 0));
        err = cudaMalloc(&p, bytes);
    }
    if (err != cudaSuccess) allocation_failed("cudaMalloc", bytes, device, err);
    const std::lock_guard lock(s.arrays_mutex);
    s.array_sizes[p] = bytes;
    s.array_bytes += bytes;
    s.array_peak = std::max(s.array_peak, s.array_bytes);
    return p;
}

void device_free(int device, void* ptr) noexcept {
    if (!ptr) return;
    {
        const QuietDeviceScope scope(device);
        if (cudaFree(ptr) != cudaSuccess) (void)cudaGetLastError();
    }
    if (device < 0 || device >= max_devices) return;
    DeviceState& s = states[static_cast<std::size_t>(device)];  // allocated here, so the state exists
    const std::lock_guard lock(s.arrays_mutex);
    if (const auto it = s.array_sizes.find(ptr); it != s.array_sizes.end()) {
        s.array_bytes -= it->second;
        s.array_sizes.erase(it);
    }
}

MemoryUse memory_use(int device) {
    DeviceState& s = state_of(device);
    std::uint64_t pool = 0, pool_peak = 0;
    SPK_CUDA_CHECK(cudaMemPoolGetAttribute(s.pool, cudaMemPoolAttrUsedMemCurrent, &pool));
    SPK_CUDA_CHECK(cudaMemPoolGetAttribute(s.pool, cudaMemPoolAttrUsedMemHigh, &pool_peak));
    const std::lock_guard lock(s.arrays_mutex);
    return {s.array_bytes, s.array_peak, static_cast<std::size_t>(pool), static_cast<std::size_t>(pool_peak)};
}

void reset_memory_peaks(int device) {
    DeviceState& s = state_of(device);
    std::uint64_t zero = 0;  // the only value allowed: the high-water mark restarts from the current use
    SPK_CUDA_CHECK(cudaMemPoolSetAttribute(s.pool, cudaMemPoolAttrUsedMemHigh, &zero));
    const std::lock_guard lock(s.arrays_mutex);
    s.array_peak = s.array_bytes;
}

void* stream_allocate(int device, void* stream, std::size_t bytes) {
    DeviceState& s = state_of(device);
    const DeviceScope scope(device);
    void* p = nullptr;
    const cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, s.pool, static_cast<cudaStream_t>(stream));
    if (err != cudaSuccess) allocation_failed("cudaMallocFromPoolAsync", bytes, device, err);
    return p;
}

void stream_free(int device, void* stream, void* ptr) noexcept {
    // A failed free (a stream destroyed before the memory's owner) must not stay the runtime's last
    // error, which the next launch check would report as its own.
    if (!ptr) return;
    const QuietDeviceScope scope(device);
    if (cudaFreeAsync(ptr, static_cast<cudaStream_t>(stream)) != cudaSuccess) (void)cudaGetLastError();
}

void memcpy_bytes(void* dst, const void* src, std::size_t bytes, int kind) {
    const cudaMemcpyKind k = kind == 0 ? cudaMemcpyHostToDevice : kind == 1 ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
    SPK_CUDA_CHECK(cudaMemcpy(dst, src, bytes, k));
}

void memcpy_bytes_async(void* dst, const void* src, std::size_t bytes, int kind, int device, void* stream) {
    const cudaMemcpyKind k = kind == 0 ? cudaMemcpyHostToDevice : kind == 1 ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
    const DeviceScope scope(device);
    SPK_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, k, static_cast<cudaStream_t>(stream)));
}

bool host_register(void* ptr, std::size_t bytes) noexcept {
    if (ptr == nullptr || bytes == 0) return false;
    if (cudaHostRegister(ptr, bytes, cudaHostRegisterDefault) == cudaSuccess) return true;
    (void)cudaGetLastError();  // a refusal (no permission, too much locked memory) is not sticky: clear it
    return false;
}

void host_unregister(void* ptr) noexcept {
    if (cudaHostUnregister(ptr) != cudaSuccess) (void)cudaGetLastError();
}

void synchronize(int device, void* stream) {
    const DeviceScope scope(device);
    SPK_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

}  // namespace spk::detail::cuda
