// spgemm (a new CSR whose arrays Python takes over without copies) and triangle_count.
#include <nanobind/stl/string.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "csr_export.hpp"

namespace spk::python {

namespace {

Semiring parse_semiring(const std::string& s) {
    if (s == "plus_times") return Semiring::plus_times;
    if (s == "plus_pair") return Semiring::plus_pair;
    if (s == "min_plus") return Semiring::min_plus;
    if (s == "max_times") return Semiring::max_times;
    if (s == "lor_land") return Semiring::lor_land;
    unknown_option("semiring", s, "plus_times, plus_pair, min_plus, max_times, lor_land");
}

void check_same_types(const SparseMatrix& a, const SparseMatrix& b, std::string_view name) {
    if (a.value_type() != b.value_type() || a.index_type() != b.index_type())
        throw nb::type_error((std::string(name) + ": value and index dtypes must match A's (" + dtype_name(a.data().dtype()) + ", " +
                              dtype_name(a.indptr().dtype()) + "), got " + dtype_name(b.data().dtype()) + ", " +
                              dtype_name(b.indptr().dtype()))
                                 .c_str());
}

// to_host: spk::spgemm_to_host (C in chunks of rows under memory_budget, gathered in host memory).
nb::tuple spgemm(const SparseMatrix& a, const SparseMatrix& b, const SparseMatrix* mask, const std::string& semiring, bool complement_mask,
                 bool sorted, bool to_host, std::size_t memory_budget, std::uintptr_t stream, int threads) {
    SpgemmOptions options;
    options.semiring = parse_semiring(semiring);
    options.complement_mask = complement_mask;
    options.sorted = sorted;
    options.memory_budget = memory_budget;
    check_same_types(a, b, "B");
    if (mask) check_same_types(a, *mask, "mask");
    Placement place;
    place.add(a.indptr(), "A");
    place.add(b.indptr(), "B");
    if (mask) place.add(mask->indptr(), "mask");
    const Executor exec = place.executor(stream, threads);
    return dispatch_float("spgemm", a.value_type(), a.index_type(), [&]<class V, class I>() {
        std::optional<CsrView<const V, I>> mask_view;
        if (mask) mask_view = mask->view<V, I>();
        Csr<V, I> c;
        {
            nb::gil_scoped_release nogil;
            c = to_host ? spk::spgemm_to_host(exec, a.view<V, I>(), b.view<V, I>(), options, mask_view)
                        : spk::spgemm(exec, a.view<V, I>(), b.view<V, I>(), options, mask_view);
        }
        return export_csr(std::move(c));
    });
}

std::uint64_t triangle_count(const SparseMatrix& g, std::uintptr_t stream, int threads) {
    Placement place;
    place.add(g.indptr(), "A");
    const Executor exec = place.executor(stream, threads);
    return dispatch_float("triangle_count", g.value_type(), g.index_type(), [&]<class V, class I>() {
        nb::gil_scoped_release nogil;
        return spk::triangle_count(exec, g.view<V, I>());
    });
}

}  // namespace

void bind_spgemm(nb::module_& m) {
    using namespace nb::literals;
    m.def("spgemm", &spgemm, "a"_a, "b"_a, "mask"_a.none(), "semiring"_a, "complement_mask"_a, "sorted"_a, "to_host"_a,
          "memory_budget"_a, "stream"_a, "threads"_a);
    m.def("triangle_count", &triangle_count, "a"_a, "stream"_a, "threads"_a);
}

}  // namespace spk::python
