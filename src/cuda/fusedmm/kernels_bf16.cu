// FusedMM kernels for __nv_bfloat16 values (one file per value type keeps builds parallel).
#include "cuda/fusedmm/launch.cuh"

namespace spk::detail::cuda::fused {

SPK_FUSED_LAUNCHES(__nv_bfloat16, std::int32_t)
SPK_FUSED_LAUNCHES(__nv_bfloat16, std::int64_t)

}  // namespace spk::detail::cuda::fused
