#pragma once
// From Python arrays (anything nanobind takes as an ndarray: NumPy, CuPy, PyTorch, JAX, DLPack)
// to spk views without copies, and from spk containers back to arrays. Every check names the
// argument and raises the exception the Python package documents: TypeError for a wrong dtype,
// ValueError for a wrong shape, layout or device.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <optional>
#include <spk/spk.hpp>
#include <string>
#include <string_view>

namespace spk::python {

namespace nb = nanobind;

using InArray = nb::ndarray<nb::ro>;  // an input, read only
using OutArray = nb::ndarray<>;       // an output the caller allocated
using MaybeIn = std::optional<InArray>;
using MaybeOut = std::optional<OutArray>;

enum class Dtype { f16, bf16, f32, f64, i32, i64, other };

Dtype dtype_of(nb::dlpack::dtype t);
std::string dtype_name(nb::dlpack::dtype t);

template <class T>
constexpr Dtype dtype_id() {
    if constexpr (std::is_same_v<T, f16>)
        return Dtype::f16;
    else if constexpr (std::is_same_v<T, bf16>)
        return Dtype::bf16;
    else if constexpr (std::is_same_v<T, float>)
        return Dtype::f32;
    else if constexpr (std::is_same_v<T, double>)
        return Dtype::f64;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return Dtype::i32;
    else
        return Dtype::i64;
}
template <class T>
nb::dlpack::dtype dlpack_dtype() {
    if constexpr (std::is_same_v<T, f16>)
        return {static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
    else if constexpr (std::is_same_v<T, bf16>)
        return {static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat), 16, 1};
    else
        return nb::dtype<T>();
}

// Host for CPU (and CUDA-pinned host) memory, cuda(id) for device memory; ValueError otherwise.
template <class A>
MemorySpace space_of(const A& a, std::string_view name);

// The memory space every array of one call must share ("mixed devices" is a ValueError).
class Placement {
public:
    template <class A>
    void add(const A& a, std::string_view name) {
        if (a.size() == 0) return;  // empty arrays carry no data and may come from anywhere
        const MemorySpace s = space_of(a, name);
        if (!first_.empty() && s != space_)
            throw nb::value_error((std::string(name) + ": lives in " + to_string(s) + " but " + first_ + " lives in " + to_string(space_) +
                                   " (mixed devices)")
                                      .c_str());
        if (first_.empty()) {
            space_ = s;
            first_ = name;
        }
    }
    template <class A>
    void add(const std::optional<A>& a, std::string_view name) {
        if (a) add(*a, name);
    }
    MemorySpace space() const { return space_; }
    // The executor for this call: the cpu backend on the host, else the caller's CUDA stream.
    Executor executor(std::uintptr_t stream, int threads) const;

private:
    MemorySpace space_ = MemorySpace::host();
    std::string first_;
};

// A 2-D view of an array of element type T that is contiguous along one axis (C or Fortran
// order, or a slice of either). Other layouts, ndim != 2 and dtype mismatches raise.
template <class T>
DenseView<const T> dense_in(const InArray& a, std::string_view name);
template <class T>
DenseView<T> dense_out(const OutArray& a, std::string_view name);
template <class T>
DenseView<const T> dense_in(const MaybeIn& a, std::string_view name) {
    return a ? dense_in<T>(*a, name) : DenseView<const T>{};
}
template <class T>
DenseView<T> dense_out(const MaybeOut& a, std::string_view name) {
    return a ? dense_out<T>(*a, name) : DenseView<T>{};
}

// A 1-D contiguous array of element type T.
template <class T>
const T* vector_in(const InArray& a, std::string_view name, std::int64_t length);
template <class T>
T* vector_out(const OutArray& a, std::string_view name, std::int64_t length);
// Rows x cols, C-contiguous, element type T (the saved statistics of FusedMM).
template <class T>
T* tight_out(const OutArray& a, std::string_view name, std::int64_t rows, std::int64_t cols);
template <class T>
const T* tight_in(const InArray& a, std::string_view name, std::int64_t rows, std::int64_t cols);

// A CSR matrix over three caller arrays (indptr, indices, data), which it keeps alive. The
// constructor checks dtypes, lengths and devices and, when `check`, the structure (validate())
// and whether rows are sorted; otherwise the caller vouches for both (`assume_sorted`).
class SparseMatrix {
public:
    // stream: the caller's CUDA stream for device arrays (0: the default stream). The structure
    // check reads the arrays on the host, after that stream's pending work.
    SparseMatrix(InArray indptr, InArray indices, InArray data, std::int64_t rows, std::int64_t cols, bool check, bool assume_sorted,
                 std::uintptr_t stream = 0);

    template <class V, class I>
    CsrView<const V, I> view() const {
        return {rows_,
                cols_,
                nnz_,
                static_cast<const I*>(indptr_.data()),
                static_cast<const I*>(indices_.data()),
                static_cast<const V*>(data_.data()),
                space_,
                sorted_};
    }
    std::int64_t rows() const { return rows_; }
    std::int64_t cols() const { return cols_; }
    std::int64_t nnz() const { return nnz_; }
    bool sorted() const { return sorted_; }
    Dtype value_type() const { return value_type_; }
    Dtype index_type() const { return index_type_; }
    MemorySpace space() const { return space_; }
    const InArray& indptr() const { return indptr_; }
    const InArray& indices() const { return indices_; }
    const InArray& data() const { return data_; }

private:
    InArray indptr_, indices_, data_;
    std::int64_t rows_, cols_, nnz_;
    bool sorted_ = false;
    Dtype value_type_, index_type_;
    MemorySpace space_;
};

// Calls f.template operator()<V, I>() for the matrix's value and index types: all four value
// types, or f32 and f64 only where `op` has no 16-bit version (TypeError for the others).
template <class F>
decltype(auto) dispatch_all(Dtype v, Dtype i, F&& f) {
    const bool i64 = i == Dtype::i64;
    switch (v) {
        case Dtype::f32:
            return i64 ? f.template operator()<float, std::int64_t>() : f.template operator()<float, std::int32_t>();
        case Dtype::f64:
            return i64 ? f.template operator()<double, std::int64_t>() : f.template operator()<double, std::int32_t>();
        case Dtype::f16:
            return i64 ? f.template operator()<f16, std::int64_t>() : f.template operator()<f16, std::int32_t>();
        default:
            return i64 ? f.template operator()<bf16, std::int64_t>() : f.template operator()<bf16, std::int32_t>();
    }
}
template <class F>
decltype(auto) dispatch_float(std::string_view op, Dtype v, Dtype i, F&& f) {
    const bool i64 = i == Dtype::i64;
    switch (v) {
        case Dtype::f32:
            return i64 ? f.template operator()<float, std::int64_t>() : f.template operator()<float, std::int32_t>();
        case Dtype::f64:
            return i64 ? f.template operator()<double, std::int64_t>() : f.template operator()<double, std::int32_t>();
        default:
            throw nb::type_error((std::string(op) + " supports float32 and float64 values only").c_str());
    }
}

// Arrays that own spk memory: `owner` (a capsule) frees it when the last array goes.
template <class T>
nb::ndarray<nb::array_api> export_array(const T* data, std::int64_t rows, std::int64_t cols, int ndim, MemorySpace space, nb::handle owner);

// A capsule that deletes `object` (any heap-allocated spk container) when Python drops it.
template <class T>
nb::capsule owning_capsule(T* object) {
    return nb::capsule(object, [](void* p) noexcept { delete static_cast<T*>(p); });
}

}  // namespace spk::python
