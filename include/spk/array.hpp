#pragma once
// Array<T>: an owning, move-only buffer in one executor's memory space.
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "spk/error.hpp"
#include "spk/executor.hpp"

namespace spk {

template <class T>
class Array {
public:
    Array() : exec_(Executor::cpu()) {}
    Array(const Executor& exec, std::size_t size) : exec_(exec), size_(size) {
        if (size_ > std::numeric_limits<std::size_t>::max() / sizeof(T))
            out_of_memory("Array of " + std::to_string(size_) + " elements: the byte count overflows");
        if (size_) data_ = static_cast<T*>(exec_.allocate(size_ * sizeof(T)));
    }
    // Copy of host data into exec's memory space.
    Array(const Executor& exec, std::span<const T> host) : Array(exec, host.size()) {
        if (size_) copy_bytes(data_, space(), host.data(), MemorySpace::host(), size_ * sizeof(T));
    }
    Array(const Executor& exec, const std::vector<T>& host) : Array(exec, std::span<const T>(host)) {}
    Array(Array&& o) noexcept : exec_(o.exec_), data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
    Array& operator=(Array&& o) noexcept {
        if (this != &o) {
            release();
            exec_ = o.exec_;
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    ~Array() { release(); }

    // A copy of this array in exec's memory space.
    Array to(const Executor& exec) const {
        Array out(exec, size_);
        if (size_) copy_bytes(out.data_, out.space(), data_, space(), size_ * sizeof(T));
        return out;
    }
    std::vector<T> to_vector() const {
        std::vector<T> v(size_);
        if (size_) copy_bytes(v.data(), MemorySpace::host(), data_, space(), size_ * sizeof(T));
        return v;
    }

    T* data() noexcept { return data_; }
    const T* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    MemorySpace space() const { return exec_.memory_space(); }
    const Executor& executor() const { return exec_; }
    // Element access: host arrays only.
    T& operator[](std::size_t i) noexcept { return data_[i]; }
    const T& operator[](std::size_t i) const noexcept { return data_[i]; }
    std::span<T> span() noexcept { return {data_, size_}; }
    std::span<const T> span() const noexcept { return {data_, size_}; }

private:
    void release() noexcept {
        if (data_) exec_.deallocate(data_);
        data_ = nullptr;
        size_ = 0;
    }
    Executor exec_;
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace spk
