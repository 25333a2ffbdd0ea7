// Edge-based SpMM kernels for f32 values (one file per value type keeps builds parallel).
#include "cuda/spmm/eb_launch.cuh"

namespace spk::detail::cuda {

template void launch_eb<float, std::int32_t>(const RbShape&, const SpmmKernelArgs<float, std::int32_t>&, long long, long long, cudaStream_t);
template void launch_eb<float, std::int64_t>(const RbShape&, const SpmmKernelArgs<float, std::int64_t>&, long long, long long, cudaStream_t);

}  // namespace spk::detail::cuda
