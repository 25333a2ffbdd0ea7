// FusedMM forward and backward, as module functions (a plan a call) and as FusedPlan (kept across calls). The forward
// pass writes the O(rows x heads) statistics it keeps (and the nnz x heads attention, when the plan saves it) straight
// into caller arrays (so PyTorch can keep them as tensors), and the backward pass reads them there: no copies and no
// wait for the device (FusedSavedOut, FusedSavedIn).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "arrays.hpp"
#include "bindings.hpp"

namespace spk::python {

namespace {

FusedOptions make_options(const std::string& score, const std::string& edge, double edge_param, const std::string& normalize,
                          const std::string& aggregate, int heads) {
    FusedOptions o;
    o.score = parse_choice("score", score, all_scores);
    const Edge::Kind kind = parse_choice("edge", edge, all_edge_kinds);
    o.edge = {kind, Edge::takes_param(kind) ? static_cast<float>(edge_param) : 0.0f};
    o.normalize = parse_choice("normalize", normalize, all_normalizations);
    o.aggregate = parse_choice("aggregate", aggregate, all_aggregations);
    o.heads = heads;
    return o;
}

// A caller array of rows x cols values, row-major and tight (tight_in / tight_out checked it), as a view; empty
// when there is none.
template <class T>
DenseView<T> tight_view(T* data, std::int64_t rows, std::int64_t cols, MemorySpace space) {
    if (data == nullptr) return {};
    return {data, rows, cols, cols, Layout::row_major, space};
}

// A FusedPlan for A's types. The plan keeps views of A's arrays (and of Aᵀ's pattern, when given): the Python
// object keeps A alive, the caller the pattern. A plan kept across calls keeps its long-row search and Aᵀ's pattern:
// its calls launch no search and wait for nothing (FusedPlan); the module functions make one per call.
class AnyFusedPlan {
public:
    // t_col_ptr, t_row_idx, t_entry: Aᵀ's pattern kept by the caller (FusedPlan::use_transposed_pattern), or none.
    // save_attention: the forward pass keeps α (nnz x heads) for the backward, which then reads it.
    // edge_terms: FusedOptions::backward_edge_terms (more scratch for a faster backward). config: FusedOptions::config
    // (the CUDA forward's row teams).
    AnyFusedPlan(const SparseMatrix& a, const std::string& score, const std::string& edge, double edge_param, const std::string& normalize,
                 const std::string& aggregate, int heads, bool save_attention, bool edge_terms, const MaybeIn& t_col_ptr,
                 const MaybeIn& t_row_idx, const MaybeIn& t_entry, std::uintptr_t stream, int threads, const std::string& config = "auto")
        : a_(a), options_(make_options(score, edge, edge_param, normalize, aggregate, heads)) {
        options_.save_attention = save_attention;
        options_.backward_edge_terms = edge_terms;
        options_.config = config;
        Placement place;
        place.add(a.indptr(), "A");
        place.add(t_col_ptr, "t_col_ptr");
        place.add(t_row_idx, "t_row_idx");
        place.add(t_entry, "t_entry");
        if (t_col_ptr.has_value() != t_row_idx.has_value() || t_col_ptr.has_value() != t_entry.has_value())
            throw nb::value_error("t_col_ptr, t_row_idx and t_entry: give all three or none");
        exec_ = std::make_unique<Executor>(place.executor(stream, threads));
        dispatch_all(a.value_type(), a.index_type(), [&]<class V, class I>() {
            auto plan = std::make_shared<FusedPlan<V, I>>(*exec_, a.view<V, I>(), options_);
            if (t_col_ptr)
                plan->use_transposed_pattern(vector_in<I>(*t_col_ptr, "t_col_ptr", a.cols() + 1),
                                             vector_in<I>(*t_row_idx, "t_row_idx", a.nnz()), vector_in<I>(*t_entry, "t_entry", a.nnz()));
            plan_ = std::move(plan);
        });
    }

    // attention: where to keep α (nnz x heads); needed exactly when the plan saves it.
    void forward(const MaybeIn& x, const MaybeIn& y, const InArray& z, const OutArray& e, const MaybeOut& row_max, const MaybeOut& row_sum,
                 const MaybeOut& argmax, const MaybeOut& attention) const {
        if (attention.has_value() != options_.save_attention)
            throw nb::value_error(options_.save_attention ? "attention: the plan saves the attention, give an array for it"
                                                          : "attention: the plan was made without save_attention");
        const Placement place = placement(x, y, z, e, row_max, row_sum, argmax, attention);
        const int heads = options_.heads;
        dispatch_all(a_.value_type(), a_.index_type(), [&]<class V, class I>() {
            using Stat = typename FusedSaved<V, I>::Stat;
            const auto xv = dense_in<V>(x, "X");
            const auto yv = dense_in<V>(y, "Y");
            const auto zv = dense_in<V>(z, "Z");
            const auto ev = dense_out<V>(e, "E");
            // Where the statistics go (checked before the work starts).
            Stat* max_to = nullptr;
            Stat* sum_to = nullptr;
            I* arg_to = nullptr;
            if (options_.normalize == Normalize::softmax) {
                if (!row_max || !row_sum) throw nb::value_error("row_max and row_sum are needed for normalize='softmax'");
                max_to = tight_out<Stat>(*row_max, "row_max", a_.rows(), heads);
                sum_to = tight_out<Stat>(*row_sum, "row_sum", a_.rows(), heads);
            }
            if (options_.aggregate == Aggregate::max) {
                if (!argmax) throw nb::value_error("argmax is needed for aggregate='max'");
                arg_to = tight_out<I>(*argmax, "argmax", a_.rows(), zv.cols);
            }
            V* attention_to = attention ? tight_out<V>(*attention, "attention", a_.nnz(), heads) : nullptr;
            const MemorySpace space = place.space();
            const FusedSavedOut<V, I> saved{tight_view(max_to, a_.rows(), heads, space), tight_view(sum_to, a_.rows(), heads, space),
                                            tight_view(arg_to, a_.rows(), zv.cols, space),
                                            tight_view(attention_to, a_.nnz(), heads, space)};
            nb::gil_scoped_release nogil;
            plan<V, I>().forward(xv, yv, zv, ev, saved);
        });
    }

    // e: the forward pass's output, or none (FusedPlan::backward). attention: what the forward pass kept, or none.
    void backward(const InArray& de, const MaybeIn& x, const MaybeIn& y, const InArray& z, const MaybeIn& e, const MaybeIn& row_max,
                  const MaybeIn& row_sum, const MaybeIn& argmax, const MaybeIn& attention, const MaybeOut& dx, const MaybeOut& dy,
                  const MaybeOut& dz, const MaybeOut& da) const {
        Placement place = placement(x, y, z, e, row_max, row_sum, argmax, attention);
        place.add(de, "dE");
        place.add(dx, "dX");
        place.add(dy, "dY");
        place.add(dz, "dZ");
        place.add(da, "dA");
        const int heads = options_.heads;
        dispatch_all(a_.value_type(), a_.index_type(), [&]<class V, class I>() {
            using Stat = typename FusedSaved<V, I>::Stat;
            const auto dev = dense_in<V>(de, "dE");
            const auto xv = dense_in<V>(x, "X");
            const auto yv = dense_in<V>(y, "Y");
            const auto zv = dense_in<V>(z, "Z");
            const auto ev = dense_in<V>(e, "E");
            const auto dxv = dense_out<V>(dx, "dX");
            const auto dyv = dense_out<V>(dy, "dY");
            const auto dzv = dense_out<V>(dz, "dZ");
            const auto dav = dense_out<V>(da, "dA");
            const Stat* max_from = nullptr;
            const Stat* sum_from = nullptr;
            const I* arg_from = nullptr;
            if (options_.normalize == Normalize::softmax) {
                if (!row_max || !row_sum)
                    throw nb::value_error("row_max and row_sum (from the forward pass) are needed for normalize='softmax'");
                max_from = tight_in<Stat>(*row_max, "row_max", a_.rows(), heads);
                sum_from = tight_in<Stat>(*row_sum, "row_sum", a_.rows(), heads);
            }
            if (options_.aggregate == Aggregate::max) {
                if (!argmax) throw nb::value_error("argmax (from the forward pass) is needed for aggregate='max'");
                arg_from = tight_in<I>(*argmax, "argmax", a_.rows(), zv.cols);
            }
            const V* attention_from = attention ? tight_in<V>(*attention, "attention", a_.nnz(), heads) : nullptr;
            const MemorySpace space = place.space();
            const FusedSavedIn<V, I> saved{tight_view(max_from, a_.rows(), heads, space), tight_view(sum_from, a_.rows(), heads, space),
                                           tight_view(arg_from, a_.rows(), zv.cols, space),
                                           tight_view(attention_from, a_.nnz(), heads, space)};
            nb::gil_scoped_release nogil;
            plan<V, I>().backward(dev, saved, xv, yv, zv, dxv, dyv, dzv, dav, ev);
        });
    }

private:
    const SparseMatrix& a_;
    FusedOptions options_;
    std::unique_ptr<Executor> exec_;
    std::shared_ptr<void> plan_;  // FusedPlan<V, I> for A's types; shared_ptr<void> keeps the right deleter

    // A and the arrays both passes take, checked to live on one device.
    template <class E, class Saved>
    Placement placement(const MaybeIn& x, const MaybeIn& y, const InArray& z, const E& e, const Saved& row_max, const Saved& row_sum,
                        const Saved& argmax, const Saved& attention) const {
        Placement place;
        place.add(a_.indptr(), "A");
        place.add(x, "X");
        place.add(y, "Y");
        place.add(z, "Z");
        place.add(e, "E");
        place.add(row_max, "row_max");
        place.add(row_sum, "row_sum");
        place.add(argmax, "argmax");
        place.add(attention, "attention");
        return place;
    }

    template <class V, class I>
    const FusedPlan<V, I>& plan() const {
        return *static_cast<const FusedPlan<V, I>*>(plan_.get());
    }
};

// The module functions: a plan for one call.
void forward(const SparseMatrix& a, const MaybeIn& x, const MaybeIn& y, const InArray& z, const OutArray& e, const std::string& score,
             const std::string& edge, double edge_param, const std::string& normalize, const std::string& aggregate, int heads,
             const MaybeOut& row_max, const MaybeOut& row_sum, const MaybeOut& argmax, const MaybeOut& attention, std::uintptr_t stream,
             int threads) {
    const AnyFusedPlan plan(a, score, edge, edge_param, normalize, aggregate, heads, attention.has_value(), false, {}, {}, {}, stream,
                            threads);
    plan.forward(x, y, z, e, row_max, row_sum, argmax, attention);
}

void backward(const SparseMatrix& a, const InArray& de, const MaybeIn& x, const MaybeIn& y, const InArray& z, const MaybeIn& e,
              const MaybeIn& row_max, const MaybeIn& row_sum, const MaybeIn& argmax, const MaybeIn& attention, const MaybeOut& dx,
              const MaybeOut& dy, const MaybeOut& dz, const MaybeOut& da, const std::string& score, const std::string& edge,
              double edge_param, const std::string& normalize, const std::string& aggregate, int heads, const MaybeIn& t_col_ptr,
              const MaybeIn& t_row_idx, const MaybeIn& t_entry, std::uintptr_t stream, int threads, bool edge_terms) {
    const AnyFusedPlan plan(a, score, edge, edge_param, normalize, aggregate, heads, attention.has_value(), edge_terms, t_col_ptr,
                            t_row_idx, t_entry, stream, threads);
    plan.backward(de, x, y, z, e, row_max, row_sum, argmax, attention, dx, dy, dz, da);
}

}  // namespace

void bind_fusedmm(nb::module_& m) {
    using namespace nb::literals;
    m.def("fusedmm_forward", &forward, "a"_a, "x"_a.none(), "y"_a.none(), "z"_a, "e"_a, "score"_a, "edge"_a, "edge_param"_a, "normalize"_a,
          "aggregate"_a, "heads"_a, "row_max"_a.none(), "row_sum"_a.none(), "argmax"_a.none(), "attention"_a.none(), "stream"_a,
          "threads"_a);
    m.def("fusedmm_backward", &backward, "a"_a, "de"_a, "x"_a.none(), "y"_a.none(), "z"_a, "e"_a.none(), "row_max"_a.none(),
          "row_sum"_a.none(), "argmax"_a.none(), "attention"_a.none(), "dx"_a.none(), "dy"_a.none(), "dz"_a.none(), "da"_a.none(),
          "score"_a, "edge"_a, "edge_param"_a, "normalize"_a, "aggregate"_a, "heads"_a, "t_col_ptr"_a.none(), "t_row_idx"_a.none(),
          "t_entry"_a.none(), "stream"_a, "threads"_a, "edge_terms"_a = false);
    nb::class_<AnyFusedPlan>(m, "FusedPlan")
        .def(nb::init<const SparseMatrix&, const std::string&, const std::string&, double, const std::string&, const std::string&, int,
                      bool, bool, const MaybeIn&, const MaybeIn&, const MaybeIn&, std::uintptr_t, int, const std::string&>(),
             "a"_a, "score"_a, "edge"_a, "edge_param"_a, "normalize"_a, "aggregate"_a, "heads"_a, "save_attention"_a, "edge_terms"_a,
             "t_col_ptr"_a.none(), "t_row_idx"_a.none(), "t_entry"_a.none(), "stream"_a, "threads"_a, "config"_a = "auto",
             nb::keep_alive<1, 2>())
        .def("forward", &AnyFusedPlan::forward, "x"_a.none(), "y"_a.none(), "z"_a, "e"_a, "row_max"_a.none(), "row_sum"_a.none(),
             "argmax"_a.none(), "attention"_a.none())
        .def("backward", &AnyFusedPlan::backward, "de"_a, "x"_a.none(), "y"_a.none(), "z"_a, "e"_a.none(), "row_max"_a.none(),
             "row_sum"_a.none(), "argmax"_a.none(), "attention"_a.none(), "dx"_a.none(), "dy"_a.none(), "dz"_a.none(), "da"_a.none());
}

}  // namespace spk::python
