#pragma once
// Rows grouped by bin on the device: a pass that counts each bin's rows and finds the largest
// and the total need (shared-memory counters, one global atomic per bin per block), one read of
// those numbers (with the caller's other words where it has any), and a pass that scatters the
// row ids to their bin's range. Rows keep no order within a bin
// (their outputs go to fixed places); bin 0 (nothing to do) is counted but not listed.
#include "cuda/spgemm/device_table.cuh"
#include "cuda/spgemm/launch.cuh"

namespace spk::detail::cuda::spgemm {

// The smallest bin whose table holds `need` entries at load 1/2 or less (spelled out: device
// code cannot read kBinShapes; the static_assert keeps the two in step).
__host__ __device__ constexpr int bin_of(long long need) {
    return need == 0      ? 0
           : need <= 32   ? 1
           : need <= 64   ? 2
           : need <= 128  ? 3
           : need <= 256  ? 4
           : need <= 512  ? 5
           : need <= 2048 ? 6
           : need <= 4096 ? 7
                          : kGlobalBin;
}
static_assert([] {
    for (int bin = 1; bin < kGlobalBin; ++bin) {
        const long long half = (1ll << kBinShapes[bin].log2_capacity) / 2;
        if (bin_of(half) != bin || bin_of(half + 1) != bin + 1) return false;
    }
    return true;
}());

inline constexpr int kBinningThreads = 256;

// totals[0, kBins): rows per bin; totals[kBins]: the largest need; totals[kBins + 1]: their sum.
// Warp-aggregated: a warp's rows of one bin take one shared atomic (most rows of a matrix share a
// bin, and per-thread atomics on one counter serialise: 115 us for a million rows on the H200).
static __global__ void count_bins(const long long* need, long long rows, unsigned long long* totals) {
    __shared__ unsigned long long counts[kBins], largest, sum;
    if (threadIdx.x < kBins) counts[threadIdx.x] = 0;
    if (threadIdx.x == 0) largest = sum = 0;
    __syncthreads();
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const unsigned long long mine = i < rows ? static_cast<unsigned long long>(need[i]) : 0;
    const int bin = i < rows ? bin_of(need[i]) : -1;
    const int lane = static_cast<int>(threadIdx.x & 31);
    const unsigned peers = __match_any_sync(kFullMask, bin);  // every thread takes part: blockDim.x is a multiple of 32
    if (bin >= 0 && lane == __ffs(peers) - 1) atomicAdd(&counts[bin], static_cast<unsigned long long>(__popc(peers)));
    unsigned long long warp_sum = mine, warp_max = mine;
    for (int o = 16; o > 0; o >>= 1) {
        warp_sum += __shfl_xor_sync(kFullMask, warp_sum, o);
        const unsigned long long other = __shfl_xor_sync(kFullMask, warp_max, o);
        warp_max = other > warp_max ? other : warp_max;
    }
    if (lane == 0 && warp_sum) {
        atomicAdd(&sum, warp_sum);
        atomicMax(&largest, warp_max);
    }
    __syncthreads();
    if (threadIdx.x < kBins && counts[threadIdx.x]) atomicAdd(&totals[threadIdx.x], counts[threadIdx.x]);
    if (threadIdx.x == 0 && largest) atomicMax(&totals[kBins], largest);
    if (threadIdx.x == 0 && sum) atomicAdd(&totals[kBins + 1], sum);
}

struct BinStarts {
    long long start[kBins];
};

// Each row of bins 1.. to rows[start[bin] + its rank among the bin's rows]; cursors: kBins
// zeroed counters. Ranks are warp-aggregated as in count_bins.
template <class I>
__global__ void scatter_bins(const long long* need, long long rows, BinStarts starts, unsigned long long* cursors, I* out) {
    __shared__ unsigned long long counts[kBins], base[kBins];
    if (threadIdx.x < kBins) counts[threadIdx.x] = 0;
    __syncthreads();
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int bin = i < rows ? bin_of(need[i]) : 0;
    const int lane = static_cast<int>(threadIdx.x & 31);
    const unsigned peers = __match_any_sync(kFullMask, bin);
    const int leader = __ffs(peers) - 1;
    unsigned long long first = 0;
    if (bin > 0 && lane == leader) first = atomicAdd(&counts[bin], static_cast<unsigned long long>(__popc(peers)));
    const unsigned long long rank = __shfl_sync(kFullMask, first, leader) + __popc(peers & ((1u << lane) - 1));
    __syncthreads();
    if (threadIdx.x < kBins && counts[threadIdx.x]) base[threadIdx.x] = atomicAdd(&cursors[threadIdx.x], counts[threadIdx.x]);
    __syncthreads();
    if (bin > 0) out[starts.start[bin] + static_cast<long long>(base[bin] + rank)] = static_cast<I>(i);
}

// count_bins' totals: rows per bin [0, kBins), the largest need, their sum.
inline constexpr int kBinTotals = kBins + 2;

// Queues the count of the rows of each bin into totals (kBinTotals zeroed words), for the caller
// to read back with whatever else it needs from the device (one stream synchronisation).
inline void queue_bin_count(const Executor& exec, const long long* need, long long rows, unsigned long long* totals) {
    if (rows == 0) return;
    count_bins<<<grid_for(rows, kBinningThreads), kBinningThreads, 0, stream_of(exec)>>>(need, rows, totals);
    SPK_CUDA_CHECK_LAUNCH();
}

// The bins' layout from count_bins' totals, read back.
inline BinLayout bin_layout(const unsigned long long* totals) {
    BinLayout bins;
    for (int b = 0; b < kBins; ++b) bins.start[b + 1] = bins.start[b] + static_cast<index_t>(totals[b]);
    bins.max_need = static_cast<index_t>(totals[kBins]);
    bins.total_need = static_cast<index_t>(totals[kBins + 1]);
    return bins;
}

// Queues the scatter of the rows' ids to ids (`rows` entries of device memory), grouped as bins
// lays out; cursors: kBins zeroed words.
template <class I>
void queue_bin_scatter(const Executor& exec, const long long* need, long long rows, const BinLayout& bins, unsigned long long* cursors,
                       I* ids) {
    if (rows == 0) return;
    BinStarts starts{};
    for (int b = 0; b < kBins; ++b) starts.start[b] = bins.start[b];
    scatter_bins<I><<<grid_for(rows, kBinningThreads), kBinningThreads, 0, stream_of(exec)>>>(need, rows, starts, cursors, ids);
    SPK_CUDA_CHECK_LAUNCH();
}

}  // namespace spk::detail::cuda::spgemm
