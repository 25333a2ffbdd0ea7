#pragma once
// PinnedSlot: a few hundred bytes of page-locked host memory and an event, for counters that a
// plan copies from the device without waiting and reads on first use. Slots come from a
// process-wide free list per device (cudaHostAlloc takes tens of microseconds: more than a whole
// plan), and go back to it when their holder is destroyed, once the last copy into them landed.
// Move-only; CUDA code only.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace spk::detail::cuda {

class PinnedSlot {
public:
    static constexpr std::size_t capacity = 512;  // bytes

    PinnedSlot() = default;
    explicit PinnedSlot(int device);  // takes a free slot of `device`, or makes one
    PinnedSlot(PinnedSlot&& other) noexcept { swap(other); }
    PinnedSlot& operator=(PinnedSlot&& other) noexcept {
        PinnedSlot(std::move(other)).swap(*this);
        return *this;
    }
    PinnedSlot(const PinnedSlot&) = delete;
    PinnedSlot& operator=(const PinnedSlot&) = delete;
    ~PinnedSlot();

    void* data() const { return host_; }
    // Copies `bytes` of device memory into the slot on `stream`, and marks the copy's end.
    void copy_from_device(const void* src, std::size_t bytes, cudaStream_t stream);
    // Returns once the last copy landed (at once when it has).
    void wait() const;

private:
    void swap(PinnedSlot& other) noexcept {
        std::swap(device_, other.device_);
        std::swap(host_, other.host_);
        std::swap(copied_, other.copied_);
    }
    int device_ = 0;
    void* host_ = nullptr;
    cudaEvent_t copied_ = nullptr;
};

}  // namespace spk::detail::cuda
