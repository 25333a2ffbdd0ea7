// MTTKRP and TTM on 3-way COO tensors (host arrays only here; the C++ library also runs them on CUDA). The COO arrays are copied into
// spk's CooTensor3 once per call; MttkrpPlan keeps its CSFs for repeated calls (CP-ALS).
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <memory>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"

namespace spk::python {

namespace {

// The tensor as given from Python: three index arrays, the values and the dims.
struct CooArgs {
    InArray i0, i1, i2, values;
    std::array<std::int64_t, 3> dims;
};

template <class V, class I>
CooTensor3<V, I> to_coo(const CooArgs& t) {
    const auto n = static_cast<std::int64_t>(t.values.ndim() == 1 ? t.values.shape(0) : 0);
    const V* v = vector_in<V>(t.values, "values", n);
    CooTensor3<V, I> x;
    x.dims = t.dims;
    x.values.assign(v, v + n);
    const InArray* idx[3] = {&t.i0, &t.i1, &t.i2};
    for (int m = 0; m < 3; ++m) {
        const I* p = vector_in<I>(*idx[m], "coords[" + std::to_string(m) + "]", n);
        x.idx[m].assign(p, p + n);
    }
    return x;
}

Placement host_placement(const CooArgs& t) {
    Placement place;
    place.add(t.values, "values");
    place.add(t.i0, "coords");
    place.add(t.i1, "coords");
    place.add(t.i2, "coords");
    if (!place.space().is_host()) throw nb::value_error("tensor: MTTKRP and TTM run on the host only (CPU arrays)");
    return place;
}

Dtype index_type_of(const CooArgs& t) {
    const Dtype i = dtype_of(t.i0.dtype());
    if (i != Dtype::i32 && i != Dtype::i64)
        throw nb::type_error(("coords: dtype " + dtype_name(t.i0.dtype()) + ", expected int32 or int64").c_str());
    return i;
}

template <class V>
std::array<DenseView<const V>, 3> factor_views(const std::vector<MaybeIn>& factors) {
    if (factors.size() != 3) throw nb::value_error(("factors: expected 3 (one per mode), got " + std::to_string(factors.size())).c_str());
    std::array<DenseView<const V>, 3> f;
    for (int m = 0; m < 3; ++m) f[m] = dense_in<V>(factors[m], "factors[" + std::to_string(m) + "]");
    return f;
}

class AnyMttkrpPlan {
public:
    AnyMttkrpPlan(const CooArgs& t, const std::vector<int>& modes, int threads)
        : exec_(host_placement(t).executor(0, threads)), value_type_(dtype_of(t.values.dtype())), index_type_(index_type_of(t)) {
        dispatch_float("mttkrp", value_type_, index_type_, [&]<class V, class I>() {
            const CooTensor3<V, I> x = to_coo<V, I>(t);
            nb::gil_scoped_release nogil;
            plan_ = std::make_shared<MttkrpPlan<V, I>>(exec_, x, modes);
        });
    }

    void run(int mode, const std::vector<MaybeIn>& factors, const OutArray& out) const {
        Placement place;
        place.add(out, "out");
        for (const auto& f : factors) place.add(f, "factors");
        if (!place.space().is_host()) throw nb::value_error("mttkrp: factors and out must be host (CPU) arrays");
        dispatch_float("mttkrp", value_type_, index_type_, [&]<class V, class I>() {
            const auto f = factor_views<V>(factors);
            const auto o = dense_out<V>(out, "out");
            nb::gil_scoped_release nogil;
            static_cast<const MttkrpPlan<V, I>*>(plan_.get())->run(mode, f, o);
        });
    }

private:
    Executor exec_;
    Dtype value_type_, index_type_;
    std::shared_ptr<void> plan_;
};

// (fiber coordinates (2 arrays), values fibers x R, dims, sparse modes).
nb::tuple ttm(const CooArgs& t, int mode, const InArray& u, int threads) {
    Placement place = host_placement(t);
    place.add(u, "U");
    if (!place.space().is_host()) throw nb::value_error("ttm: U must be a host (CPU) array");
    const Executor exec = place.executor(0, threads);
    return dispatch_float("ttm", dtype_of(t.values.dtype()), index_type_of(t), [&]<class V, class I>() {
        const CooTensor3<V, I> x = to_coo<V, I>(t);
        const auto uv = dense_in<V>(u, "U");
        auto* y = new SemiSparseTensor3<V, I>();
        nb::capsule owner = owning_capsule(y);
        {
            nb::gil_scoped_release nogil;
            *y = spk::ttm(exec, x, mode, uv);
        }
        const MemorySpace host = MemorySpace::host();
        const auto fibers = y->fibers();
        return nb::make_tuple(export_array<I>(y->fiber_idx[0].data(), fibers, 0, 1, host, owner),
                              export_array<I>(y->fiber_idx[1].data(), fibers, 0, 1, host, owner),
                              export_array<V>(y->values.values().data(), fibers, y->values.cols(), 2, host, owner),
                              nb::make_tuple(y->dims[0], y->dims[1], y->dims[2]), nb::make_tuple(y->sparse_modes[0], y->sparse_modes[1]));
    });
}

CooArgs coo_args(InArray i0, InArray i1, InArray i2, InArray values, std::array<std::int64_t, 3> dims) {
    return {std::move(i0), std::move(i1), std::move(i2), std::move(values), dims};
}

}  // namespace

void bind_tensor(nb::module_& m) {
    using namespace nb::literals;
    nb::class_<CooArgs>(m, "CooTensor").def(nb::new_(&coo_args), "i0"_a, "i1"_a, "i2"_a, "values"_a, "dims"_a);
    nb::class_<AnyMttkrpPlan>(m, "MttkrpPlan")
        .def(nb::init<const CooArgs&, const std::vector<int>&, int>(), "x"_a, "modes"_a, "threads"_a)
        .def("run", &AnyMttkrpPlan::run, "mode"_a, "factors"_a, "out"_a);
    m.def("ttm", &ttm, "x"_a, "mode"_a, "u"_a, "threads"_a);
}

}  // namespace spk::python
