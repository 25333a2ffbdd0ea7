// CUDA SpGEMM is not built yet: the declarations throw Unsupported.
// This file goes away when src/cuda/spgemm/ implements detail::cuda::spgemm_symbolic/numeric.
#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"
#include "cuda_stub/ops/missing.hpp"

namespace spk::detail::cuda {

template <class V, class I>
SpgemmAnalysis spgemm_symbolic(const Executor&, const SpgemmProblem<V, I>&) {
    missing_kernel("spgemm");
}
template <class V, class I>
void spgemm_numeric(const Executor&, const SpgemmProblem<V, I>&, const SpgemmAnalysis&, I*, V*) {
    missing_kernel("spgemm");
}

#define SPK_INSTANTIATE(V, I)                                                             \
    template SpgemmAnalysis spgemm_symbolic(const Executor&, const SpgemmProblem<V, I>&); \
    template void spgemm_numeric(const Executor&, const SpgemmProblem<V, I>&, const SpgemmAnalysis&, I*, V*);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
