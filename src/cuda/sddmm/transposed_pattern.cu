// Aᵀ's pattern with entry numbers, on the device: number A's entries, sort them by column with
// cub's stable radix sort (only the bits a column needs), then read column offsets off the
// sorted columns and each entry's row off a row-per-entry array.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>

#include "cuda/common/check.cuh"
#include "cuda/sddmm/transposed_pattern.hpp"

namespace spk::detail::cuda {

namespace {

constexpr int threads = 256;

unsigned blocks_for(long long work) { return static_cast<unsigned>(std::min<long long>((work + threads - 1) / threads, 1 << 20)); }

// row_of[p] = the row of entry p, and numbers[p] = p. A warp per row: long rows stay coalesced.
template <class I>
__global__ void number_entries(const I* row_ptr, long long rows, I* row_of, I* numbers) {
    const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    for (long long r = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; r < rows; r += warps)
        for (long long p = static_cast<long long>(row_ptr[r]) + lane; p < static_cast<long long>(row_ptr[r + 1]); p += 32) {
            row_of[p] = static_cast<I>(r);
            numbers[p] = static_cast<I>(p);
        }
}

// From the columns sorted in entry order: each column's first position (empty columns take the
// next one's), and each position's row.
template <class I>
__global__ void finish_pattern(const I* sorted_cols, const I* entry, const I* row_of, long long nnz, long long cols, I* col_ptr,
                               I* row_idx) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; q < nnz; q += stride) {
        row_idx[q] = row_of[entry[q]];
        const long long first = q == 0 ? 0 : static_cast<long long>(sorted_cols[q - 1]) + 1;
        for (long long c = first; c <= static_cast<long long>(sorted_cols[q]); ++c) col_ptr[c] = static_cast<I>(q);
        if (q == nnz - 1)
            for (long long c = static_cast<long long>(sorted_cols[q]) + 1; c <= cols; ++c) col_ptr[c] = static_cast<I>(nnz);
    }
}

int bits_for(index_t cols) {
    int bits = 1;
    while (bits < 63 && (index_t{1} << bits) < cols) ++bits;
    return bits;
}

}  // namespace

template <class I>
DeviceTransposedPattern<I> transposed_pattern(const Executor& exec, const I* row_ptr, const I* col_idx, index_t rows, index_t cols,
                                              index_t nnz) {
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    const auto n = static_cast<std::size_t>(nnz);
    DeviceTransposedPattern<I> t{Array<I>(exec, static_cast<std::size_t>(cols) + 1), Array<I>(exec, n), Array<I>(exec, n)};
    if (nnz == 0) {
        SPK_CUDA_CHECK(cudaMemsetAsync(t.col_ptr.data(), 0, sizeof(I) * t.col_ptr.size(), stream));
        SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
        return t;
    }
    Array<I> row_of(exec, n), numbers(exec, n), sorted_cols(exec, n);
    number_entries<I><<<blocks_for(rows * 32), threads, 0, stream>>>(row_ptr, rows, row_of.data(), numbers.data());
    SPK_CUDA_CHECK_LAUNCH();

    const int end_bit = bits_for(cols);
    std::size_t scratch_bytes = 0;
    SPK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, scratch_bytes, col_idx, sorted_cols.data(), numbers.data(), t.entry.data(), nnz,
                                                   0, end_bit, stream));
    Array<std::byte> scratch(exec, std::max<std::size_t>(scratch_bytes, 1));
    SPK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.data(), scratch_bytes, col_idx, sorted_cols.data(), numbers.data(),
                                                   t.entry.data(), nnz, 0, end_bit, stream));

    finish_pattern<I><<<blocks_for(nnz), threads, 0, stream>>>(sorted_cols.data(), t.entry.data(), row_of.data(), nnz, cols,
                                                               t.col_ptr.data(), t.row_idx.data());
    SPK_CUDA_CHECK_LAUNCH();
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));  // the scratch arrays are freed on return
    return t;
}

template DeviceTransposedPattern<std::int32_t> transposed_pattern(const Executor&, const std::int32_t*, const std::int32_t*, index_t,
                                                                  index_t, index_t);
template DeviceTransposedPattern<std::int64_t> transposed_pattern(const Executor&, const std::int64_t*, const std::int64_t*, index_t,
                                                                  index_t, index_t);

}  // namespace spk::detail::cuda
