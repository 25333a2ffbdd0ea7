#include "cuda/common/pinned_slot.hpp"

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/common/check.cuh"

namespace spk::detail::cuda {

namespace {

struct FreeSlot {
    void* host;
    cudaEvent_t copied;
};

// Free slots by device. Never destroyed: freeing page-locked memory after the runtime shut down
// at exit fails, and the slots a process made are few (one per plan alive at once).
struct FreeSlots {
    std::mutex mutex;
    std::unordered_map<int, std::vector<FreeSlot>> by_device;
};

FreeSlots& free_slots() {
    static FreeSlots* slots = new FreeSlots;
    return *slots;
}

}  // namespace

PinnedSlot::PinnedSlot(int device) : device_(device) {
    {
        FreeSlots& slots = free_slots();
        const std::lock_guard<std::mutex> lock(slots.mutex);
        std::vector<FreeSlot>& mine = slots.by_device[device];
        if (!mine.empty()) {
            host_ = mine.back().host;
            copied_ = mine.back().copied;
            mine.pop_back();
            return;
        }
    }
    SPK_CUDA_CHECK(cudaSetDevice(device));
    SPK_CUDA_CHECK(cudaHostAlloc(&host_, capacity, cudaHostAllocPortable));
    const cudaError_t err = cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming);
    if (err != cudaSuccess) {
        (void)cudaFreeHost(host_);
        host_ = nullptr;
        throw_cuda_error(err, "cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming)", __FILE__, __LINE__);
    }
}

PinnedSlot::~PinnedSlot() {
    if (!host_) return;
    // A copy still in flight would land in the slot's next holder's counters: wait for it. A
    // failed wait (a broken context) keeps the slot out of the list.
    if (cudaEventSynchronize(copied_) != cudaSuccess) return;
    FreeSlots& slots = free_slots();
    const std::lock_guard<std::mutex> lock(slots.mutex);
    slots.by_device[device_].push_back(FreeSlot{host_, copied_});
}

void PinnedSlot::copy_from_device(const void* src, std::size_t bytes, cudaStream_t stream) {
    if (bytes > capacity)
        invalid_argument("PinnedSlot: " + std::to_string(bytes) + " bytes do not fit in " + std::to_string(capacity));
    SPK_CUDA_CHECK(cudaMemcpyAsync(host_, src, bytes, cudaMemcpyDeviceToHost, stream));
    SPK_CUDA_CHECK(cudaEventRecord(copied_, stream));
}

void PinnedSlot::wait() const { SPK_CUDA_CHECK(cudaEventSynchronize(copied_)); }

}  // namespace spk::detail::cuda
