// Row-based SpMM with long rows split in the same launch, f32 values (its own file: builds in parallel).
#include "cuda/spmm/rb_launch.cuh"

namespace spk::detail::cuda {

template void launch_rb_fused<float, std::int32_t>(const RbShape&, const SpmmKernelArgs<float, std::int32_t>&,
                                                   const RbPieces<float, std::int32_t>&, cudaStream_t);
template void launch_rb_fused<float, std::int64_t>(const RbShape&, const SpmmKernelArgs<float, std::int64_t>&,
                                                   const RbPieces<float, std::int64_t>&, cudaStream_t);

}  // namespace spk::detail::cuda
