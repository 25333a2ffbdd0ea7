#pragma once
// What the CUDA MTTKRP and TTM kernels take, and the launches the host code calls (defined in
// launch.cuh, instantiated once per value type in kernels_<type>.cu so those files compile in
// parallel). Both operations are one walk over a CSF's non-zeros, cut into chunks of equal size:
//   MTTKRP (MID): out(seg_ids[s], :) = sum over slice s's non-zeros (j, k, x) of x mid(j, :) leaf(k, :)
//   TTM:          out(f, :)          = sum over fiber f's non-zeros (k, x) of x leaf(k, :)
// A segment (the slice, or the fiber) whose non-zeros all lie in one chunk is stored by that
// chunk's group; one cut by a chunk boundary is added up with atomics into rows zeroed before.
#include <cuda_runtime.h>

namespace spk::detail::cuda {

constexpr int tensor_block_threads = 256;
constexpr int tensor_batch = 4;  // non-zeros whose factor rows a lane loads before its FMAs

// The output: element (r, c) at data[r * rs + c * cs] (any layout, any leading dimension).
template <class T>
struct TensorOut {
    T* data;
    long long rs, cs;
    __device__ __forceinline__ T& operator()(long long r, long long c) const { return data[r * rs + c * cs]; }
};

// G lanes per chunk, VEC consecutive columns per lane; grid.y walks tiles of G*VEC columns.
struct TensorShape {
    int g = 1, vec = 1;
};

template <class T, class I>
struct TensorArgs {
    const I* seg_ids;    // MTTKRP: the CSF's slice_ids (each segment's output row); TTM: null (row = fiber)
    const I* seg_ptr;    // MTTKRP: slice_ptr (slices + 1); TTM: null (segment = fiber)
    const I* fiber_ids;  // MTTKRP: the middle index of each fiber; TTM: null
    const I* fiber_ptr;  // fibers + 1
    const I* leaf_ids;   // nnz
    const T* values;     // nnz
    const T* mid;        // MTTKRP: row-major middle factor; TTM: null
    long long ld_mid;
    const T* leaf;  // row-major: the leaf factor (MTTKRP) or Uᵀ (TTM)
    long long ld_leaf;
    TensorOut<T> out;
    long long segments, fibers, nnz, rank;
    long long chunk;  // non-zeros per group (at least 1)
};

// MTTKRP: out must be zero beforehand (every row: empty slices have no group to write them).
template <class T, class I>
void launch_mttkrp(const TensorShape& shape, const TensorArgs<T, I>& args, cudaStream_t stream);
// TTM: zeroes the fibers cut by chunk boundaries, then runs the chunks.
template <class T, class I>
void launch_ttm(const TensorShape& shape, const TensorArgs<T, I>& args, cudaStream_t stream);

}  // namespace spk::detail::cuda
