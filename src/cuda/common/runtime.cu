#include "core/cuda_runtime.hpp"
#include "cuda/common/check.cuh"

namespace spk::detail::cuda {

bool built_with_cuda() noexcept { return true; }

int device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();  // no driver or no device: not an error here, clear it
        return 0;
    }
    return n;
}

std::string device_name(int device) {
    cudaDeviceProp prop{};
    SPK_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return prop.name;
}

void* device_allocate(int device, std::size_t bytes) {
    SPK_CUDA_CHECK(cudaSetDevice(device));
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        out_of_memory("cudaMalloc of " + std::to_string(bytes) + " bytes on device " + std::to_string(device) +
                      " failed: " + cudaGetErrorString(err));
    }
    return p;
}

void device_free(int device, void* ptr) noexcept {
    if (cudaSetDevice(device) == cudaSuccess) (void)cudaFree(ptr);
}

void memcpy_bytes(void* dst, const void* src, std::size_t bytes, int kind) {
    const cudaMemcpyKind k = kind == 0 ? cudaMemcpyHostToDevice : kind == 1 ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
    SPK_CUDA_CHECK(cudaMemcpy(dst, src, bytes, k));
}

void synchronize(int device, void* stream) {
    SPK_CUDA_CHECK(cudaSetDevice(device));
    SPK_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

}  // namespace spk::detail::cuda
