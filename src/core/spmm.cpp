// SpMM front end: validate, plan (materialise op(A), pick a kernel), dispatch to a backend.
#include "spk/spmm.hpp"

#include <optional>

#include "core/check.hpp"
#include "core/instantiate.hpp"
#include "core/spmm_kernels.hpp"
#include "core/spmm_tune.hpp"

namespace spk {

std::string_view to_string(Reduce r) noexcept {
    switch (r) {
        case Reduce::sum:
            return "sum";
        case Reduce::mean:
            return "mean";
        case Reduce::max:
            return "max";
        case Reduce::min:
            return "min";
    }
    return "?";
}

template <class V, class I>
struct SpmmPlan<V, I>::Impl {
    Executor exec;
    CsrView<const V, I> a;                // op(A): the user's A, or transposed below
    std::optional<Csr<V, I>> transposed;  // owns Aᵀ when transpose_a
    index_t n;
    SpmmOptions options;
    std::shared_ptr<const detail::cuda::SpmmState> cuda;  // CUDA plans only
};

template <class V, class I>
SpmmPlan<V, I>::SpmmPlan(const Executor& exec, CsrView<const V, I> a, index_t n, SpmmOptions options) {
    detail::check_csr(a, exec, "A");
    if (n < 0) invalid_argument("SpmmPlan: n must be >= 0, got " + std::to_string(n));
    impl_ = std::make_unique<Impl>(Impl{exec, a, std::nullopt, n, options, nullptr});
    if (options.transpose_a) {
        // Materialise Aᵀ once per plan, in A's memory space: a cost of the plan, never of run().
        impl_->transposed = exec.is_host() ? transpose(a) : detail::cuda::transpose(exec, a);
        impl_->a = impl_->transposed->view();
    }
    if (exec.backend() == Backend::cuda) impl_->cuda = detail::plan_cuda_spmm(exec, impl_->a, n, options);
}

template <class V, class I>
SpmmPlan<V, I>::~SpmmPlan() = default;
template <class V, class I>
SpmmPlan<V, I>::SpmmPlan(SpmmPlan&&) noexcept = default;
template <class V, class I>
SpmmPlan<V, I>& SpmmPlan<V, I>::operator=(SpmmPlan&&) noexcept = default;

template <class V, class I>
std::string SpmmPlan<V, I>::config() const {
    switch (impl_->exec.backend()) {
        case Backend::reference:
            return "reference";
        case Backend::cpu:
            return "cpu";
        case Backend::cuda:
            return detail::cuda::spmm_describe(*impl_->cuda);
    }
    return "?";
}

namespace {

// One run of plan p over a (p's op(A), or its pattern with other values).
template <class V, class I>
void run_plan(const typename SpmmPlan<V, I>::Impl& p, CsrView<const V, I> a, DenseView<const V> b, DenseView<V> c, DenseView<I> arg) {
    detail::check_dense(b, p.exec, "B");
    detail::check_dense(c, p.exec, "C");
    detail::check_shape(b, p.a.cols, p.n, "B");
    detail::check_shape(c, p.a.rows, p.n, "C");
    if (arg.data != nullptr) {
        if (p.options.reduce != Reduce::max && p.options.reduce != Reduce::min)
            invalid_argument("arg: only max and min reductions return arg indices, reduce is " + std::string(to_string(p.options.reduce)));
        detail::check_dense(arg, p.exec, "arg");
        detail::check_shape(arg, p.a.rows, p.n, "arg");
    }
    const detail::SpmmArgs<V, I> args{a, b, c, arg, p.options.reduce, p.options.alpha, p.options.beta};
    switch (p.exec.backend()) {
        case Backend::reference:
            detail::reference::spmm(p.exec, args);
            break;
        case Backend::cpu:
            detail::cpu::spmm(p.exec, args);
            break;
        case Backend::cuda:
            detail::cuda::spmm(p.exec, *p.cuda, args);
            break;
    }
}

}  // namespace

template <class V, class I>
void SpmmPlan<V, I>::run(DenseView<const V> b, DenseView<V> c, DenseView<I> arg) const {
    run_plan<V, I>(*impl_, impl_->a, b, c, arg);
}

template <class V, class I>
void SpmmPlan<V, I>::run_with_values(DenseView<const V> values, DenseView<const V> b, DenseView<V> c, DenseView<I> arg) const {
    const Impl& p = *impl_;
    if (p.transposed)
        invalid_argument("values: the plan was made with transpose_a and holds its own copy of Aᵀ's values; make the plan over Aᵀ instead");
    detail::check_dense(values, p.exec, "values");
    detail::check_shape(values, p.a.nnz, 1, "values");
    if (values.layout == Layout::row_major && values.rows > 1 && values.ld != 1)
        invalid_argument("values: must be contiguous (a row-major nnz x 1 view with leading dimension 1), got ld " + std::to_string(values.ld));
    CsrView<const V, I> a = p.a;
    a.values = values.data;
    run_plan<V, I>(p, a, b, c, arg);
}

template <class V, class I>
void spmm(const Executor& exec, CsrView<const V, I> a, std::type_identity_t<DenseView<const V>> b, std::type_identity_t<DenseView<V>> c,
          const SpmmOptions& options, std::type_identity_t<DenseView<I>> arg) {
    SpmmPlan<V, I>(exec, a, b.cols, options).run(b, c, arg);
}

#define SPK_INSTANTIATE(V, I)      \
    template class SpmmPlan<V, I>; \
    template void spmm(const Executor&, CsrView<const V, I>, DenseView<const V>, DenseView<V>, const SpmmOptions&, DenseView<I>);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
