// CUDA triangle counting: Σ_i Σ_{k ∈ L_i} |L_i ∩ L_k| over the strictly lower triangle L (sorted
// rows). One warp per row i; each lane takes entries k of L_i and looks up every column of L_k
// in L_i by binary search, only among L_i's columns below k (L_k's columns all are). 64-bit
// counts, summed per block in shared memory, then one atomic per block.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/spgemm_kernels.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/spgemm/device_table.cuh"
#include "cuda/spgemm/launch.cuh"

namespace spk::detail::cuda {

namespace {

template <class I>
__global__ void count_triangle_rows(long long n, const I* row_ptr, const I* col, unsigned long long* total) {
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0) block_total = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    unsigned long long found = 0;
    for (long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
        const I* li = col + row_ptr[i];
        const long long len = row_ptr[i + 1] - row_ptr[i];
        for (long long q = lane; q < len; q += 32) {
            const long long k = li[q];
            for (long long r = row_ptr[k]; r < row_ptr[k + 1]; ++r) found += spgemm::contains(li, q, static_cast<long long>(col[r]));
        }
    }
    for (int o = 16; o > 0; o >>= 1) found += __shfl_xor_sync(spgemm::kFullMask, found, o);
    if (lane == 0) atomicAdd(&block_total, found);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(total, block_total);
}

}  // namespace

template <class I>
std::uint64_t count_triangles(const Executor& exec, index_t n, const I* row_ptr, const I* col_idx) {
    if (n == 0) return 0;
    const cudaStream_t stream = spgemm::stream_of(exec);
    Workspace<unsigned long long> total(exec, 1);
    SPK_CUDA_CHECK(cudaMemsetAsync(total.data(), 0, sizeof(unsigned long long), stream));
    constexpr int threads = 256;
    const long long blocks = std::min<long long>((n + threads / 32 - 1) / (threads / 32), 64ll * spgemm::multiprocessors(exec));
    count_triangle_rows<I><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(n, row_ptr, col_idx, total.data());
    SPK_CUDA_CHECK_LAUNCH();
    return spgemm::read_back(exec, total.data(), 1)[0];
}

template std::uint64_t count_triangles(const Executor&, index_t, const std::int32_t*, const std::int32_t*);
template std::uint64_t count_triangles(const Executor&, index_t, const std::int64_t*, const std::int64_t*);

}  // namespace spk::detail::cuda
