// CUDA MTTKRP and TTM: the factors into row-major rows (transposed into stream-ordered
// workspaces when column-major; TTM reads the rows of Uᵀ), the output's rows that atomics add
// into zeroed, the kernel shape from R and the chunk size from the device, then one launch
// (args.cuh and chunk_kernel.cuh describe the kernel). Nothing waits on the stream: the
// workspaces are freed in stream order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "core/tensor_kernels.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/transpose.cuh"
#include "cuda/common/zero_fill.cuh"
#include "cuda/common/values.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/tensor/args.cuh"

namespace spk::detail::cuda {

namespace {

constexpr long long tensor_min_chunk = 8 * tensor_batch;  // fewer non-zeros per group than this: search costs dominate

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

// The plans pass "auto" (the CUDA backend has one kernel per operation).
void check_config(const std::string& config, const char* op) {
    if (config != "auto") invalid_argument(std::string(op) + ": config \"" + config + "\" is not a CUDA tensor kernel (only \"auto\")");
}

// The rows of m as row-major device memory: m's own, or a transposed copy in `workspace`.
template <class T>
const T* rows_of(const Executor& exec, DenseView<const T> m, Workspace<T>& workspace, long long& ld) {
    if (m.layout == Layout::row_major) {
        ld = m.ld;
        return m.data;
    }
    workspace = Workspace<T>(exec, static_cast<std::size_t>(m.rows * m.cols));
    transpose<T>(m.data, m.cols, m.rows, m.ld, workspace.data(), m.cols, stream_of(exec));
    ld = m.cols;
    return workspace.data();
}

// The transpose of a view, without copying: swap the shape, flip the layout.
template <class T>
DenseView<const T> transposed(DenseView<const T> m) {
    return {m.data, m.cols, m.rows, m.ld, m.layout == Layout::row_major ? Layout::col_major : Layout::row_major, m.space};
}

template <class T>
TensorOut<T> out_of(DenseView<T> v) {
    const bool rm = v.layout == Layout::row_major;
    return {v.data, rm ? v.ld : 1, rm ? 1 : v.ld};
}

bool vector_aligned(const void* p, long long ld, int vec, std::size_t elem) {
    return reinterpret_cast<std::uintptr_t>(p) % (static_cast<std::size_t>(vec) * elem) == 0 && ld % vec == 0;
}

// 16-byte loads when every row allows them, and the fewest lanes (a power of two up to 32) that
// cover R columns in one pass.
TensorShape pick_shape(long long rank, bool vector_ok, int wide) {
    TensorShape s{1, vector_ok ? wide : 1};
    const long long lanes = (rank + s.vec - 1) / s.vec;
    while (s.g < 32 && s.g < lanes) s.g *= 2;
    return s;
}

// Non-zeros per group: enough groups for about two waves of the device (the column tiles
// multiply the groups), a whole number of batches, at least tensor_min_chunk.
long long pick_chunk(const Executor& exec, long long nnz, const TensorShape& shape, long long rank) {
    const DeviceProperties& d = device_properties(exec.device());
    const long long tiles = (rank + shape.g * shape.vec - 1) / (shape.g * shape.vec);
    const long long groups_per_wave = std::max(d.sm_count, 1) * static_cast<long long>(std::max(d.max_threads_per_sm, 256)) / shape.g;
    const long long groups = std::max(1LL, 2 * groups_per_wave / tiles);
    const long long chunk = (nnz + groups - 1) / groups;
    return std::max(tensor_min_chunk, (chunk + tensor_batch - 1) / tensor_batch * tensor_batch);
}

}  // namespace

template <class V, class I>
void mttkrp(const Executor& exec, const MttkrpArgs<V, I>& args, const std::string& config) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    using T = device_t<V>;
    static_assert(std::is_same_v<T, V>, "f32 and f64 only: their device types are their own");
    check_config(config, "mttkrp");
    const CsfView<const V, I>& x = args.x;
    const DenseView<V> out = args.out;
    const index_t rank = out.cols;
    if (rank == 0 || out.rows == 0) return;
    const cudaStream_t stream = stream_of(exec);
    // Rows of empty slices stay 0; slices cut by a chunk boundary are added up with atomics.
    zero_fill(out, stream);
    if (x.nnz == 0) return;
    Workspace<T> mid_ws, leaf_ws;
    long long ld_mid = 0, ld_leaf = 0;
    const T* mid = rows_of<T>(exec, args.mid, mid_ws, ld_mid);
    const T* leaf = rows_of<T>(exec, args.leaf, leaf_ws, ld_leaf);
    constexpr int wide = static_cast<int>(16 / sizeof(T));
    const bool vector_ok =
        rank % wide == 0 && vector_aligned(mid, ld_mid, wide, sizeof(T)) && vector_aligned(leaf, ld_leaf, wide, sizeof(T));
    const TensorShape shape = pick_shape(rank, vector_ok, wide);
    const TensorArgs<T, I> a{.seg_ids = x.slice_ids,
                             .seg_ptr = x.slice_ptr,
                             .fiber_ids = x.fiber_ids,
                             .fiber_ptr = x.fiber_ptr,
                             .leaf_ids = x.leaf_ids,
                             .values = x.values,
                             .mid = mid,
                             .ld_mid = ld_mid,
                             .leaf = leaf,
                             .ld_leaf = ld_leaf,
                             .out = out_of(out),
                             .segments = x.slices,
                             .fibers = x.fibers,
                             .nnz = x.nnz,
                             .rank = rank,
                             .chunk = pick_chunk(exec, x.nnz, shape, rank)};
    launch_mttkrp<T, I>(shape, a, stream);
}

template <class V, class I>
void ttm(const Executor& exec, const TtmArgs<V, I>& args, const std::string& config) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    using T = device_t<V>;
    static_assert(std::is_same_v<T, V>, "f32 and f64 only: their device types are their own");
    check_config(config, "ttm");
    const CsfView<const V, I>& x = args.x;
    const DenseView<V> y = args.y;
    const index_t rank = y.cols;
    if (rank == 0 || x.nnz == 0) return;  // every fiber holds a non-zero: no non-zeros, no rows
    Workspace<T> u_ws;
    long long ld_u = 0;
    // y(f, :) sums rows of Uᵀ: U column-major is Uᵀ row-major, read in place.
    const T* u = rows_of<T>(exec, transposed<T>(args.u), u_ws, ld_u);
    constexpr int wide = static_cast<int>(16 / sizeof(T));
    const TensorShape shape = pick_shape(rank, rank % wide == 0 && vector_aligned(u, ld_u, wide, sizeof(T)), wide);
    // Every segment is one fiber, written to row f.
    const TensorArgs<T, I> a{.seg_ids = nullptr,
                             .seg_ptr = nullptr,
                             .fiber_ids = nullptr,
                             .fiber_ptr = x.fiber_ptr,
                             .leaf_ids = x.leaf_ids,
                             .values = x.values,
                             .mid = nullptr,
                             .ld_mid = 0,
                             .leaf = u,
                             .ld_leaf = ld_u,
                             .out = out_of(y),
                             .segments = x.fibers,
                             .fibers = x.fibers,
                             .nnz = x.nnz,
                             .rank = rank,
                             .chunk = pick_chunk(exec, x.nnz, shape, rank)};
    launch_ttm<T, I>(shape, a, stream_of(exec));
}

#define SPK_INSTANTIATE(V, I)                                                           \
    template void mttkrp(const Executor&, const MttkrpArgs<V, I>&, const std::string&); \
    template void ttm(const Executor&, const TtmArgs<V, I>&, const std::string&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
