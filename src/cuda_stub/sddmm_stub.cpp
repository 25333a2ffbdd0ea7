// SDDMM on CUDA when spk is built without CUDA: the declarations throw Unsupported
// (src/cuda/sddmm/ implements them in a CUDA build).
#include "core/instantiate.hpp"
#include "core/sddmm_kernels.hpp"
#include "cuda_stub/missing.hpp"

namespace spk::detail::cuda {

template <class V, class I>
void sddmm(const Executor&, const SddmmArgs<V, I>&) {
    missing_kernel("sddmm");
}
template <class V, class I>
void sddmm_backward(const Executor&, const SddmmBackwardArgs<V, I>&) {
    missing_kernel("sddmm_backward");
}

#define SPK_INSTANTIATE(V, I)                                     \
    template void sddmm(const Executor&, const SddmmArgs<V, I>&); \
    template void sddmm_backward(const Executor&, const SddmmBackwardArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
