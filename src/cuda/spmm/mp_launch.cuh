#pragma once
// Launch of the merge-path SpMM for a runtime shape (a switch over the compiled shapes), and the
// plan's search of each warp's first row. Instantiated for f32 and f64 (mp_<type>.cu).
#include <cuda_runtime.h>

#include "cuda/common/check.cuh"
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/spmm/mp_kernel.cuh"
#include "spk/error.hpp"
#include "tune/spmm_config.hpp"
#include "tune/spmm_shapes.hpp"

namespace spk::detail::cuda {

template <class T, class I, int VEC, int E>
void launch_merge_shape(const SpmmKernelArgs<T, I>& args, const MergePathArgs<accum_t<T>, I>& m, long long rows, long long nnz,
                        cudaStream_t stream) {
    const long long blocks = m.blocks * m.tiles;
    if (blocks == 0) return;
    if (blocks > 0x7fffffffLL) unsupported("spmm: problem too large for one launch (" + std::to_string(blocks) + " blocks)");
    launch_after_previous(spmm_merge_kernel<T, I, VEC, E>, dim3(static_cast<unsigned>(blocks)), dim3(merge_block_lanes), 0, stream, args, m,
                          rows, nnz);
}

// m.tiles must be n / VEC rounded up, m.blocks (rows + nnz) / (merge_block_lanes E) rounded up, m.lane_rows the
// plan's search at E items a lane.
template <class T, class I>
void launch_merge(int vec, int items, const SpmmKernelArgs<T, I>& args, const MergePathArgs<accum_t<T>, I>& m, long long rows,
                  long long nnz, cudaStream_t stream) {
#define SPK_MP_CASE(VEC, E)                                           \
    if (vec == VEC && items == E) {                                   \
        launch_merge_shape<T, I, VEC, E>(args, m, rows, nnz, stream); \
        return;                                                       \
    }
    SPK_SPMM_MP_SHAPES(SPK_MP_CASE)
#undef SPK_MP_CASE
    invalid_argument("spmm: merge-path shape mp.v" + std::to_string(vec) + ".e" + std::to_string(items) + " is not compiled");
}

// lane_rows[l] for l = 0 .. lanes: the row at item l * items_per_lane of the merged order.
template <class I>
void launch_merge_lane_rows(const I* row_ptr, long long rows, long long nnz, long long items_per_lane, long long lanes, I* lane_rows,
                            cudaStream_t stream) {
    merge_lane_rows<I>
        <<<static_cast<unsigned>((lanes + 1 + 255) / 256), 256, 0, stream>>>(row_ptr, rows, nnz, items_per_lane, lanes, lane_rows);
    SPK_CUDA_CHECK_LAUNCH();
}

}  // namespace spk::detail::cuda
