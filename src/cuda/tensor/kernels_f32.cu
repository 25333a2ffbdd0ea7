// MTTKRP and TTM kernels for f32 values (one file per value type keeps builds parallel).
#include <cstdint>

#include "cuda/tensor/launch.cuh"

namespace spk::detail::cuda {

template void launch_mttkrp<float, std::int32_t>(const TensorShape&, const TensorArgs<float, std::int32_t>&, cudaStream_t);
template void launch_mttkrp<float, std::int64_t>(const TensorShape&, const TensorArgs<float, std::int64_t>&, cudaStream_t);
template void launch_ttm<float, std::int32_t>(const TensorShape&, const TensorArgs<float, std::int32_t>&, cudaStream_t);
template void launch_ttm<float, std::int64_t>(const TensorShape&, const TensorArgs<float, std::int64_t>&, cudaStream_t);

}  // namespace spk::detail::cuda
