// CUDA SDDMM, forward and backward: operands into the shapes the kernels read (row-major X and Y,
// transposed into workspaces when column-major), the kernel shape from d, and the launches.
//   forward: the dot kernel writes s_p <X_i, Y_j>_h, in the mode dot_mode.hpp picks (equal
//            slices of entries, or neighbouring rows in lockstep).
//   dA:      the dot kernel again, summing d_out(p, h) <X_i, Y_j>_h over heads.
//   dX:      the gather kernel over A's rows (Y's rows weighted by d_out s).
//   dY:      the gather kernel over Aᵀ's rows (X's rows), Aᵀ's pattern built per call (a free
//            function has no plan to keep it in; see cpu/sddmm_backward.cpp on why not cached).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "core/sddmm_kernels.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/transpose.cuh"
#include "core/transposed_pattern.hpp"
#include "cuda/common/values.cuh"
#include "cuda/sddmm/args.cuh"
#include "cuda/sddmm/dot_mode.hpp"

namespace spk::detail::cuda {

namespace {

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

// A dense operand as row-major device memory: the view's own, or a transposed copy in `workspace`.
template <class V>
const device_t<V>* row_major(const Executor& exec, DenseView<const V> v, Array<V>& workspace, long long& ld) {
    using T = device_t<V>;
    const T* data = reinterpret_cast<const T*>(v.data);
    ld = v.ld;
    if (v.layout == Layout::row_major) return data;
    workspace = Array<V>(exec, static_cast<std::size_t>(v.rows * v.cols));
    T* out = reinterpret_cast<T*>(workspace.data());
    transpose<T>(data, v.cols, v.rows, v.ld, out, v.cols, stream_of(exec));
    ld = v.cols;
    return out;
}

template <class V>
Strided<device_t<V>> strided(DenseView<V> v) {
    const bool rm = v.layout == Layout::row_major;
    return {reinterpret_cast<device_t<V>*>(v.data), rm ? v.ld : 1, rm ? 1 : v.ld};
}
template <class V>
Strided<const device_t<V>> strided(DenseView<const V> v) {
    const bool rm = v.layout == Layout::row_major;
    return {reinterpret_cast<const device_t<V>*>(v.data), rm ? v.ld : 1, rm ? 1 : v.ld};
}

bool vector_aligned(const void* p, long long ld, int vec, std::size_t elem) {
    return reinterpret_cast<std::uintptr_t>(p) % (static_cast<std::size_t>(vec) * elem) == 0 && ld % vec == 0;
}

// The kernel shape for `features` values a group covers (d per entry in the dot kernel, the
// whole width in the gather kernel): 16-byte loads when the rows allow them, and the fewest
// lanes (a power of two up to 32) that cover the features in one pass.
SddmmShape pick_shape(long long features, bool vector_ok, int wide) {
    SddmmShape s{1, vector_ok ? wide : 1};
    const long long lanes = (features + s.vec - 1) / s.vec;
    while (s.g < 32 && s.g < lanes) s.g *= 2;
    return s;
}

// Entries per warp in the dot kernel: whole tiles, enough warps for about four waves of the
// device at the kernel's occupancy (so the last, partial wave costs little), at least eight
// tiles so that the warp's row search is paid for where the matrix still fills a wave at that
// (on smaller ones a warp's serial tiles, not its search, set the time: karate's 156 entries
// took two warps 8 tiles each, 13 us against cuSPARSE's 7), and under 2^30 (the kernel counts
// a slice's positions in 32 bits).
long long dot_chunk(const Executor& exec, long long nnz, int g) {
    constexpr long long search_tiles = 8;
    const long long sms = std::max(device_properties(exec.device()).sm_count, 1);
    const long long tile = static_cast<long long>(32 / g) * sddmm_batch;
    const long long wave = sms * sddmm_dot_min_blocks * (sddmm_block_threads / 32);
    const long long warps = 4 * wave;
    const long long tiles = ((nnz + warps - 1) / warps + tile - 1) / tile;
    const long long min_tiles = nnz >= search_tiles * tile * wave ? search_tiles : 1;
    return std::clamp<long long>(tiles, min_tiles, (1LL << 30) / tile - 1) * tile;
}

// Whether X's and Y's rows allow 16-byte loads of a head's d features.
template <class T>
bool vector_loads_ok(const T* x, long long ldx, const T* y, long long ldy, index_t d) {
    constexpr int wide = static_cast<int>(16 / sizeof(T));
    return d % wide == 0 && vector_aligned(x, ldx, wide, sizeof(T)) && vector_aligned(y, ldy, wide, sizeof(T));
}

// One dot-kernel launch: the forward pass (weights empty) or dA (weights = d_out, no scale, and
// the slices mode: the rows kernel reads no weights).
template <class V, class I>
void run_dot(const Executor& exec, CsrView<const V, I> a, const device_t<V>* x, long long ldx, const device_t<V>* y, long long ldy,
             index_t d, index_t heads, const device_t<V>* scale, Strided<device_t<V>> out, Strided<const device_t<V>> weights,
             const SddmmDotChoice& choice) {
    using T = device_t<V>;
    constexpr int wide = static_cast<int>(16 / sizeof(T));
    const bool vector_ok = vector_loads_ok(x, ldx, y, ldy, d);
    // The rows kernel and the dot kernel's one-pass form count offsets into X, Y and the output
    // (from a warp's first entry) in 32 bits.
    constexpr long long narrow = 1LL << 31;
    const bool narrow_offsets =
        a.rows * ldx < narrow && a.cols * ldy < narrow && (a.nnz - 1) * out.rs + (heads - 1) * out.cs < narrow;
    if (choice.mode == SddmmDotMode::rows && narrow_offsets) {
        DotArgs<T, I> args{a.row_ptr, a.col_idx, scale, x, ldx, y, ldy, out, weights, a.rows, a.nnz, d, heads, 0, 0, true};
        args.split = choice.split;
        launch_rows<T, I>(choice.shape, args, stream_of(exec));
        return;
    }
    const SddmmShape shape = pick_shape(d, vector_ok, wide);
    const long long span = static_cast<long long>(shape.g) * shape.vec;
    const long long steps = std::max<long long>(1, (d + span - 1) / span);
    const DotArgs<T, I> args{
        a.row_ptr, a.col_idx, scale, x, ldx, y, ldy, out, weights, a.rows, a.nnz, d, heads, steps, dot_chunk(exec, a.nnz, shape.g),
        narrow_offsets};
    launch_dot<T, I>(shape, args, stream_of(exec));
}

// One gather-kernel launch: out(r, :) = sum over the pattern's row r of d_out s Z(idx, :).
template <class V, class I>
void run_gather(const Executor& exec, const I* ptr, const I* idx, const I* entry, index_t rows, const device_t<V>* scale,
                Strided<const device_t<V>> d_out, const device_t<V>* z, long long ldz, DenseView<V> out, index_t d) {
    using T = device_t<V>;
    constexpr int wide = static_cast<int>(16 / sizeof(T));
    const index_t width = out.cols;
    if (rows == 0 || width == 0) return;
    const SddmmShape shape = pick_shape(width, d % wide == 0 && vector_aligned(z, ldz, wide, sizeof(T)), wide);
    const GatherArgs<T, I> args{ptr, idx, entry, scale, d_out, z, ldz, strided(out), rows, width, d};
    launch_gather<T, I>(shape, args, stream_of(exec));
}

}  // namespace

template <class V, class I>
void sddmm(const Executor& exec, const SddmmArgs<V, I>& args) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    using T = device_t<V>;
    const auto& a = args.a;
    check_sddmm_config(args.config);
    if (a.nnz == 0) return;
    Array<V> x_ws, y_ws;
    long long ldx = 0, ldy = 0;
    const T* x = row_major(exec, args.x, x_ws, ldx);
    const T* y = row_major(exec, args.y, y_ws, ldy);
    const T* scale = args.scale_by_a ? reinterpret_cast<const T*>(a.values) : nullptr;
    const index_t d = args.x.cols / args.heads;
    const SddmmDotChoice choice = sddmm_dot_choice(exec, a, d, vector_loads_ok(x, ldx, y, ldy, d), args.config);
    run_dot<V, I>(exec, a, x, ldx, y, ldy, d, args.heads, scale, strided(args.out), Strided<const T>{nullptr, 0, 0}, choice);
    // Workspaces are freed on return: wait for the kernel that reads them.
    if (!x_ws.empty() || !y_ws.empty()) SPK_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
}

template <class V, class I>
void sddmm_backward(const Executor& exec, const SddmmBackwardArgs<V, I>& args) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    using T = device_t<V>;
    const auto& a = args.a;
    const bool want_dx = args.dx.data != nullptr, want_dy = args.dy.data != nullptr, want_da = args.da.data != nullptr;
    const index_t d = args.x.cols / args.heads;
    // X is read for dA and dY, Y for dA and dX.
    Array<V> x_ws, y_ws;
    long long ldx = 0, ldy = 0;
    const T* x = want_da || want_dy ? row_major(exec, args.x, x_ws, ldx) : nullptr;
    const T* y = want_da || want_dx ? row_major(exec, args.y, y_ws, ldy) : nullptr;
    const T* scale = args.scale_by_a ? reinterpret_cast<const T*>(a.values) : nullptr;
    const Strided<const T> d_out = strided(args.d_out);

    if (want_da && a.nnz > 0) run_dot<V, I>(exec, a, x, ldx, y, ldy, d, args.heads, nullptr, strided(args.da), d_out, SddmmDotChoice{});
    if (want_dx) run_gather<V, I>(exec, a.row_ptr, a.col_idx, nullptr, a.rows, scale, d_out, y, ldy, args.dx, d);
    if (want_dy) {
        const DeviceTransposedPattern<I> at = transposed_pattern<I>(exec, a.row_ptr, a.col_idx, a.rows, a.cols, a.nnz);
        run_gather<V, I>(exec, at.col_ptr.data(), at.row_idx.data(), at.entry.data(), a.cols, scale, d_out, x, ldx, args.dy, d);
        // Aᵀ's pattern is freed on return.
        SPK_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    } else if (!x_ws.empty() || !y_ws.empty())
        SPK_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
}

#define SPK_INSTANTIATE(V, I)                                     \
    template void sddmm(const Executor&, const SddmmArgs<V, I>&); \
    template void sddmm_backward(const Executor&, const SddmmBackwardArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
