#include "spk/executor.hpp"

#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/cuda_runtime.hpp"
#include "spk/error.hpp"

namespace spk {

std::string to_string(MemorySpace space) {
    return space.is_host() ? std::string("host memory") : "CUDA device " + std::to_string(space.device) + " memory";
}

Executor Executor::reference() { return Executor(Backend::reference, 1, -1, nullptr); }

Executor Executor::cpu(int threads) {
    if (threads < 0) invalid_argument("Executor::cpu: threads must be >= 0 (0 = all), got " + std::to_string(threads));
    return Executor(Backend::cpu, threads == 0 ? omp_get_max_threads() : threads, -1, nullptr);
}

Executor Executor::cuda(int device, void* stream) {
    if (!detail::cuda::built_with_cuda()) unsupported("Executor::cuda: spk was built without CUDA");
    const int count = detail::cuda::device_count();
    if (device < 0 || device >= count)
        throw_error(ErrorKind::Device, "Executor::cuda: device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                                           " CUDA devices visible)");
    return Executor(Backend::cuda, 1, device, stream);
}

std::string Executor::name() const {
    switch (backend_) {
        case Backend::reference:
            return "reference";
        case Backend::cpu:
            return "cpu(" + std::to_string(threads_) + " threads)";
        case Backend::cuda:
            return "cuda(device " + std::to_string(device_) + ")";
    }
    return "?";
}

void* Executor::allocate(std::size_t bytes) const {
    if (bytes == 0) return nullptr;
    if (backend_ == Backend::cuda) return detail::cuda::device_allocate(device_, bytes);
    constexpr std::size_t align = 64;  // a cache line, and enough for any SIMD load
    void* p = std::aligned_alloc(align, (bytes + align - 1) / align * align);
    if (!p) out_of_memory("host allocation of " + std::to_string(bytes) + " bytes failed");
    return p;
}

void Executor::deallocate(void* ptr) const noexcept {
    if (!ptr) return;
    if (backend_ == Backend::cuda)
        detail::cuda::device_free(device_, ptr);
    else
        std::free(ptr);
}

void Executor::synchronize() const {
    if (backend_ == Backend::cuda) detail::cuda::synchronize(device_, stream_);
}

void copy_bytes(void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space, std::size_t bytes) {
    if (bytes == 0) return;
    if (dst_space.is_host() && src_space.is_host()) {
        std::memcpy(dst, src, bytes);
        return;
    }
    const int kind = src_space.is_host() ? 0 : dst_space.is_host() ? 1 : 2;
    detail::cuda::memcpy_bytes(dst, src, bytes, kind);
}

DeviceMemoryUse device_memory_use(int device) {
    const detail::cuda::MemoryUse use = detail::cuda::memory_use(device);
    return {use.arrays + use.pool, use.arrays_peak + use.pool_peak};
}

void reset_device_memory_peak(int device) { detail::cuda::reset_memory_peaks(device); }

}  // namespace spk
