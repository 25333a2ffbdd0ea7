// spmm and SpmmPlan: C = alpha * reduce(A B) + beta * C into a caller-allocated C.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <memory>

#include "arrays.hpp"
#include "bindings.hpp"

namespace spk::python {

namespace {

Reduce parse_reduce(const std::string& r) { return parse_choice("reduce", r, all_reduces); }

SpmmOptions make_options(const std::string& reduce, double alpha, double beta, bool transpose_a, bool deterministic,
                         const std::string& config) {
    SpmmOptions o;
    o.reduce = parse_reduce(reduce);
    o.alpha = alpha;
    o.beta = beta;
    o.transpose_a = transpose_a;
    o.deterministic = deterministic;
    o.config = config;
    return o;
}

void spmm(const SparseMatrix& a, const InArray& b, const OutArray& c, const std::string& reduce, double alpha, double beta,
          bool transpose_a, const MaybeOut& arg, bool deterministic, const std::string& config, std::uintptr_t stream, int threads) {
    const SpmmOptions options = make_options(reduce, alpha, beta, transpose_a, deterministic, config);
    Placement place;
    place.add(a.indptr(), "A");
    place.add(b, "B");
    place.add(c, "C");
    place.add(arg, "arg");
    const Executor exec = place.executor(stream, threads);
    dispatch_all(a.value_type(), a.index_type(), [&]<class V, class I>() {
        const auto bv = dense_in<V>(b, "B");
        const auto cv = dense_out<V>(c, "C");
        const auto argv = dense_out<I>(arg, "arg");
        nb::gil_scoped_release nogil;
        spk::spmm(exec, a.view<V, I>(), bv, cv, options, argv);
    });
}

// The plan keeps a view of A's arrays: the Python object keeps A (and so its arrays) alive.
class AnySpmmPlan {
public:
    AnySpmmPlan(const SparseMatrix& a, std::int64_t n, const std::string& reduce, double alpha, double beta, bool transpose_a,
                bool deterministic, const std::string& config, std::uintptr_t stream, int threads)
        : a_(a) {
        Placement place;
        place.add(a.indptr(), "A");
        exec_ = std::make_unique<Executor>(place.executor(stream, threads));
        const SpmmOptions options = make_options(reduce, alpha, beta, transpose_a, deterministic, config);
        dispatch_all(a.value_type(), a.index_type(), [&]<class V, class I>() {
            nb::gil_scoped_release nogil;
            plan_ = std::make_shared<SpmmPlan<V, I>>(*exec_, a.view<V, I>(), n, options);
        });
    }

    // values: other values of A's pattern for this run (SpmmPlan::run_with_values), or none for A's own.
    void run(const InArray& b, const OutArray& c, const MaybeOut& arg, const MaybeIn& values) const {
        Placement place;
        place.add(a_.indptr(), "A");
        place.add(b, "B");
        place.add(c, "C");
        place.add(arg, "arg");
        place.add(values, "values");
        dispatch_all(a_.value_type(), a_.index_type(), [&]<class V, class I>() {
            const auto bv = dense_in<V>(b, "B");
            const auto cv = dense_out<V>(c, "C");
            const auto argv = dense_out<I>(arg, "arg");
            const auto plan = static_cast<const SpmmPlan<V, I>*>(plan_.get());
            if (values) {
                const std::int64_t nnz = a_.view<V, I>().nnz;
                const DenseView<const V> vv{vector_in<V>(*values, "values", nnz), nnz, 1, 1, Layout::row_major, space_of(*values, "values")};
                nb::gil_scoped_release nogil;
                plan->run_with_values(vv, bv, cv, argv);
            } else {
                nb::gil_scoped_release nogil;
                plan->run(bv, cv, argv);
            }
        });
    }

    // The first use of a CUDA plan waits for its analysis (and may run it again): without the GIL.
    std::string config() const {
        return dispatch_all(a_.value_type(), a_.index_type(), [&]<class V, class I>() {
            nb::gil_scoped_release nogil;
            return static_cast<const SpmmPlan<V, I>*>(plan_.get())->config();
        });
    }

private:
    const SparseMatrix& a_;
    std::unique_ptr<Executor> exec_;
    std::shared_ptr<void> plan_;  // SpmmPlan<V, I> for A's types; shared_ptr<void> keeps the right deleter
};

}  // namespace

void bind_spmm(nb::module_& m) {
    using namespace nb::literals;
    m.def("spmm", &spmm, "a"_a, "b"_a, "c"_a, "reduce"_a, "alpha"_a, "beta"_a, "transpose_a"_a, "arg"_a.none(), "deterministic"_a,
          "config"_a, "stream"_a, "threads"_a);
    nb::class_<AnySpmmPlan>(m, "SpmmPlan")
        .def(nb::init<const SparseMatrix&, std::int64_t, const std::string&, double, double, bool, bool, const std::string&, std::uintptr_t,
                      int>(),
             "a"_a, "n"_a, "reduce"_a, "alpha"_a, "beta"_a, "transpose_a"_a, "deterministic"_a, "config"_a, "stream"_a, "threads"_a,
             nb::keep_alive<1, 2>())
        .def("run", &AnySpmmPlan::run, "b"_a, "c"_a, "arg"_a.none(), "values"_a.none() = nb::none())
        .def_prop_ro("config", &AnySpmmPlan::config);
}

}  // namespace spk::python
