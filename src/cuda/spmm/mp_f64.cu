// Merge-path SpMM kernels for f64 values (one file per value type keeps builds parallel).
#include "cuda/spmm/mp_launch.cuh"

namespace spk::detail::cuda {

template void launch_merge<double, std::int32_t>(int, int, const SpmmKernelArgs<double, std::int32_t>&,
                                                 const MergePathArgs<double, std::int32_t>&, long long, long long, cudaStream_t);
template void launch_merge<double, std::int64_t>(int, int, const SpmmKernelArgs<double, std::int64_t>&,
                                                 const MergePathArgs<double, std::int64_t>&, long long, long long, cudaStream_t);

}  // namespace spk::detail::cuda
