#include "arrays.hpp"

#include <vector>

namespace spk::python {

namespace {

constexpr std::int32_t dl_cpu = 1, dl_cuda = 2, dl_cuda_host = 3, dl_cuda_managed = 13;

[[noreturn]] void value_error(const std::string& m) { throw nb::value_error(m.c_str()); }
[[noreturn]] void type_error(const std::string& m) { throw nb::type_error(m.c_str()); }

std::string strides_string(std::int64_t s0, std::int64_t s1) { return "(" + std::to_string(s0) + ", " + std::to_string(s1) + ")"; }

template <class T, class A>
void check_dtype(const A& a, std::string_view name) {
    if (dtype_of(a.dtype()) != dtype_id<T>())
        type_error(std::string(name) + ": dtype " + dtype_name(a.dtype()) + ", expected " + dtype_name(dlpack_dtype<T>()));
}

// rows x cols with element strides s0, s1 -> a row- or column-major view with its leading dimension.
template <class T>
DenseView<T> strided_view(T* data, std::int64_t rows, std::int64_t cols, std::int64_t s0, std::int64_t s1, MemorySpace space,
                          std::string_view name) {
    DenseView<T> v{data, rows, cols, 0, Layout::row_major, space};
    if (rows == 0 || cols == 0) {
        v.ld = cols;
        return v;
    }
    if ((cols == 1 || s1 == 1) && (rows == 1 || s0 >= cols)) {
        v.ld = rows == 1 ? cols : s0;
        return v;
    }
    if ((rows == 1 || s0 == 1) && (cols == 1 || s1 >= rows)) {
        v.layout = Layout::col_major;
        v.ld = cols == 1 ? rows : s1;
        return v;
    }
    value_error(std::string(name) + ": a " + std::to_string(rows) + " x " + std::to_string(cols) + " array with element strides " +
                strides_string(s0, s1) + " is contiguous along neither axis (pass a C- or Fortran-ordered copy)");
}

template <class A>
void check_ndim(const A& a, std::size_t ndim, std::string_view name) {
    if (a.ndim() != ndim)
        value_error(std::string(name) + ": expected a " + std::to_string(ndim) + "-D array, got " + std::to_string(a.ndim()) + "-D");
}

}  // namespace

Dtype dtype_of(nb::dlpack::dtype t) {
    if (t.lanes != 1) return Dtype::other;
    const auto code = static_cast<nb::dlpack::dtype_code>(t.code);
    if (code == nb::dlpack::dtype_code::Float)
        return t.bits == 16 ? Dtype::f16 : t.bits == 32 ? Dtype::f32 : t.bits == 64 ? Dtype::f64 : Dtype::other;
    if (code == nb::dlpack::dtype_code::Bfloat) return t.bits == 16 ? Dtype::bf16 : Dtype::other;
    if (code == nb::dlpack::dtype_code::Int) return t.bits == 32 ? Dtype::i32 : t.bits == 64 ? Dtype::i64 : Dtype::other;
    return Dtype::other;
}

std::string dtype_name(nb::dlpack::dtype t) {
    std::string kind;
    switch (static_cast<nb::dlpack::dtype_code>(t.code)) {
        case nb::dlpack::dtype_code::Int:
            kind = "int";
            break;
        case nb::dlpack::dtype_code::UInt:
            kind = "uint";
            break;
        case nb::dlpack::dtype_code::Float:
            kind = "float";
            break;
        case nb::dlpack::dtype_code::Bfloat:
            kind = "bfloat";
            break;
        case nb::dlpack::dtype_code::Bool:
            return "bool";
        default:
            kind = "dtype code " + std::to_string(t.code) + " of ";
            break;
    }
    return kind + std::to_string(t.bits);
}

template <class A>
MemorySpace space_of(const A& a, std::string_view name) {
    switch (a.device_type()) {
        case dl_cpu:
        case dl_cuda_host:
            return MemorySpace::host();
        case dl_cuda:
        case dl_cuda_managed:
            return MemorySpace::cuda(a.device_id());
        default:
            value_error(std::string(name) + ": arrays on DLPack device type " + std::to_string(a.device_type()) +
                        " are not supported (CPU or CUDA only)");
    }
}
template MemorySpace space_of(const InArray&, std::string_view);
template MemorySpace space_of(const OutArray&, std::string_view);

Executor Placement::executor(std::uintptr_t stream, int threads) const {
    if (space_.is_host()) return Executor::cpu(threads);
    return Executor::cuda(space_.device, reinterpret_cast<void*>(stream));
}

template <class T>
DenseView<const T> dense_in(const InArray& a, std::string_view name) {
    check_ndim(a, 2, name);
    check_dtype<T>(a, name);
    const auto rows = static_cast<std::int64_t>(a.shape(0)), cols = static_cast<std::int64_t>(a.shape(1));
    return strided_view(static_cast<const T*>(a.data()), rows, cols, a.stride(0), a.stride(1), space_of(a, name), name);
}

template <class T>
DenseView<T> dense_out(const OutArray& a, std::string_view name) {
    check_ndim(a, 2, name);
    check_dtype<T>(a, name);
    const auto rows = static_cast<std::int64_t>(a.shape(0)), cols = static_cast<std::int64_t>(a.shape(1));
    return strided_view(static_cast<T*>(a.data()), rows, cols, a.stride(0), a.stride(1), space_of(a, name), name);
}

namespace {
template <class T, class A>
void check_vector(const A& a, std::string_view name, std::int64_t length) {
    check_ndim(a, 1, name);
    check_dtype<T>(a, name);
    if (static_cast<std::int64_t>(a.shape(0)) != length)
        value_error(std::string(name) + ": length " + std::to_string(a.shape(0)) + ", expected " + std::to_string(length));
    if (length > 1 && a.stride(0) != 1)
        value_error(std::string(name) + ": not contiguous (element stride " + std::to_string(a.stride(0)) + ")");
}
}  // namespace

template <class T>
const T* vector_in(const InArray& a, std::string_view name, std::int64_t length) {
    check_vector<T>(a, name, length);
    return static_cast<const T*>(a.data());
}

template <class T>
T* vector_out(const OutArray& a, std::string_view name, std::int64_t length) {
    check_vector<T>(a, name, length);
    return static_cast<T*>(a.data());
}

namespace {
template <class A>
void check_tight(const A& a, std::string_view name, std::int64_t rows, std::int64_t cols) {
    check_ndim(a, 2, name);
    if (static_cast<std::int64_t>(a.shape(0)) != rows || static_cast<std::int64_t>(a.shape(1)) != cols)
        value_error(std::string(name) + ": shape (" + std::to_string(a.shape(0)) + ", " + std::to_string(a.shape(1)) + "), expected (" +
                    std::to_string(rows) + ", " + std::to_string(cols) + ")");
    if (rows > 0 && cols > 0 && ((cols > 1 && a.stride(1) != 1) || (rows > 1 && a.stride(0) != cols)))
        value_error(std::string(name) + ": not C-contiguous");
}
}  // namespace

template <class T>
T* tight_out(const OutArray& a, std::string_view name, std::int64_t rows, std::int64_t cols) {
    check_dtype<T>(a, name);
    check_tight(a, name, rows, cols);
    return static_cast<T*>(a.data());
}

template <class T>
const T* tight_in(const InArray& a, std::string_view name, std::int64_t rows, std::int64_t cols) {
    check_dtype<T>(a, name);
    check_tight(a, name, rows, cols);
    return static_cast<const T*>(a.data());
}

template <class T>
nb::ndarray<nb::array_api> export_array(const T* data, std::int64_t rows, std::int64_t cols, int ndim, MemorySpace space,
                                        nb::handle owner) {
    const std::size_t shape[2] = {static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)};
    // A valid pointer even for empty arrays: consumers (NumPy's buffer protocol) reject null.
    static T empty_placeholder{};
    const T* p = data ? data : &empty_placeholder;
    return nb::ndarray<nb::array_api>(const_cast<T*>(p), static_cast<std::size_t>(ndim), shape, owner, nullptr, dlpack_dtype<T>(),
                                      space.is_host() ? dl_cpu : dl_cuda, space.is_host() ? 0 : space.device);
}

#define SPK_PY_VALUE(T)                                                                          \
    template DenseView<const T> dense_in<T>(const InArray&, std::string_view);                   \
    template DenseView<T> dense_out<T>(const OutArray&, std::string_view);                       \
    template const T* vector_in<T>(const InArray&, std::string_view, std::int64_t);              \
    template T* vector_out<T>(const OutArray&, std::string_view, std::int64_t);                  \
    template T* tight_out<T>(const OutArray&, std::string_view, std::int64_t, std::int64_t);     \
    template const T* tight_in<T>(const InArray&, std::string_view, std::int64_t, std::int64_t); \
    template nb::ndarray<nb::array_api> export_array<T>(const T*, std::int64_t, std::int64_t, int, MemorySpace, nb::handle);
SPK_PY_VALUE(float)
SPK_PY_VALUE(double)
SPK_PY_VALUE(f16)
SPK_PY_VALUE(bf16)
SPK_PY_VALUE(std::int32_t)
SPK_PY_VALUE(std::int64_t)
#undef SPK_PY_VALUE

// --- SparseMatrix ---------------------------------------------------------------------------

namespace {

// Copies a 1-D array of T to the host (device arrays go through spk::copy_bytes).
template <class T>
std::vector<T> host_copy(const T* data, std::int64_t n, MemorySpace space) {
    std::vector<T> out(static_cast<std::size_t>(n));
    if (n) copy_bytes(out.data(), MemorySpace::host(), data, space, out.size() * sizeof(T));
    return out;
}

// spk::validate (structure: offsets, column range) plus whether every row strictly increases.
template <class I>
bool check_structure(const I* indptr, const I* indices, std::int64_t rows, std::int64_t cols, std::int64_t nnz, MemorySpace space) {
    std::vector<I> ptr_copy, idx_copy;
    if (!space.is_host()) {
        ptr_copy = host_copy(indptr, rows + 1, space);
        idx_copy = host_copy(indices, nnz, space);
        indptr = ptr_copy.data();
        indices = idx_copy.data();
    }
    const CsrView<const float, I> pattern{rows, cols, nnz, indptr, indices, nullptr, MemorySpace::host(), false};
    validate(pattern, "A");
    for (std::int64_t i = 0; i < rows; ++i)
        for (auto p = static_cast<std::int64_t>(indptr[i]) + 1; p < static_cast<std::int64_t>(indptr[i + 1]); ++p)
            if (indices[p - 1] >= indices[p]) return false;
    return true;
}

}  // namespace

SparseMatrix::SparseMatrix(InArray indptr, InArray indices, InArray data, std::int64_t rows, std::int64_t cols, bool check,
                           bool assume_sorted, std::uintptr_t stream)
    : indptr_(std::move(indptr)), indices_(std::move(indices)), data_(std::move(data)), rows_(rows), cols_(cols) {
    if (rows < 0 || cols < 0) value_error("shape: negative (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
    for (const auto* a : {&indptr_, &indices_, &data_}) check_ndim(*a, 1, a == &indptr_ ? "indptr" : a == &indices_ ? "indices" : "data");
    index_type_ = dtype_of(indptr_.dtype());
    if (index_type_ != Dtype::i32 && index_type_ != Dtype::i64)
        type_error("indptr: dtype " + dtype_name(indptr_.dtype()) + ", expected int32 or int64");
    if (dtype_of(indices_.dtype()) != index_type_)
        type_error("indices: dtype " + dtype_name(indices_.dtype()) + " differs from indptr's " + dtype_name(indptr_.dtype()));
    value_type_ = dtype_of(data_.dtype());
    if (value_type_ != Dtype::f16 && value_type_ != Dtype::bf16 && value_type_ != Dtype::f32 && value_type_ != Dtype::f64)
        type_error("data: dtype " + dtype_name(data_.dtype()) + ", expected float16, bfloat16, float32 or float64");
    nnz_ = static_cast<std::int64_t>(indices_.shape(0));
    if (static_cast<std::int64_t>(indptr_.shape(0)) != rows + 1)
        value_error("indptr: length " + std::to_string(indptr_.shape(0)) + ", expected rows + 1 = " + std::to_string(rows + 1));
    if (static_cast<std::int64_t>(data_.shape(0)) != nnz_)
        value_error("data: length " + std::to_string(data_.shape(0)) + " differs from the length of indices (" + std::to_string(nnz_) +
                    ")");
    for (const auto* a : {&indptr_, &indices_, &data_})
        if (a->shape(0) > 1 && a->stride(0) != 1)
            value_error(std::string(a == &indptr_    ? "indptr"
                                    : a == &indices_ ? "indices"
                                                     : "data") +
                        ": not contiguous (element stride " + std::to_string(a->stride(0)) + ")");
    Placement place;
    place.add(indptr_, "indptr");
    place.add(indices_, "indices");
    place.add(data_, "data");
    space_ = place.space();
    if (!check) {
        sorted_ = assume_sorted;
        return;
    }
    nb::gil_scoped_release nogil;
    // The arrays may still be being written on the caller's stream; the copies below use another.
    if (!space_.is_host()) Executor::cuda(space_.device, reinterpret_cast<void*>(stream)).synchronize();
    sorted_ = index_type_ == Dtype::i64 ? check_structure(static_cast<const std::int64_t*>(indptr_.data()),
                                                          static_cast<const std::int64_t*>(indices_.data()), rows, cols, nnz_, space_)
                                        : check_structure(static_cast<const std::int32_t*>(indptr_.data()),
                                                          static_cast<const std::int32_t*>(indices_.data()), rows, cols, nnz_, space_);
}

}  // namespace spk::python
