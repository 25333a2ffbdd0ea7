// spgemm (a new CSR whose arrays Python takes over without copies) and triangle_count.
#include <nanobind/stl/string.h>

#include <memory>
#include <optional>

#include "arrays.hpp"
#include "bindings.hpp"
#include "csr_export.hpp"

namespace spk::python {

namespace {

Semiring parse_semiring(const std::string& s) { return parse_choice("semiring", s, all_semirings); }
SpgemmReuse parse_reuse(const std::string& s) { return parse_choice("reuse", s, all_spgemm_reuses); }

void check_same_types(const SparseMatrix& a, const SparseMatrix& b, std::string_view name) {
    if (a.value_type() != b.value_type() || a.index_type() != b.index_type())
        throw nb::type_error((std::string(name) + ": value and index dtypes must match A's (" + dtype_name(a.data().dtype()) + ", " +
                              dtype_name(a.indptr().dtype()) + "), got " + dtype_name(b.data().dtype()) + ", " +
                              dtype_name(b.indptr().dtype()))
                                 .c_str());
}

// What spgemm and SpgemmPlan check and set up alike: the options, the operands' types, and the
// executor of the memory space they share.
struct Product {
    SpgemmOptions options;
    Executor exec;
};

Product product(const SparseMatrix& a, const SparseMatrix& b, const SparseMatrix* mask, const std::string& semiring, bool complement_mask,
                bool sorted, bool detect_blocks, std::uintptr_t stream, int threads) {
    SpgemmOptions options;
    options.semiring = parse_semiring(semiring);
    options.complement_mask = complement_mask;
    options.sorted = sorted;
    options.detect_blocks = detect_blocks;
    check_same_types(a, b, "B");
    if (mask) check_same_types(a, *mask, "mask");
    Placement place;
    place.add(a.indptr(), "A");
    place.add(b.indptr(), "B");
    if (mask) place.add(mask->indptr(), "mask");
    return {options, place.executor(stream, threads)};
}

template <class V, class I>
std::optional<CsrView<const V, I>> mask_view(const SparseMatrix* mask) {
    if (!mask) return std::nullopt;
    return mask->view<V, I>();
}

// to_host: spk::spgemm_to_host (C in chunks of rows under memory_budget, gathered in host memory).
nb::tuple spgemm(const SparseMatrix& a, const SparseMatrix& b, const SparseMatrix* mask, const std::string& semiring, bool complement_mask,
                 bool sorted, bool detect_blocks, bool to_host, std::size_t memory_budget, std::uintptr_t stream, int threads) {
    Product p = product(a, b, mask, semiring, complement_mask, sorted, detect_blocks, stream, threads);
    p.options.memory_budget = memory_budget;
    return dispatch_float("spgemm", a.value_type(), a.index_type(), [&]<class V, class I>() {
        const auto m = mask_view<V, I>(mask);
        Csr<V, I> c;
        {
            nb::gil_scoped_release nogil;
            c = to_host ? spk::spgemm_to_host(p.exec, a.view<V, I>(), b.view<V, I>(), p.options, m)
                        : spk::spgemm(p.exec, a.view<V, I>(), b.view<V, I>(), p.options, m);
        }
        return export_csr(std::move(c));
    });
}

// SpgemmPlan: the symbolic phase once (C's pattern), then compute() for a new C and recompute()
// for C's values from new values of A and B. The plan keeps views of A, B and the mask: the Python
// object keeps them (and so their arrays) alive.
class AnySpgemmPlan {
public:
    AnySpgemmPlan(const SparseMatrix& a, const SparseMatrix& b, const SparseMatrix* mask, const std::string& semiring, bool complement_mask,
                  bool sorted, bool detect_blocks, const std::string& reuse, std::uintptr_t stream, int threads)
        : a_(a), b_(b) {
        Product p = product(a, b, mask, semiring, complement_mask, sorted, detect_blocks, stream, threads);
        p.options.reuse = parse_reuse(reuse);
        exec_ = std::make_unique<Executor>(p.exec);
        dispatch_float("SpgemmPlan", a.value_type(), a.index_type(), [&]<class V, class I>() {
            const auto m = mask_view<V, I>(mask);
            nb::gil_scoped_release nogil;
            plan_ = std::make_shared<SpgemmPlan<V, I>>(*exec_, a.view<V, I>(), b.view<V, I>(), p.options, m);
        });
    }

    std::string config() const {
        return dispatch_float("SpgemmPlan", a_.value_type(), a_.index_type(), [&]<class V, class I>() { return plan<V, I>().config(); });
    }

    std::int64_t nnz() const {
        return dispatch_float("SpgemmPlan", a_.value_type(), a_.index_type(),
                              [&]<class V, class I>() { return static_cast<std::int64_t>(plan<V, I>().nnz()); });
    }

    nb::tuple compute() const {
        return dispatch_float("SpgemmPlan", a_.value_type(), a_.index_type(), [&]<class V, class I>() {
            Csr<V, I> c;
            {
                nb::gil_scoped_release nogil;
                c = plan<V, I>().compute();
            }
            return export_csr(std::move(c));
        });
    }

    void recompute(const InArray& a_values, const InArray& b_values, const OutArray& c_values) const {
        Placement place;
        place.add(a_.indptr(), "A");
        place.add(a_values, "a_values");
        place.add(b_values, "b_values");
        place.add(c_values, "c_values");
        dispatch_float("SpgemmPlan", a_.value_type(), a_.index_type(), [&]<class V, class I>() {
            const SpgemmPlan<V, I>& p = plan<V, I>();
            const V* av = vector_in<V>(a_values, "a_values", a_.view<V, I>().nnz);
            const V* bv = vector_in<V>(b_values, "b_values", b_.view<V, I>().nnz);
            V* cv = vector_out<V>(c_values, "c_values", p.nnz());
            nb::gil_scoped_release nogil;
            p.recompute(av, bv, cv);
        });
    }

private:
    template <class V, class I>
    const SpgemmPlan<V, I>& plan() const {
        return *static_cast<const SpgemmPlan<V, I>*>(plan_.get());
    }

    const SparseMatrix& a_;
    const SparseMatrix& b_;
    std::unique_ptr<Executor> exec_;
    std::shared_ptr<void> plan_;  // SpgemmPlan<V, I> for A's types; shared_ptr<void> keeps the right deleter
};

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
    m.def("spgemm", &spgemm, "a"_a, "b"_a, "mask"_a.none(), "semiring"_a, "complement_mask"_a, "sorted"_a, "detect_blocks"_a, "to_host"_a,
          "memory_budget"_a, "stream"_a, "threads"_a);
    m.def("triangle_count", &triangle_count, "a"_a, "stream"_a, "threads"_a);
    nb::class_<AnySpgemmPlan>(m, "SpgemmPlan")
        .def(nb::init<const SparseMatrix&, const SparseMatrix&, const SparseMatrix*, const std::string&, bool, bool, bool, const std::string&,
                      std::uintptr_t, int>(),
             "a"_a, "b"_a, "mask"_a.none(), "semiring"_a, "complement_mask"_a, "sorted"_a, "detect_blocks"_a, "reuse"_a, "stream"_a, "threads"_a,
             nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>(), nb::keep_alive<1, 4>())
        .def_prop_ro("nnz", &AnySpgemmPlan::nnz)
        .def_prop_ro("config", &AnySpgemmPlan::config)
        .def("compute", &AnySpgemmPlan::compute)
        .def("recompute", &AnySpgemmPlan::recompute, "a_values"_a, "b_values"_a, "c_values"_a);
}

}  // namespace spk::python
