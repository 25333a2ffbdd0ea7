#pragma once
// What the CUDA SDDMM kernels take, and the launches the host code calls (defined in launch.cuh,
// instantiated once per value type in kernels_<type>.cu so those files compile in parallel).
//   dot kernel:    out(p, h) = s_p <X_i, Y_j>_h for every entry p = (i, j) of A (the forward pass),
//                  or, given weights, out(p, 0) = sum_h weights(p, h) <X_i, Y_j>_h (dA).
//   rows kernel:   the forward pass again, neighbouring rows in lockstep (dot_mode.hpp says when).
//   gather kernel: out(r, :) = sum over the entries q of row r of a pattern of
//                  d_out(e_q, h) s_{e_q} Z(idx_q, :) per head block h (dX over A, dY over Aᵀ).
#include <cuda_runtime.h>

#include "cuda/sddmm/dot_mode.hpp"

namespace spk::detail::cuda {

constexpr int sddmm_block_threads = 256;
constexpr int sddmm_batch = 4;           // entries whose dense rows one lane loads before its FMAs
constexpr int sddmm_dot_min_blocks = 4;  // one-pass dot-kernel blocks per SM: at most 64 registers
// Entries one rows-kernel lane takes per round: sddmm_batch when X's row is one step of G*VEC
// features, else one (its `held` steps already put that many loads in flight).
constexpr int sddmm_rows_round(int held) { return held == 1 ? sddmm_batch : 1; }

// A matrix of any layout: element (r, c) at data[r * rs + c * cs].
template <class T>
struct Strided {
    T* data;
    long long rs, cs;
    __device__ __forceinline__ T& operator()(long long r, long long c) const { return data[r * rs + c * cs]; }
};

// G lanes per entry (or per row, in the gather kernel), VEC consecutive features per lane.
struct SddmmShape {
    int g = 1, vec = 1;
};

template <class T, class I>
struct DotArgs {
    const I* row_ptr;
    const I* col_idx;
    const T* scale;  // A's values, or null for a scale of 1
    const T* x;      // row-major, rows(A) x heads*d
    long long ldx;
    const T* y;  // row-major, cols(A) x heads*d
    long long ldy;
    Strided<T> out;            // nnz x heads, or nnz x 1 with weights
    Strided<const T> weights;  // null data: plain SDDMM; else nnz x heads, summed over heads into out
    long long rows, nnz, d, heads;
    // The dot kernel's (the rows kernel reads neither):
    long long steps;  // passes of G*VEC features per head (at least 1)
    long long chunk;  // entries per warp: a whole number of tiles of (32 / G) * sddmm_batch entries
    bool narrow;      // X, Y and a warp's share of the output span fewer than 2^31 elements
    // The rows kernel's: warps a group of rows (each walks an equal span of the group's positions).
    int split = 1;
};

template <class T, class I>
struct GatherArgs {
    const I* ptr;            // rows + 1 offsets of the pattern walked (A, or Aᵀ)
    const I* idx;            // per entry: the row of Z it gathers (A's column, or Aᵀ's: A's row)
    const I* entry;          // per entry: its number in A, or null when the pattern is A itself
    const T* scale;          // A's values, or null for a scale of 1
    Strided<const T> d_out;  // nnz x heads
    const T* z;              // row-major, width columns
    long long ldz;
    Strided<T> out;  // rows x width
    long long rows, width, d;
};

template <class T, class I>
void launch_dot(const SddmmShape& shape, const DotArgs<T, I>& args, cudaStream_t stream);
// The rows kernel takes no weights (null).
template <class T, class I>
void launch_rows(const SddmmRowsShape& shape, const DotArgs<T, I>& args, cudaStream_t stream);
template <class T, class I>
void launch_gather(const SddmmShape& shape, const GatherArgs<T, I>& args, cudaStream_t stream);

}  // namespace spk::detail::cuda
