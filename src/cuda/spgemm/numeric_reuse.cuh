#pragma once
// The numeric-reuse driver: one launch of reuse_rows per non-empty bin of C's rows but the global
// bin (the bins the symbolic phase left for the numeric phase; spgemm_numeric runs the global
// bin's rows through the hash kernels), the semiring chosen at compile time. Each group (a few
// lanes, a warp or a block, by the bin) gets a tree of its bin's table size (rows of a bin are at
// most half of it). Nothing to allocate, nothing read back.
#include "core/spgemm_kernels.hpp"
#include "core/spgemm_semiring.hpp"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/numeric_reuse_kernels.cuh"

namespace spk::detail::cuda::spgemm {

// Rows of bins 1 and 2 (at most 32 and 64 entries of C) go to sub-groups of 8 and 16 lanes: a
// row's chain of dependent loads (its id, A's and C's row bounds, A's entries, B's row bounds, B's
// entries) takes microseconds, and a warp a row left Laplace's recompute bound by it (0.82 ms on
// the H200 for 1M rows of 25 entries, 64 rows in flight an SM).
inline int reuse_lanes(int bin) { return bin == 1 ? 8 : bin == 2 ? 16 : 32; }

// One launch of a reuse kernel over `count` rows with groups of `lanes` lanes (8 to 32) in blocks of 128 threads.
template <class Kernel, class Args>
void launch_sub_warps(Kernel kernel, Args args, int lanes, long long count, std::size_t entry_bytes, cudaStream_t stream) {
    constexpr int threads = 128;
    const long long groups = threads / lanes;
    const std::size_t smem = static_cast<std::size_t>(groups) * (std::size_t{1} << args.log2_capacity) * entry_bytes;
    allow_dynamic_shared_memory(kernel);
    const long long blocks = std::min<long long>((count + groups - 1) / groups, 1ll << 30);
    kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

// Launches the kernel kernel_for(G{}) names over one bin's rows with the bin's group G: sub-groups
// of 8 or 16 lanes for bins 1 and 2 (reuse_lanes), a warp or a block for the others; entry_bytes
// of shared memory per slot of the bin's table.
template <class V, class I, class KernelFor>
void launch_reuse_bin(int bin, long long count, ReuseArgs<V, I> a, std::size_t entry_bytes, cudaStream_t stream, KernelFor kernel_for) {
    const int lanes = reuse_lanes(bin);
    a.width = std::min(a.width, lanes);
    if (lanes == 8)
        launch_sub_warps(kernel_for(SubWarp<8>{}), a, lanes, count, entry_bytes, stream);
    else if (lanes == 16)
        launch_sub_warps(kernel_for(SubWarp<16>{}), a, lanes, count, entry_bytes, stream);
    else if (kBinShapes[bin].warp)
        launch_bin(kernel_for(Group<true>{}), a, bin, count, entry_bytes, 0, 0, stream);
    else
        launch_bin(kernel_for(Group<false>{}), a, bin, count, entry_bytes, 0, 0, stream);
}

// The arguments every reuse kernel takes: A, B, C's row_ptr and sorted columns, C's values.
template <class V, class I>
ReuseArgs<V, I> reuse_args(const SpgemmProblem<V, I>& p, const DeviceState<I>& state, const I* c_col, V* c_values) {
    ReuseArgs<V, I> args{};
    args.a_ptr = p.a.row_ptr;
    args.a_col = p.a.col_idx;
    args.a_val = p.a.values;
    args.b_ptr = p.b.row_ptr;
    args.b_col = p.b.col_idx;
    args.b_val = p.b.values;
    args.c_ptr = state.row_ptr.data();
    args.c_col = c_col;
    args.c_val = c_values;
    args.masked = p.mask.has_value();
    args.width = entry_width(p.b.nnz, p.b.rows);
    args.b_rows_increasing = state.b_rows_increasing;
    return args;
}

// C's values from C's sorted columns c_col (device memory, as compute() wrote them).
template <class V, class I>
void numeric_reuse(const Executor& exec, const SpgemmProblem<V, I>& p, const DeviceState<I>& state, const I* c_col, V* c_values) {
    const ReuseArgs<V, I> args = reuse_args(p, state, c_col, c_values);
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
        for_each_bin(state.numeric, state.numeric_rows.data(), args, [&](int bin, long long count, ReuseArgs<V, I> a) {
            if (bin == kGlobalBin) return;
            launch_reuse_bin(bin, count, a, sizeof(I) + sizeof(V), stream_of(exec), [](auto g) { return reuse_rows<Op, V, I, decltype(g)>; });
        });
    });
}

}  // namespace spk::detail::cuda::spgemm
