// MTTKRP front end: the plan builds one CSF per planned mode; run() validates and dispatches.
#include <optional>

#include "core/check.hpp"
#include "core/instantiate.hpp"
#include "core/tensor_kernels.hpp"
#include "core/tensor_modes.hpp"
#include "spk/tensor.hpp"

namespace spk {

template <class V, class I>
struct MttkrpPlan<V, I>::Impl {
    Executor exec;
    std::array<index_t, 3> dims;
    index_t nnz = 0;
    std::array<std::optional<Csf<V, I>>, 3> csf;  // csf[n]: rooted at mode n, when planned
    std::string config;
};

template <class V, class I>
MttkrpPlan<V, I>::MttkrpPlan(const Executor& exec, const CooTensor3<V, I>& x, const std::vector<int>& modes) {
    if (modes.empty()) invalid_argument("MttkrpPlan: modes is empty (plan at least one of 0, 1, 2)");
    impl_ = std::make_unique<Impl>(Impl{exec, x.dims, 0, {}, {}});
    for (int mode : modes) {
        detail::check_mode(mode, "MttkrpPlan");
        auto& slot = impl_->csf[static_cast<std::size_t>(mode)];
        if (slot) continue;
        Csf<V, I> host = to_csf(x, detail::mttkrp_order(mode, x.dims));
        impl_->nnz = host.nnz();
        slot = exec.is_host() ? std::move(host) : host.to(exec);
    }
    switch (exec.backend()) {
        case Backend::reference:
            impl_->config = "reference";
            break;
        case Backend::cpu:
            impl_->config = "cpu.csf";
            break;
        case Backend::cuda:
            impl_->config = "auto";
            break;
    }
}

template <class V, class I>
MttkrpPlan<V, I>::~MttkrpPlan() = default;
template <class V, class I>
MttkrpPlan<V, I>::MttkrpPlan(MttkrpPlan&&) noexcept = default;
template <class V, class I>
MttkrpPlan<V, I>& MttkrpPlan<V, I>::operator=(MttkrpPlan&&) noexcept = default;

template <class V, class I>
const std::array<index_t, 3>& MttkrpPlan<V, I>::dims() const {
    return impl_->dims;
}
template <class V, class I>
index_t MttkrpPlan<V, I>::nnz() const {
    return impl_->nnz;
}
template <class V, class I>
std::string MttkrpPlan<V, I>::config() const {
    return impl_->config;
}

template <class V, class I>
const Csf<V, I>& MttkrpPlan<V, I>::csf(int mode) const {
    detail::check_mode(mode, "MttkrpPlan::csf");
    const auto& slot = impl_->csf[static_cast<std::size_t>(mode)];
    if (!slot) invalid_argument("MttkrpPlan::csf: mode " + std::to_string(mode) + " was not planned");
    return *slot;
}

template <class V, class I>
void MttkrpPlan<V, I>::run(int mode, const std::array<DenseView<const V>, 3>& factors, DenseView<V> out) const {
    const Impl& p = *impl_;
    detail::check_mode(mode, "MttkrpPlan::run");
    const auto& csf = p.csf[static_cast<std::size_t>(mode)];
    if (!csf) invalid_argument("MttkrpPlan::run: mode " + std::to_string(mode) + " was not planned (pass it in the plan's modes)");
    const std::string m = std::to_string(mode);
    detail::check_dense(out, p.exec, "out");
    const index_t rank = out.cols;
    detail::check_shape(out, p.dims[static_cast<std::size_t>(mode)], rank, "out (MTTKRP in mode " + m + ")");
    for (int f = 0; f < 3; ++f) {
        if (f == mode) continue;
        const std::string name = "factors[" + std::to_string(f) + "] (MTTKRP in mode " + m + ")";
        detail::check_dense(factors[static_cast<std::size_t>(f)], p.exec, name);
        detail::check_shape(factors[static_cast<std::size_t>(f)], p.dims[static_cast<std::size_t>(f)], rank, name);
    }
    const CsfView<const V, I> x = csf->view();
    const detail::MttkrpArgs<V, I> args{x, factors[static_cast<std::size_t>(x.order[1])], factors[static_cast<std::size_t>(x.order[2])],
                                        out};
    switch (p.exec.backend()) {
        case Backend::reference:
            detail::reference::mttkrp(p.exec, args);
            break;
        case Backend::cpu:
            detail::cpu::mttkrp(p.exec, args);
            break;
        case Backend::cuda:
            detail::cuda::mttkrp(p.exec, args, p.config);
            break;
    }
}

template <class V, class I>
void mttkrp(const Executor& exec, const CooTensor3<V, I>& x, int mode, const std::array<DenseView<const V>, 3>& factors, DenseView<V> out) {
    detail::check_mode(mode, "mttkrp");
    MttkrpPlan<V, I>(exec, x, {mode}).run(mode, factors, out);
}

#define SPK_INSTANTIATE(V, I)        \
    template class MttkrpPlan<V, I>; \
    template void mttkrp(const Executor&, const CooTensor3<V, I>&, int, const std::array<DenseView<const V>, 3>&, DenseView<V>);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
