// CUDA SpMM is not built yet: the declaration throws Unsupported.
// This file goes away when src/cuda/spmm/ implements detail::cuda::spmm.
#include "core/instantiate.hpp"
#include "core/spmm_kernels.hpp"
#include "cuda_stub/ops/missing.hpp"

namespace spk::detail::cuda {

template <class V, class I> void spmm(const Executor&, const SpmmArgs<V, I>&, const std::string&) { missing_kernel("spmm"); }

#define SPK_INSTANTIATE(V, I) template void spmm(const Executor&, const SpmmArgs<V, I>&, const std::string&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

} // namespace spk::detail::cuda
