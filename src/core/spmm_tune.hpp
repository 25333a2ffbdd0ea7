#pragma once
// The CUDA SpMM plan's choice of configuration: explicit string, selector, tuning cache or
// measurement (spk::Tune).
#include <memory>

#include "core/spmm_kernels.hpp"

namespace spk::detail {

template <class V, class I>
std::shared_ptr<const cuda::SpmmState> plan_cuda_spmm(const Executor& exec, CsrView<const V, I> a, index_t n, const SpmmOptions& options);

}  // namespace spk::detail
