#pragma once
// Shared by the per-operation CUDA stubs in this folder (built only without CUDA): the error an
// operation on a CUDA executor throws there.
#include <string>

#include "core/cuda_runtime.hpp"
#include "spk/error.hpp"

namespace spk::detail::cuda {

[[noreturn]] inline void missing_kernel(const char* op) {
    unsupported(std::string(op) + " on CUDA: spk was built without CUDA");
}

}  // namespace spk::detail::cuda
