// FusedMM kernels for double values (one file per value type keeps builds parallel).
#include "cuda/fusedmm/launch.cuh"

namespace spk::detail::cuda::fused {

SPK_FUSED_LAUNCHES(double, std::int32_t)
SPK_FUSED_LAUNCHES(double, std::int64_t)

}  // namespace spk::detail::cuda::fused
