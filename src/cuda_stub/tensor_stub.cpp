// MTTKRP and TTM on CUDA when spk is built without CUDA: the declarations throw Unsupported
// (src/cuda/tensor/ implements them in a CUDA build).
#include "core/instantiate.hpp"
#include "core/tensor_kernels.hpp"
#include "cuda_stub/missing.hpp"

namespace spk::detail::cuda {

template <class V, class I>
void mttkrp(const Executor&, const MttkrpArgs<V, I>&, const std::string&) {
    missing_kernel("mttkrp");
}
template <class V, class I>
void ttm(const Executor&, const TtmArgs<V, I>&, const std::string&) {
    missing_kernel("ttm");
}

#define SPK_INSTANTIATE(V, I)                                                           \
    template void mttkrp(const Executor&, const MttkrpArgs<V, I>&, const std::string&); \
    template void ttm(const Executor&, const TtmArgs<V, I>&, const std::string&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
