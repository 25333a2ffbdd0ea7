#pragma once
// Rows grouped by bin on the device: a bin number per row from its need, a radix sort of the
// row ids by bin number (cub), a histogram of the bins (cub) and the largest need (cub).
#include <cub/cub.cuh>

#include "cuda/spgemm/launch.cuh"

namespace spk::detail::cuda::spgemm {

// The smallest bin whose table holds `need` entries at load 1/2 or less (spelled out: device
// code cannot read kBinShapes; the static_assert keeps the two in step).
__host__ __device__ constexpr int bin_of(long long need) {
    return need == 0 ? 0 : need <= 32 ? 1 : need <= 128 ? 2 : need <= 512 ? 3 : need <= 2048 ? 4 : need <= 4096 ? 5 : kGlobalBin;
}
static_assert([] {
    for (int bin = 1; bin < kGlobalBin; ++bin) {
        const long long half = (1ll << kBinShapes[bin].log2_capacity) / 2;
        if (bin_of(half) != bin || bin_of(half + 1) != bin + 1) return false;
    }
    return true;
}());

template <class I>
__global__ void bin_numbers(const long long* need, long long rows, int* bin, I* ids) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    bin[i] = bin_of(need[i]);
    ids[i] = static_cast<I>(i);
}

template <class I>
RowBins<I> bin_rows(const Executor& exec, const long long* need, long long rows) {
    RowBins<I> bins;
    if (rows == 0) return bins;
    const cudaStream_t stream = stream_of(exec);
    const std::size_t n = static_cast<std::size_t>(rows);
    Array<int> bin(exec, n), sorted_bin(exec, n);
    Array<I> ids(exec, n);
    bins.rows = Array<I>(exec, n);
    bin_numbers<I><<<static_cast<unsigned>((rows + 255) / 256), 256, 0, stream>>>(need, rows, bin.data(), ids.data());
    SPK_CUDA_CHECK_LAUNCH();
    run_cub(exec, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, bin.data(), sorted_bin.data(), ids.data(), bins.rows.data(), rows, 0, 3, stream);
    });
    Array<int> counts(exec, kBins);
    run_cub(exec, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceHistogram::HistogramEven(temp, bytes, bin.data(), counts.data(), kBins + 1, 0, kBins, rows, stream);
    });
    Array<long long> largest(exec, 1);
    run_cub(exec, [&](void* temp, std::size_t& bytes) { return cub::DeviceReduce::Max(temp, bytes, need, largest.data(), rows, stream); });
    const std::vector<int> host_counts = read_back(exec, counts.data(), kBins);
    for (int b = 0; b < kBins; ++b) bins.start[b + 1] = bins.start[b] + host_counts[b];
    bins.max_need = read_back(exec, largest.data(), 1)[0];
    return bins;
}

}  // namespace spk::detail::cuda::spgemm
