#pragma once
// Copies from global to shared memory that complete in the background (cp.async, sm_80 and
// later): a thread requests data it needs later without holding registers for it meanwhile.
// A thread waits only for its own copies (async_copy_wait), so a lane that reads back exactly
// what it copied needs no barrier.
#include <cuda_runtime.h>

namespace spk::detail::cuda {

// Request BYTES (4, 8 or 16; both addresses aligned to it) from src into dst.
template <int BYTES>
__device__ __forceinline__ void async_copy(void* dst_shared, const void* src_global) {
    static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(dst_shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src_global), "n"(BYTES) : "memory");
}

// Closes the group of copies requested since the last commit.
__device__ __forceinline__ void async_copy_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void async_copy_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

}  // namespace spk::detail::cuda
