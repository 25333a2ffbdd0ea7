#pragma once
// Shared by the per-operation CUDA stubs in this folder: the error a missing kernel throws.
#include <string>

#include "core/cuda_runtime.hpp"
#include "spk/error.hpp"

namespace spk::detail::cuda {

[[noreturn]] inline void missing_kernel(const char* op) {
    unsupported(std::string(op) +
                " on CUDA: " + (built_with_cuda() ? "not implemented on the CUDA backend yet" : "spk was built without CUDA"));
}

}  // namespace spk::detail::cuda
