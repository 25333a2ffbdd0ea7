#pragma once
// Plan-time analysis of A on the device: a histogram of row lengths (log2 buckets) and the
// longest row, then, when the selector asks for it, the split of rows into two bins.
#include <cuda_runtime.h>

#include "cuda/common/segment_group.cuh"
#include "cuda/common/values.cuh"

namespace spk::detail::cuda {

constexpr int length_buckets = 34;

template <class I>
__global__ void row_length_histogram(const I* row_ptr, long long rows, unsigned long long* histogram, unsigned long long* max_len) {
    __shared__ unsigned long long local[length_buckets];
    __shared__ unsigned long long local_max;
    for (int k = threadIdx.x; k < length_buckets; k += blockDim.x) local[k] = 0;
    if (threadIdx.x == 0) local_max = 0;
    __syncthreads();
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < rows;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const unsigned long long len = static_cast<unsigned long long>(row_ptr[i + 1] - row_ptr[i]);
        const int bits = len == 0 ? 0 : 64 - __clzll(static_cast<long long>(len));
        atomicAdd(&local[bits], 1ull);
        atomicMax(&local_max, len);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < length_buckets; k += blockDim.x)
        if (local[k]) atomicAdd(&histogram[k], local[k]);
    if (threadIdx.x == 0) atomicMax(max_len, local_max);
}

// Rows longer than threshold go to long_rows, the others to short_rows; counters[0..1] count them.
// One atomic per warp and bin (ballot + popc), so the order inside a bin is arbitrary; each row is
// still computed by one group, so results do not depend on it.
template <class I>
__global__ void split_rows(const I* row_ptr, long long rows, long long threshold, I* short_rows, I* long_rows,
                           unsigned long long* counters) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool valid = i < rows;
    const bool is_long = valid && static_cast<long long>(row_ptr[i + 1] - row_ptr[i]) > threshold;
    const unsigned long_votes = __ballot_sync(full_mask, is_long);
    const unsigned short_votes = __ballot_sync(full_mask, valid && !is_long);
    const int lane = threadIdx.x & 31;
    unsigned long long long_base = 0, short_base = 0;
    if (lane == 0) {
        if (long_votes) long_base = atomicAdd(&counters[1], static_cast<unsigned long long>(__popc(long_votes)));
        if (short_votes) short_base = atomicAdd(&counters[0], static_cast<unsigned long long>(__popc(short_votes)));
    }
    long_base = __shfl_sync(full_mask, long_base, 0);
    short_base = __shfl_sync(full_mask, short_base, 0);
    const unsigned below = (1u << lane) - 1u;
    if (is_long)
        long_rows[long_base + __popc(long_votes & below)] = static_cast<I>(i);
    else if (valid)
        short_rows[short_base + __popc(short_votes & below)] = static_cast<I>(i);
}

// The non-zero range of each row in a list (for cutting long rows into chunks on the host).
template <class I>
__global__ void gather_row_ranges(const I* row_ptr, const I* rows, long long count, long long* begin, long long* end) {
    const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= count) return;
    begin[k] = row_ptr[rows[k]];
    end[k] = row_ptr[rows[k] + 1];
}

// C(row, :) = beta * C(row, :) for the rows in a list (beta == 0 writes zeros: C may hold NaN).
template <class T>
__global__ void scale_rows(const void* rows, bool wide_index, long long count, T* c, long long ldc, long long n, accum_t<T> beta) {
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < count * n;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long k = e / n, col = e % n;
        const long long row = wide_index ? static_cast<const long long*>(rows)[k] : static_cast<const int*>(rows)[k];
        T* out = c + row * ldc + col;
        *out = beta == accum_t<T>(0) ? from_accum<T>(accum_t<T>(0)) : from_accum<T>(beta * to_accum(*out));
    }
}

}  // namespace spk::detail::cuda
