#pragma once
// Zeroes a dense view's elements (not its padding) in stream order, whichever its layout.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/common/check.cuh"
#include "spk/matrix.hpp"

namespace spk::detail::cuda {

template <class V>
void zero_fill(DenseView<V> v, cudaStream_t stream) {
    if (v.empty()) return;
    const bool rm = v.layout == Layout::row_major;
    const auto width = static_cast<std::size_t>(rm ? v.cols : v.rows) * sizeof(V);
    const auto height = static_cast<std::size_t>(rm ? v.rows : v.cols);
    SPK_CUDA_CHECK(cudaMemset2DAsync(v.data, static_cast<std::size_t>(v.ld) * sizeof(V), 0, width, height, stream));
}

}  // namespace spk::detail::cuda
