// Matrix Market (read, write) and FROSTT (read) files. The GIL is released while files are read.
#include <nanobind/stl/string.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "csr_export.hpp"

namespace spk::python {

namespace {

Dtype parse_value_dtype(const std::string& s) {
    if (s == "float32") return Dtype::f32;
    if (s == "float64") return Dtype::f64;
    if (s == "float16") return Dtype::f16;
    if (s == "bfloat16") return Dtype::bf16;
    throw nb::type_error(("dtype: " + s + " is not one of float16, bfloat16, float32, float64").c_str());
}

Dtype parse_index_dtype(const std::string& s) {
    if (s == "int32") return Dtype::i32;
    if (s == "int64") return Dtype::i64;
    throw nb::type_error(("index_dtype: " + s + " is not one of int32, int64").c_str());
}

nb::tuple read_mtx(const std::string& path, const std::string& dtype, const std::string& index_dtype) {
    return dispatch_all(parse_value_dtype(dtype), parse_index_dtype(index_dtype), [&]<class V, class I>() {
        Csr<V, I> a;
        {
            nb::gil_scoped_release nogil;
            a = load_matrix<V, I>(path);
        }
        return export_csr(std::move(a));
    });
}

void write_mtx(const std::string& path, const SparseMatrix& a, int precision, bool pattern) {
    if (!a.space().is_host()) throw nb::value_error("A: write_mtx needs host arrays (move the matrix to the CPU first)");
    dispatch_all(a.value_type(), a.index_type(), [&]<class V, class I>() {
        nb::gil_scoped_release nogil;
        write_matrix_market(path, a.view<V, I>(), MatrixMarketWriteOptions{pattern, precision});
    });
}

// (i0, i1, i2, values, (d0, d1, d2)) as NumPy-ready arrays; the tensor's vectors are moved, not copied.
nb::tuple read_tns(const std::string& path, const std::string& dtype, const std::string& index_dtype) {
    return dispatch_float("read_tns", parse_value_dtype(dtype), parse_index_dtype(index_dtype), [&]<class V, class I>() {
        auto* x = new CooTensor3<V, I>();
        nb::capsule owner = owning_capsule(x);
        {
            nb::gil_scoped_release nogil;
            *x = read_frostt<V, I>(path);
        }
        const auto n = x->nnz();
        const MemorySpace host = MemorySpace::host();
        return nb::make_tuple(export_array<I>(x->idx[0].data(), n, 0, 1, host, owner),
                              export_array<I>(x->idx[1].data(), n, 0, 1, host, owner),
                              export_array<I>(x->idx[2].data(), n, 0, 1, host, owner),
                              export_array<V>(x->values.data(), n, 0, 1, host, owner), nb::make_tuple(x->dims[0], x->dims[1], x->dims[2]));
    });
}

}  // namespace

void bind_io(nb::module_& m) {
    using namespace nb::literals;
    m.def("read_mtx", &read_mtx, "path"_a, "dtype"_a, "index_dtype"_a);
    m.def("write_mtx", &write_mtx, "path"_a, "a"_a, "precision"_a, "pattern"_a);
    m.def("read_tns", &read_tns, "path"_a, "dtype"_a, "index_dtype"_a);
}

}  // namespace spk::python
