// CUDA SpGEMM numeric phase for float values (one file per value type keeps builds parallel).
#include "cuda/spgemm/numeric.cuh"

namespace spk::detail::cuda {

template void spgemm_numeric(const Executor&, const SpgemmProblem<float, std::int32_t>&, const SpgemmAnalysis&, std::int32_t*, float*);
template void spgemm_numeric(const Executor&, const SpgemmProblem<float, std::int64_t>&, const SpgemmAnalysis&, std::int64_t*, float*);

}  // namespace spk::detail::cuda
