#pragma once
// One check for every CUDA runtime call: failures become spk::Error (Device, or OutOfMemory
// for allocation failures) carrying the call, file and line.
#include <cuda_runtime.h>

#include <string>

#include "spk/error.hpp"

namespace spk::detail::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
    const std::string msg = std::string(call) + " failed: " + cudaGetErrorString(err) + " (" + file + ":" + std::to_string(line) + ")";
    if (err == cudaErrorMemoryAllocation) out_of_memory(msg);
    throw_error(ErrorKind::Device, msg);
}

}  // namespace spk::detail::cuda

#define SPK_CUDA_CHECK(call)                                                                                     \
    do {                                                                                                         \
        const cudaError_t spk_err_ = (call);                                                                     \
        if (spk_err_ != cudaSuccess) ::spk::detail::cuda::throw_cuda_error(spk_err_, #call, __FILE__, __LINE__); \
    } while (0)

// After a kernel launch: launch-configuration errors surface here.
#define SPK_CUDA_CHECK_LAUNCH() SPK_CUDA_CHECK(cudaGetLastError())
