#pragma once
// The few CUDA runtime services the core needs, behind plain C++ declarations.
// Implemented in src/cuda/common/runtime.cu, or by src/cuda_stub/ when CUDA is not built
// (the stub throws Unsupported("built without CUDA")).
#include <cstddef>
#include <string>

namespace spk::detail::cuda {

bool built_with_cuda() noexcept;
int device_count();                                    // 0 when no device or no driver
std::string device_name(int device);                   // e.g. "NVIDIA H200"
void* device_allocate(int device, std::size_t bytes);  // OutOfMemory on failure
void device_free(int device, void* ptr) noexcept;
// kind: 0 host->device, 1 device->host, 2 device->device
void memcpy_bytes(void* dst, const void* src, std::size_t bytes, int kind);
void synchronize(int device, void* stream);

}  // namespace spk::detail::cuda
