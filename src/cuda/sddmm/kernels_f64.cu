// SDDMM kernels for f64 values (one file per value type keeps builds parallel).
#include <cstdint>

#include "cuda/sddmm/launch.cuh"

namespace spk::detail::cuda {

template void launch_dot<double, std::int32_t>(const SddmmShape&, const DotArgs<double, std::int32_t>&, cudaStream_t);
template void launch_dot<double, std::int64_t>(const SddmmShape&, const DotArgs<double, std::int64_t>&, cudaStream_t);
template void launch_rows<double, std::int32_t>(const SddmmRowsShape&, const DotArgs<double, std::int32_t>&, cudaStream_t);
template void launch_rows<double, std::int64_t>(const SddmmRowsShape&, const DotArgs<double, std::int64_t>&, cudaStream_t);
template void launch_gather<double, std::int32_t>(const SddmmShape&, const GatherArgs<double, std::int32_t>&, cudaStream_t);
template void launch_gather<double, std::int64_t>(const SddmmShape&, const GatherArgs<double, std::int64_t>&, cudaStream_t);

}  // namespace spk::detail::cuda
