#pragma once
// CountSlot: counters a kernel fills on the device and hands to the host without a copy or a
// memset queued for them. The device counters are zero whenever the slot is free: the kernel's
// last block moves them into page-locked host memory that the device writes directly, leaving
// zeros behind. An event recorded after the kernel tells the host when they have landed. Slots
// come from a process-wide free list per device (cudaHostAlloc alone takes longer than a whole
// SpMM plan), and go back to it when their holder is destroyed, once the last kernel that used
// them has finished. Move-only; CUDA code only.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace spk::detail::cuda {

class CountSlot {
public:
    static constexpr int capacity = 64;  // counters

    CountSlot() = default;
    // A free slot of `device`, or a new one whose counters are zeroed on `stream`.
    CountSlot(int device, cudaStream_t stream);
    CountSlot(CountSlot&& other) noexcept { swap(other); }
    CountSlot& operator=(CountSlot&& other) noexcept {
        CountSlot(std::move(other)).swap(*this);
        return *this;
    }
    CountSlot(const CountSlot&) = delete;
    CountSlot& operator=(const CountSlot&) = delete;
    ~CountSlot();

    // For the kernel: counters that start at zero (the kernel leaves them at zero), and where its
    // last block writes their totals.
    unsigned long long* device_counters() const { return counters_; }
    unsigned long long* host_counts_for_device() const { return device_view_; }
    // After the kernel is queued on `stream`: what wait() waits for.
    void record(cudaStream_t stream);
    // The totals, once the recorded kernel has finished (at once when it has).
    const unsigned long long* wait() const;
    // Without a kernel (nothing to count): zero totals.
    void clear();

private:
    void swap(CountSlot& other) noexcept {
        std::swap(device_, other.device_);
        std::swap(counters_, other.counters_);
        std::swap(host_, other.host_);
        std::swap(device_view_, other.device_view_);
        std::swap(done_, other.done_);
    }
    int device_ = 0;
    unsigned long long* counters_ = nullptr;     // device memory
    unsigned long long* host_ = nullptr;         // page-locked, mapped
    unsigned long long* device_view_ = nullptr;  // host_ as the device addresses it
    cudaEvent_t done_ = nullptr;
};

}  // namespace spk::detail::cuda
