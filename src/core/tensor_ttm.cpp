// TTM front end: the plan builds the CSF whose leaf is the product's mode and the output fibers'
// coordinates; run() validates and dispatches.
#include "core/check.hpp"
#include "core/instantiate.hpp"
#include "core/tensor_kernels.hpp"
#include "core/tensor_modes.hpp"
#include "spk/tensor.hpp"

namespace spk {

template <class V, class I>
struct TtmPlan<V, I>::Impl {
    Executor exec;
    int mode;
    Csf<V, I> csf;
    std::array<Array<I>, 2> fiber_idx;  // each fiber's root and middle coordinates
    std::string config;
};

template <class V, class I>
TtmPlan<V, I>::TtmPlan(const Executor& exec, const CooTensor3<V, I>& x, int mode) {
    detail::check_mode(mode, "TtmPlan");
    Csf<V, I> host = to_csf(x, detail::ttm_order(mode));
    // The root coordinate of every fiber: its slice's id, repeated over the slice's fibers.
    std::vector<I> roots(static_cast<std::size_t>(host.fibers()));
    for (index_t s = 0; s < host.slices(); ++s)
        for (I f = host.slice_ptr()[static_cast<std::size_t>(s)]; f < host.slice_ptr()[static_cast<std::size_t>(s + 1)]; ++f)
            roots[static_cast<std::size_t>(f)] = host.slice_ids()[static_cast<std::size_t>(s)];
    std::array<Array<I>, 2> fiber_idx{Array<I>(exec, roots), host.fiber_ids().to(exec)};
    Csf<V, I> csf = exec.is_host() ? std::move(host) : host.to(exec);
    std::string config = exec.backend() == Backend::reference ? "reference" : exec.backend() == Backend::cpu ? "cpu.fibers" : "auto";
    impl_ = std::make_unique<Impl>(Impl{exec, mode, std::move(csf), std::move(fiber_idx), std::move(config)});
}

template <class V, class I>
TtmPlan<V, I>::~TtmPlan() = default;
template <class V, class I>
TtmPlan<V, I>::TtmPlan(TtmPlan&&) noexcept = default;
template <class V, class I>
TtmPlan<V, I>& TtmPlan<V, I>::operator=(TtmPlan&&) noexcept = default;

template <class V, class I>
int TtmPlan<V, I>::mode() const {
    return impl_->mode;
}
template <class V, class I>
index_t TtmPlan<V, I>::fibers() const {
    return impl_->csf.fibers();
}
template <class V, class I>
const Csf<V, I>& TtmPlan<V, I>::csf() const {
    return impl_->csf;
}
template <class V, class I>
std::string TtmPlan<V, I>::config() const {
    return impl_->config;
}

namespace {

template <class V, class I>
void check_u(const typename TtmPlan<V, I>::Impl& p, DenseView<const V> u) {
    const std::string m = std::to_string(p.mode);
    detail::check_dense(u, p.exec, "U");
    const index_t dim = p.csf.dims()[static_cast<std::size_t>(p.mode)];
    if (u.cols != dim)
        shape_mismatch("U (TTM in mode " + m + "): shape " + detail::shape_string(u.rows, u.cols) + ", expected R x " +
                       std::to_string(dim) + " (columns = dims[" + m + "])");
}

}  // namespace

template <class V, class I>
void TtmPlan<V, I>::run(DenseView<const V> u, DenseView<V> y) const {
    const Impl& p = *impl_;
    check_u<V, I>(p, u);
    detail::check_dense(y, p.exec, "Y");
    detail::check_shape(y, p.csf.fibers(), u.rows, "Y (TTM in mode " + std::to_string(p.mode) + ", fibers x R)");
    const detail::TtmArgs<V, I> args{p.csf.view(), u, y};
    switch (p.exec.backend()) {
        case Backend::reference:
            detail::reference::ttm(p.exec, args);
            break;
        case Backend::cpu:
            detail::cpu::ttm(p.exec, args);
            break;
        case Backend::cuda:
            detail::cuda::ttm(p.exec, args, p.config);
            break;
    }
}

template <class V, class I>
SemiSparseTensor3<V, I> TtmPlan<V, I>::run(DenseView<const V> u) const {
    const Impl& p = *impl_;
    check_u<V, I>(p, u);
    SemiSparseTensor3<V, I> y;
    y.dims = p.csf.dims();
    y.dims[static_cast<std::size_t>(p.mode)] = u.rows;
    y.mode = p.mode;
    y.sparse_modes = detail::other_modes(p.mode);
    y.fiber_idx = {p.fiber_idx[0].to(p.exec), p.fiber_idx[1].to(p.exec)};
    y.values = Dense<V>(p.exec, p.csf.fibers(), u.rows);
    run(u, y.values.view());
    return y;
}

template <class V, class I>
SemiSparseTensor3<V, I> ttm(const Executor& exec, const CooTensor3<V, I>& x, int mode, DenseView<const V> u) {
    return TtmPlan<V, I>(exec, x, mode).run(u);
}

#define SPK_INSTANTIATE(V, I)     \
    template class TtmPlan<V, I>; \
    template SemiSparseTensor3<V, I> ttm(const Executor&, const CooTensor3<V, I>&, int, DenseView<const V>);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
