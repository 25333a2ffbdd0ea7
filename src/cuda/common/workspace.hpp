#pragma once
// Workspace<T>: scratch memory for one call on a CUDA executor, taken from the device's
// stream-ordered pool and given back on the executor's stream when it goes out of scope. The
// free is ordered after every kernel queued before it, so a function may return while kernels
// that use its workspaces still run, without a synchronisation. Move-only; plain C++.
#include <cstddef>
#include <utility>

#include "core/cuda_runtime.hpp"
#include "spk/executor.hpp"

namespace spk::detail::cuda {

template <class T>
class Workspace {
public:
    Workspace() = default;
    Workspace(const Executor& exec, std::size_t count) : device_(exec.device()), stream_(exec.stream()), size_(count) {
        if (count) data_ = static_cast<T*>(stream_allocate(device_, stream_, count * sizeof(T)));
    }
    Workspace(Workspace&& other) noexcept { swap(other); }
    Workspace& operator=(Workspace&& other) noexcept {
        Workspace(std::move(other)).swap(*this);
        return *this;
    }
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    ~Workspace() { stream_free(device_, stream_, data_); }

    T* data() const { return data_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

private:
    void swap(Workspace& other) noexcept {
        std::swap(device_, other.device_);
        std::swap(stream_, other.stream_);
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
    }
    int device_ = 0;
    void* stream_ = nullptr;
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace spk::detail::cuda
