// MTTKRP and TTM kernels for f64 values (one file per value type keeps builds parallel).
#include <cstdint>

#include "cuda/tensor/launch.cuh"

namespace spk::detail::cuda {

template void launch_mttkrp<double, std::int32_t>(const TensorShape&, const TensorArgs<double, std::int32_t>&, cudaStream_t);
template void launch_mttkrp<double, std::int64_t>(const TensorShape&, const TensorArgs<double, std::int64_t>&, cudaStream_t);
template void launch_ttm<double, std::int32_t>(const TensorShape&, const TensorArgs<double, std::int32_t>&, cudaStream_t);
template void launch_ttm<double, std::int64_t>(const TensorShape&, const TensorArgs<double, std::int64_t>&, cudaStream_t);

}  // namespace spk::detail::cuda
