// CUDA SpGEMM numeric phase for double values (one file per value type keeps builds parallel).
#include "cuda/spgemm/numeric.cuh"

namespace spk::detail::cuda {

template void spgemm_numeric(const Executor&, const SpgemmProblem<double, std::int32_t>&, const SpgemmAnalysis&, std::int32_t*, double*);
template void spgemm_numeric(const Executor&, const SpgemmProblem<double, std::int64_t>&, const SpgemmAnalysis&, std::int64_t*, double*);

}  // namespace spk::detail::cuda
