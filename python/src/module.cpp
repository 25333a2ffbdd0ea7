// spk._core: the extension module. spk::Error becomes the Python exception its kind calls for
// (spk/_errors.py defines spk.Error and spk.FormatError), with spk's message.
#include <nanobind/nanobind.h>

#include <string>

#include "arrays.hpp"
#include "bindings.hpp"

namespace spk::python {

void unknown_option(std::string_view option, std::string_view value, std::string_view accepted) {
    throw nb::value_error(
        (std::string(option) + ": unknown value '" + std::string(value) + "' (expected one of " + std::string(accepted) + ")").c_str());
}

namespace {

// Set once at import; the module keeps the classes alive for its whole life.
PyObject* error_class = nullptr;
PyObject* format_error_class = nullptr;

void translate_spk_error(const std::exception_ptr& p, void*) {
    try {
        std::rethrow_exception(p);
    } catch (const Error& e) {
        PyObject* type = error_class;
        switch (e.kind()) {
            case ErrorKind::InvalidArgument:
            case ErrorKind::ShapeMismatch:
                type = PyExc_ValueError;
                break;
            case ErrorKind::Format:
                type = format_error_class;
                break;
            case ErrorKind::OutOfMemory:
                type = PyExc_MemoryError;
                break;
            case ErrorKind::Unsupported:
                type = PyExc_NotImplementedError;
                break;
            case ErrorKind::Device:
                type = error_class;
                break;
        }
        PyErr_SetString(type, e.what());
    }
}

}  // namespace

}  // namespace spk::python

NB_MODULE(_core, m) {
    namespace nb = nanobind;
    using namespace nb::literals;
    using spk::python::SparseMatrix;

    nb::module_ errors = nb::module_::import_("spk._errors");
    nb::object error = errors.attr("Error"), format_error = errors.attr("FormatError");
    spk::python::error_class = error.ptr();
    spk::python::format_error_class = format_error.ptr();
    m.attr("_error_classes") = nb::make_tuple(error, format_error);  // keeps both referenced
    nb::register_exception_translator(&spk::python::translate_spk_error);

    m.attr("built_with_cuda") =
#ifdef SPK_WITH_CUDA
        true;
#else
        false;
#endif

    nb::class_<SparseMatrix>(m, "SparseMatrix")
        .def(nb::init<spk::python::InArray, spk::python::InArray, spk::python::InArray, std::int64_t, std::int64_t, bool, bool,
                      std::uintptr_t>(),
             "indptr"_a, "indices"_a, "data"_a, "rows"_a, "cols"_a, "check"_a, "assume_sorted"_a, "stream"_a = 0)
        .def_prop_ro("rows", &SparseMatrix::rows)
        .def_prop_ro("cols", &SparseMatrix::cols)
        .def_prop_ro("nnz", &SparseMatrix::nnz)
        .def_prop_ro("sorted", &SparseMatrix::sorted);

    // spk's own device memory (arrays and workspaces), which a framework's allocator statistics miss.
    m.def(
        "device_memory_use",
        [](int device) {
            const spk::DeviceMemoryUse use = spk::device_memory_use(device);
            return nb::make_tuple(use.current, use.peak);
        },
        "device"_a);
    m.def("reset_device_memory_peak", &spk::reset_device_memory_peak, "device"_a);

    spk::python::bind_spmm(m);
    spk::python::bind_sddmm(m);
    spk::python::bind_fusedmm(m);
    spk::python::bind_spgemm(m);
    spk::python::bind_io(m);
    spk::python::bind_tensor(m);
}
