// Merge-path SpMM kernels for f32 values (one file per value type keeps builds parallel).
#include "cuda/spmm/mp_launch.cuh"

namespace spk::detail::cuda {

template void launch_merge<float, std::int32_t>(int, int, const SpmmKernelArgs<float, std::int32_t>&,
                                                const MergePathArgs<float, std::int32_t>&, long long, long long, cudaStream_t);
template void launch_merge<float, std::int64_t>(int, int, const SpmmKernelArgs<float, std::int64_t>&,
                                                const MergePathArgs<float, std::int64_t>&, long long, long long, cudaStream_t);
// The plan's search (index types only: here once).
template void launch_merge_lane_rows<std::int32_t>(const std::int32_t*, long long, long long, long long, long long, std::int32_t*,
                                                   cudaStream_t);
template void launch_merge_lane_rows<std::int64_t>(const std::int64_t*, long long, long long, long long, long long, std::int64_t*,
                                                   cudaStream_t);

}  // namespace spk::detail::cuda
