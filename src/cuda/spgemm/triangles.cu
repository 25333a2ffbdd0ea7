// CUDA triangle counting: Σ_i Σ_{k ∈ L_i} |L_i ∩ L_k| over the strictly lower triangle L (sorted
// rows; vertices ranked by decreasing degree, so that a row holds only neighbours of higher degree
// and no row is longer than about sqrt(2 edges)). A warp a row i, over the row's wedges (k, c):
// k = L_i[q], c ∈ L_k, and the wedge closes when c ∈ L_i (L_k's columns are all below k, so c can
// only match L_i's columns before q). The wedges of 32 entries k at a time are numbered, a lane a
// wedge, so that the lanes share the work whatever the lengths of the rows L_k (a lane an entry k
// left most lanes idle behind the longest L_k), and each L_k is read coalesced. Rows of up to half
// a warp's table are first put in a hash table in shared memory, so that each wedge costs a probe
// or two; longer rows are searched by bisection in global memory. 64-bit counts, summed per block
// in shared memory, then one atomic per block.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/spgemm_kernels.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/spgemm/device_table.cuh"
#include "cuda/spgemm/launch.cuh"

namespace spk::detail::cuda {

namespace {

// The lane of the warp whose wedges hold wedge w: the number of lanes whose inclusive end
// (`last`, non-decreasing over the lanes) is at most w. Every lane takes part.
__device__ __forceinline__ int owner_lane(long long last, long long w) {
    int lane = 0;
    for (int step = 16; step > 0; step >>= 1)
        if (__shfl_sync(spgemm::kFullMask, last, lane + step - 1) <= w) lane += step;
    return lane;
}

constexpr int kThreads = 256;
constexpr int kTableBytes = 4096;  // a warp's hash table: 32 KB a block

template <class I>
__global__ void __launch_bounds__(kThreads) count_triangle_rows(long long n, const I* row_ptr, const I* col, unsigned long long* total) {
    using K = spgemm::key_t<I>;
    constexpr int kSlots = kTableBytes / static_cast<int>(sizeof(K));
    constexpr K kEmpty = ~K(0);
    __shared__ K tables[kThreads / 32][kSlots];
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0) block_total = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31;
    K* const table = tables[threadIdx.x >> 5];
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    unsigned long long found = 0;
    for (long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
        const I* li = col + row_ptr[i];
        const long long len = row_ptr[i + 1] - row_ptr[i];
        if (len < 2) continue;  // no wedge closes in a row of one entry
        // L_i in the table, at most half full, when it fits.
        const bool hashed = len <= kSlots / 2;
        const int log2_capacity = hashed ? max(5, spgemm::ceil_log2(2 * len)) : 0;
        if (hashed) {
            for (int s = lane; s < (1 << log2_capacity); s += 32) table[s] = kEmpty;
            __syncwarp();
            for (long long q = lane; q < len; q += 32) spgemm::claim_slot(table, log2_capacity, static_cast<K>(li[q]));
            __syncwarp();
        }
        for (long long q0 = 0; q0 < len; q0 += 32) {  // warp-uniform: every lane runs every shuffle
            // This lane's entry k = L_i[q] and its wedges: L_k's entries (none for q = 0: no column of L_i is below k).
            const long long q = q0 + lane;
            long long first = 0, count = 0;
            if (q < len && q > 0) {
                const long long k = li[q];
                first = row_ptr[k];
                count = row_ptr[k + 1] - first;
            }
            const long long last = warp_inclusive_sum(count);  // the end of this lane's wedges
            const long long wedges = __shfl_sync(spgemm::kFullMask, last, 31);
            for (long long w0 = 0; w0 < wedges; w0 += 32) {
                const long long w = w0 + lane;
                const int owner = owner_lane(last, w);
                const long long owner_start = __shfl_sync(spgemm::kFullMask, last - count, owner);
                const long long owner_first = __shfl_sync(spgemm::kFullMask, first, owner);
                if (w < wedges) {
                    const I c = col[owner_first + (w - owner_start)];
                    found += hashed ? spgemm::holds_key(table, log2_capacity, static_cast<K>(c))
                                    : spgemm::contains(li, q0 + owner, static_cast<long long>(c));
                }
            }
        }
        __syncwarp();  // every probe is done before the next row clears the table
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
    const long long blocks = std::min<long long>((n + kThreads / 32 - 1) / (kThreads / 32), 64ll * spgemm::multiprocessors(exec));
    count_triangle_rows<I><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(n, row_ptr, col_idx, total.data());
    SPK_CUDA_CHECK_LAUNCH();
    return spgemm::read_back(exec, total.data(), 1)[0];
}

template std::uint64_t count_triangles(const Executor&, index_t, const std::int32_t*, const std::int32_t*);
template std::uint64_t count_triangles(const Executor&, index_t, const std::int64_t*, const std::int64_t*);

}  // namespace spk::detail::cuda
