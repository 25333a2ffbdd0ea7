#include "cuda/common/count_slot.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/cuda_runtime.hpp"
#include "cuda/common/check.cuh"

namespace spk::detail::cuda {

namespace {

struct FreeSlot {
    unsigned long long *counters, *host, *device_view;
    cudaEvent_t done;
};

// Free slots by device. Never destroyed: freeing them after the runtime shut down at exit fails,
// and a process makes few (one per plan alive at once).
struct FreeSlots {
    std::mutex mutex;
    std::unordered_map<int, std::vector<FreeSlot>> by_device;
};

FreeSlots& free_slots() {
    static FreeSlots* slots = new FreeSlots;
    return *slots;
}

constexpr std::size_t slot_bytes = sizeof(unsigned long long) * CountSlot::capacity;

}  // namespace

CountSlot::CountSlot(int device, cudaStream_t stream) : device_(device) {
    {
        FreeSlots& slots = free_slots();
        const std::lock_guard<std::mutex> lock(slots.mutex);
        std::vector<FreeSlot>& mine = slots.by_device[device];
        if (!mine.empty()) {
            const FreeSlot s = mine.back();
            mine.pop_back();
            counters_ = s.counters;
            host_ = s.host;
            device_view_ = s.device_view;
            done_ = s.done;
            return;
        }
    }
    // A new slot, its counters zeroed on `stream` ahead of the kernel that will use them. The
    // zeroing is the slot's first use: recorded, so that a holder that never launches (an empty
    // matrix, an error before the launch) still waits for it before the slot goes back to the list.
    try {
        const DeviceScope scope(device);
        SPK_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
        SPK_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&counters_), slot_bytes));
        SPK_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), slot_bytes, cudaHostAllocPortable | cudaHostAllocMapped));
        SPK_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_view_), host_, 0));
        SPK_CUDA_CHECK(cudaMemsetAsync(counters_, 0, slot_bytes, stream));
        record(stream);
    } catch (...) {
        if (counters_) (void)cudaFree(counters_);
        if (host_) (void)cudaFreeHost(host_);
        if (done_) (void)cudaEventDestroy(done_);
        counters_ = nullptr;
        host_ = nullptr;
        done_ = nullptr;
        throw;
    }
}

CountSlot::~CountSlot() {
    if (!counters_) return;
    // A kernel still running would count into the next holder's counters: wait for it. A failed
    // wait (a broken context) keeps the slot out of the list.
    if (cudaEventSynchronize(done_) != cudaSuccess) return;
    FreeSlots& slots = free_slots();
    const std::lock_guard<std::mutex> lock(slots.mutex);
    slots.by_device[device_].push_back(FreeSlot{counters_, host_, device_view_, done_});
}

void CountSlot::record(cudaStream_t stream) { SPK_CUDA_CHECK(cudaEventRecord(done_, stream)); }

const unsigned long long* CountSlot::wait() const {
    SPK_CUDA_CHECK(cudaEventSynchronize(done_));
    return host_;
}

void CountSlot::clear() {
    SPK_CUDA_CHECK(cudaEventSynchronize(done_));  // no kernel of a previous use writes them any more
    std::fill(host_, host_ + capacity, 0ull);
}

}  // namespace spk::detail::cuda
