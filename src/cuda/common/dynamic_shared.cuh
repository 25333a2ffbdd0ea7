#pragma once
// Kernels that take more than 48 KB of dynamic shared memory must be allowed to first
// (cudaFuncAttributeMaxDynamicSharedMemorySize). Setting the limit before each launch to that
// launch's size races between host threads launching one kernel with different sizes: one
// thread's smaller limit can land between another's setting and its launch, which then fails.
// This sets it once per kernel and device, to the most the device allows a block, so that every
// launch within it works whatever the order.
namespace spk::detail::cuda {

// For the current device (the one the kernel will be launched on).
void allow_dynamic_shared_memory(const void* kernel);

template <class... Args>
void allow_dynamic_shared_memory(void (*kernel)(Args...)) {
    allow_dynamic_shared_memory(reinterpret_cast<const void*>(kernel));
}

}  // namespace spk::detail::cuda
