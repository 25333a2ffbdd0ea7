// Band-window SpMM kernels for f32 values (one file per value type keeps builds parallel).
#include "cuda/spmm/band_launch.cuh"

namespace spk::detail::cuda {

template void launch_band<float, std::int32_t>(const RbShape&, const SpmmKernelArgs<float, std::int32_t>&, const BandArgs&, cudaStream_t);
template void launch_band<float, std::int64_t>(const RbShape&, const SpmmKernelArgs<float, std::int64_t>&, const BandArgs&, cudaStream_t);

}  // namespace spk::detail::cuda
