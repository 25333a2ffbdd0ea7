// sddmm and its gradients, into caller-allocated arrays.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <string>

#include "arrays.hpp"
#include "bindings.hpp"

namespace spk::python {

namespace {

void sddmm(const SparseMatrix& a, const InArray& x, const InArray& y, const OutArray& out, bool scale_by_a, int heads,
           const std::string& config, std::uintptr_t stream, int threads) {
    Placement place;
    place.add(a.indptr(), "A");
    place.add(x, "X");
    place.add(y, "Y");
    place.add(out, "out");
    const Executor exec = place.executor(stream, threads);
    dispatch_all(a.value_type(), a.index_type(), [&]<class V, class I>() {
        const auto xv = dense_in<V>(x, "X");
        const auto yv = dense_in<V>(y, "Y");
        const auto ov = dense_out<V>(out, "out");
        nb::gil_scoped_release nogil;
        spk::sddmm(exec, a.view<V, I>(), xv, yv, ov, SddmmOptions{scale_by_a, heads, config});
    });
}

void sddmm_backward(const SparseMatrix& a, const InArray& x, const InArray& y, const InArray& d_out, const MaybeOut& dx, const MaybeOut& dy,
                    const MaybeOut& da, bool scale_by_a, int heads, std::uintptr_t stream, int threads) {
    Placement place;
    place.add(a.indptr(), "A");
    place.add(x, "X");
    place.add(y, "Y");
    place.add(d_out, "d_out");
    place.add(dx, "dX");
    place.add(dy, "dY");
    place.add(da, "dA");
    const Executor exec = place.executor(stream, threads);
    dispatch_all(a.value_type(), a.index_type(), [&]<class V, class I>() {
        const auto xv = dense_in<V>(x, "X");
        const auto yv = dense_in<V>(y, "Y");
        const auto dov = dense_in<V>(d_out, "d_out");
        const auto dxv = dense_out<V>(dx, "dX");
        const auto dyv = dense_out<V>(dy, "dY");
        const auto dav = dense_out<V>(da, "dA");
        nb::gil_scoped_release nogil;
        spk::sddmm_backward(exec, a.view<V, I>(), xv, yv, dov, dxv, dyv, dav, SddmmOptions{scale_by_a, heads});
    });
}

}  // namespace

void bind_sddmm(nb::module_& m) {
    using namespace nb::literals;
    m.def("sddmm", &sddmm, "a"_a, "x"_a, "y"_a, "out"_a, "scale_by_a"_a, "heads"_a, "config"_a, "stream"_a, "threads"_a);
    m.def("sddmm_backward", &sddmm_backward, "a"_a, "x"_a, "y"_a, "d_out"_a, "dx"_a.none(), "dy"_a.none(), "da"_a.none(), "scale_by_a"_a,
          "heads"_a, "stream"_a, "threads"_a);
}

}  // namespace spk::python
