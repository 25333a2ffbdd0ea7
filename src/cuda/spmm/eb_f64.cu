// Edge-based SpMM kernels for f64 values (one file per value type keeps builds parallel).
#include "cuda/spmm/eb_launch.cuh"

namespace spk::detail::cuda {

template void launch_eb<double, std::int32_t>(const RbShape&, const SpmmKernelArgs<double, std::int32_t>&, long long, long long, cudaStream_t);
template void launch_eb<double, std::int64_t>(const RbShape&, const SpmmKernelArgs<double, std::int64_t>&, long long, long long, cudaStream_t);

}  // namespace spk::detail::cuda
