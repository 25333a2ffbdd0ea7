// SDDMM kernels for f32 values (one file per value type keeps builds parallel).
#include <cstdint>

#include "cuda/sddmm/launch.cuh"

namespace spk::detail::cuda {

template void launch_dot<float, std::int32_t>(const SddmmShape&, const DotArgs<float, std::int32_t>&, cudaStream_t);
template void launch_dot<float, std::int64_t>(const SddmmShape&, const DotArgs<float, std::int64_t>&, cudaStream_t);
template void launch_rows<float, std::int32_t>(const SddmmRowsShape&, const DotArgs<float, std::int32_t>&, cudaStream_t);
template void launch_rows<float, std::int64_t>(const SddmmRowsShape&, const DotArgs<float, std::int64_t>&, cudaStream_t);
template void launch_gather<float, std::int32_t>(const SddmmShape&, const GatherArgs<float, std::int32_t>&, cudaStream_t);
template void launch_gather<float, std::int64_t>(const SddmmShape&, const GatherArgs<float, std::int64_t>&, cudaStream_t);

}  // namespace spk::detail::cuda
