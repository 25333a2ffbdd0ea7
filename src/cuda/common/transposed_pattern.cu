// Aᵀ's pattern: the entry numbers 0 .. nnz-1 sorted by column with a stable radix sort (so each
// column keeps its rows in order), then each column's start found by binary search in the sorted
// columns, and each entry's row by binary search in A's row offsets, done in entry order (a warp's
// 32 searches share their path and hit L1; in column order each would walk its own) and then
// gathered into column order. No atomics: the result does not depend on timing.
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>

#include "core/cuda_runtime.hpp"
#include "cuda/common/check.cuh"
#include "core/transposed_pattern.hpp"
#include "cuda/common/workspace.hpp"

namespace spk::detail::cuda {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(long long n) { return static_cast<unsigned>(std::min<long long>((n + kThreads - 1) / kThreads, 1 << 20)); }

template <class I>
__global__ void iota_kernel(I* out, long long n) {
    for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < n;
         t += static_cast<long long>(gridDim.x) * blockDim.x)
        out[t] = static_cast<I>(t);
}

// col_ptr[c] = the first position of the sorted columns holding a column >= c.
template <class I>
__global__ void column_starts_kernel(const I* sorted_cols, long long nnz, long long cols, I* col_ptr) {
    for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c <= cols;
         c += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long lo = 0, hi = nnz;
        while (lo < hi) {
            const long long mid = (lo + hi) / 2;
            if (static_cast<long long>(sorted_cols[mid]) < c)
                lo = mid + 1;
            else
                hi = mid;
        }
        col_ptr[c] = static_cast<I>(lo);
    }
}

// row_of[p] = the row i of entry p: the last i with row_ptr[i] <= p (empty rows skipped).
template <class I>
__global__ void entry_rows_kernel(const I* row_ptr, long long rows, long long nnz, I* row_of) {
    for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < nnz;
         p += static_cast<long long>(gridDim.x) * blockDim.x) {
        long long lo = 0, hi = rows;  // answer in [0, rows)
        while (lo < hi) {
            const long long mid = (lo + hi + 1) / 2;
            if (static_cast<long long>(row_ptr[mid]) <= p)
                lo = mid;
            else
                hi = mid - 1;
        }
        row_of[p] = static_cast<I>(lo);
    }
}

// out[t] = values[index[t]].
template <class I>
__global__ void gather_kernel(const I* values, const I* index, long long n, I* out) {
    for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < n;
         t += static_cast<long long>(gridDim.x) * blockDim.x)
        out[t] = values[index[t]];
}

}  // namespace

template <class I>
DeviceTransposedPattern<I> transposed_pattern(const Executor& exec, const I* row_ptr, const I* col_idx, index_t rows, index_t cols,
                                              index_t nnz) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    const cudaStream_t stream = static_cast<cudaStream_t>(exec.stream());
    DeviceTransposedPattern<I> t{Array<I>(exec, static_cast<std::size_t>(cols + 1)), Array<I>(exec, static_cast<std::size_t>(nnz)),
                                 Array<I>(exec, static_cast<std::size_t>(nnz))};
    if (nnz == 0) {
        SPK_CUDA_CHECK(cudaMemsetAsync(t.col_ptr.data(), 0, sizeof(I) * static_cast<std::size_t>(cols + 1), stream));
        return t;
    }
    Workspace<I> positions(exec, static_cast<std::size_t>(nnz)), sorted_cols(exec, static_cast<std::size_t>(nnz));
    iota_kernel<I><<<blocks_for(nnz), kThreads, 0, stream>>>(positions.data(), nnz);
    SPK_CUDA_CHECK_LAUNCH();
    // Columns are below cols: sorting on their low bits is enough (the keys are non-negative).
    int end_bit = 1;
    while (end_bit < static_cast<int>(8 * sizeof(I)) - 1 && (1LL << end_bit) < cols) ++end_bit;
    std::size_t temp_bytes = 0;
    SPK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, col_idx, sorted_cols.data(), positions.data(), t.entry.data(),
                                                   static_cast<long long>(nnz), 0, end_bit, stream));
    Workspace<std::byte> temp(exec, temp_bytes);
    SPK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, col_idx, sorted_cols.data(), positions.data(), t.entry.data(),
                                                   static_cast<long long>(nnz), 0, end_bit, stream));
    column_starts_kernel<I><<<blocks_for(cols + 1), kThreads, 0, stream>>>(sorted_cols.data(), nnz, cols, t.col_ptr.data());
    SPK_CUDA_CHECK_LAUNCH();
    I* const row_of = sorted_cols.data();  // free once the column starts are found: each entry's row, in entry order
    entry_rows_kernel<I><<<blocks_for(nnz), kThreads, 0, stream>>>(row_ptr, rows, nnz, row_of);
    SPK_CUDA_CHECK_LAUNCH();
    gather_kernel<I><<<blocks_for(nnz), kThreads, 0, stream>>>(row_of, t.entry.data(), nnz, t.row_idx.data());
    SPK_CUDA_CHECK_LAUNCH();
    return t;  // the scratch workspaces go back to the pool on this stream, after these kernels
}

template DeviceTransposedPattern<std::int32_t> transposed_pattern(const Executor&, const std::int32_t*, const std::int32_t*, index_t,
                                                                  index_t, index_t);
template DeviceTransposedPattern<std::int64_t> transposed_pattern(const Executor&, const std::int64_t*, const std::int64_t*, index_t,
                                                                  index_t, index_t);

}  // namespace spk::detail::cuda
