// Row-based SpMM kernels for f64 values (one file per value type keeps builds parallel).
#include "cuda/spmm/rb_launch.cuh"

namespace spk::detail::cuda {

template void launch_rb<double, std::int32_t>(const RbShape&, Fold, const SpmmKernelArgs<double, std::int32_t>&, cudaStream_t);
template void launch_rb<double, std::int64_t>(const RbShape&, Fold, const SpmmKernelArgs<double, std::int64_t>&, cudaStream_t);
template void launch_rb_split<double, std::int32_t>(const RbShape&, const SpmmKernelArgs<double, std::int32_t>&, cudaStream_t);
template void launch_rb_split<double, std::int64_t>(const RbShape&, const SpmmKernelArgs<double, std::int64_t>&, cudaStream_t);

}  // namespace spk::detail::cuda
