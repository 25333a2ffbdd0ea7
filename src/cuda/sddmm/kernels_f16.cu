// SDDMM kernels for f16 values (one file per value type keeps builds parallel).
#include <cstdint>

#include "cuda/sddmm/launch.cuh"

namespace spk::detail::cuda {

template void launch_dot<__half, std::int32_t>(const SddmmShape&, const DotArgs<__half, std::int32_t>&, cudaStream_t);
template void launch_dot<__half, std::int64_t>(const SddmmShape&, const DotArgs<__half, std::int64_t>&, cudaStream_t);
template void launch_rows<__half, std::int32_t>(const SddmmRowsShape&, const DotArgs<__half, std::int32_t>&, cudaStream_t);
template void launch_rows<__half, std::int64_t>(const SddmmRowsShape&, const DotArgs<__half, std::int64_t>&, cudaStream_t);
template void launch_gather<__half, std::int32_t>(const SddmmShape&, const GatherArgs<__half, std::int32_t>&, cudaStream_t);
template void launch_gather<__half, std::int64_t>(const SddmmShape&, const GatherArgs<__half, std::int64_t>&, cudaStream_t);

}  // namespace spk::detail::cuda
