// Without CUDA, the CUDA SpMM declarations throw Unsupported.
// Built only without CUDA: src/cuda/spmm/ implements these when CUDA is built.
#include "core/instantiate.hpp"
#include "core/spmm_kernels.hpp"
#include "cuda_stub/missing.hpp"

namespace spk::detail::cuda {

struct SpmmState {};

template <class V, class I>
std::shared_ptr<const SpmmState> spmm_analyse(const Executor&, CsrView<const V, I>, index_t, const SpmmOptions&) {
    missing_kernel("spmm");
}
template <class V, class I>
void spmm(const Executor&, const SpmmState&, const SpmmArgs<V, I>&) {
    missing_kernel("spmm");
}
std::string spmm_describe(const SpmmState&) { return "none"; }
const SpmmFeatures& spmm_features(const SpmmState&) { missing_kernel("spmm"); }
template <class V, class I>
Csr<V, I> transpose(const Executor&, CsrView<const V, I>) {
    missing_kernel("transposed spmm");
}

#define SPK_INSTANTIATE(V, I)                                                                                                  \
    template std::shared_ptr<const SpmmState> spmm_analyse(const Executor&, CsrView<const V, I>, index_t, const SpmmOptions&); \
    template void spmm(const Executor&, const SpmmState&, const SpmmArgs<V, I>&);                                       \
    template Csr<V, I> transpose(const Executor&, CsrView<const V, I>);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
