#pragma once
// Where work runs. reference: the serial oracle kernels; cpu: the OpenMP backend;
// cuda: a device and a stream. The executor also owns allocation for its memory space.
#include <cstddef>
#include <string>

namespace spk {

enum class Backend { reference, cpu, cuda };

struct MemorySpace {
    enum class Kind { host, device } kind = Kind::host;
    int device = -1;
    static MemorySpace host() { return {}; }
    static MemorySpace cuda(int dev) { return {Kind::device, dev}; }
    bool is_host() const { return kind == Kind::host; }
    friend bool operator==(const MemorySpace&, const MemorySpace&) = default;
};
std::string to_string(MemorySpace space);

class Executor {
public:
    static Executor reference();
    // threads = 0: every hardware thread OpenMP offers.
    static Executor cpu(int threads = 0);
    // stream: a cudaStream_t passed as void* so that no CUDA header leaks into the API.
    static Executor cuda(int device = 0, void* stream = nullptr);

    Backend backend() const { return backend_; }
    bool is_host() const { return backend_ != Backend::cuda; }
    int threads() const { return threads_; }
    int device() const { return device_; }
    void* stream() const { return stream_; }
    MemorySpace memory_space() const { return is_host() ? MemorySpace::host() : MemorySpace::cuda(device_); }
    std::string name() const;

    // Raw allocation in this executor's memory space; throws OutOfMemory on failure.
    void* allocate(std::size_t bytes) const;
    void deallocate(void* ptr) const noexcept;
    // Wait until work queued on this executor has finished (no-op on the host).
    void synchronize() const;

private:
    Executor(Backend b, int threads, int device, void* stream) : backend_(b), threads_(threads), device_(device), stream_(stream) {}
    Backend backend_;
    int threads_;
    int device_;
    void* stream_;
};

// Copies bytes between any two memory spaces (host or CUDA device).
void copy_bytes(void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space, std::size_t bytes);

// Device memory spk holds on a CUDA device (its arrays and its stream-ordered workspaces), for a
// caller's own accounting (a framework's allocator does not see it): the bytes now, and the most
// since reset_device_memory_peak. The peak adds the arrays' and the workspaces' high-water marks,
// so it may overstate, never understate. Unsupported without CUDA.
struct DeviceMemoryUse {
    std::size_t current = 0;
    std::size_t peak = 0;
};
DeviceMemoryUse device_memory_use(int device);
void reset_device_memory_peak(int device);

}  // namespace spk
