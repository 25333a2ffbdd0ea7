// Without CUDA, the CUDA FusedMM declarations throw Unsupported.
// Built only without CUDA: src/cuda/fusedmm/ implements these when CUDA is built.
#include "core/fusedmm_kernels.hpp"
#include "core/instantiate.hpp"
#include "core/transposed_pattern.hpp"
#include "cuda_stub/missing.hpp"

namespace spk::detail::cuda {

template <class V, class I>
void fusedmm_forward(const Executor&, const FusedForwardArgs<V, I>&, const std::string&) {
    missing_kernel("fusedmm");
}
template <class V, class I>
void fusedmm_backward(const Executor&, const FusedBackwardArgs<V, I>&, const std::string&) {
    missing_kernel("fusedmm backward");
}

#define SPK_INSTANTIATE(V, I)                                                                          \
    template void fusedmm_forward(const Executor&, const FusedForwardArgs<V, I>&, const std::string&); \
    template void fusedmm_backward(const Executor&, const FusedBackwardArgs<V, I>&, const std::string&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

template <class I>
DeviceTransposedPattern<I> transposed_pattern(const Executor&, const I*, const I*, index_t, index_t, index_t) {
    missing_kernel("transposed pattern");
}
template DeviceTransposedPattern<std::int32_t> transposed_pattern(const Executor&, const std::int32_t*, const std::int32_t*, index_t,
                                                                  index_t, index_t);
template DeviceTransposedPattern<std::int64_t> transposed_pattern(const Executor&, const std::int64_t*, const std::int64_t*, index_t,
                                                                  index_t, index_t);

}  // namespace spk::detail::cuda
