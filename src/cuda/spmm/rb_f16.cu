// Row-based SpMM kernels for f16 values (one file per value type keeps builds parallel).
#include "cuda/spmm/rb_launch.cuh"

namespace spk::detail::cuda {

template void launch_rb<__half, std::int32_t>(const RbShape&, Fold, const SpmmKernelArgs<__half, std::int32_t>&, cudaStream_t);
template void launch_rb<__half, std::int64_t>(const RbShape&, Fold, const SpmmKernelArgs<__half, std::int64_t>&, cudaStream_t);

}  // namespace spk::detail::cuda
