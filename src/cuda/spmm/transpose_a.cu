// Aᵀ on the device for transposed SpMM plans: the entries sorted by column (the stable radix sort
// of transposed_pattern, so rows stay increasing within each column, as the host transpose gives),
// then one gather of rows and values. Nothing crosses to the host.
#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "core/spmm_kernels.hpp"
#include "cuda/common/check.cuh"
#include "core/transposed_pattern.hpp"

namespace spk::detail::cuda {

namespace {

template <class V, class I>
__global__ void gather_transposed_kernel(const I* row_idx, const I* entry, const V* values, long long nnz, I* col_out, V* values_out) {
    for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < nnz;
         t += static_cast<long long>(gridDim.x) * blockDim.x) {
        col_out[t] = row_idx[t];
        if (values) values_out[t] = values[entry[t]];
    }
}

}  // namespace

template <class V, class I>
Csr<V, I> transpose(const Executor& exec, CsrView<const V, I> a) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    const cudaStream_t stream = static_cast<cudaStream_t>(exec.stream());
    Csr<V, I> at(exec, a.cols, a.rows, a.nnz);
    const DeviceTransposedPattern<I> pattern = transposed_pattern<I>(exec, a.row_ptr, a.col_idx, a.rows, a.cols, a.nnz);
    SPK_CUDA_CHECK(cudaMemcpyAsync(at.row_ptr().data(), pattern.col_ptr.data(), sizeof(I) * static_cast<std::size_t>(a.cols + 1),
                                   cudaMemcpyDeviceToDevice, stream));
    if (a.nnz > 0) {
        constexpr int threads = 256;
        const auto blocks = static_cast<unsigned>(std::min<long long>((a.nnz + threads - 1) / threads, 1 << 20));
        gather_transposed_kernel<V, I><<<blocks, threads, 0, stream>>>(pattern.row_idx.data(), pattern.entry.data(), a.values, a.nnz,
                                                                       at.col_idx().data(), at.values().data());
        SPK_CUDA_CHECK_LAUNCH();
    }
    at.set_sorted(true);  // rows of Aᵀ list A's rows in increasing order, as spk::transpose's do
    return at;  // freeing the pattern's arrays (cudaFree) waits for the gather
}

#define SPK_INSTANTIATE(V, I) template Csr<V, I> transpose(const Executor&, CsrView<const V, I>);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
