#pragma once
// Launches of the FusedMM kernels for a runtime shape: a switch over the compiled shapes
// (G in {8, 32} lanes, VEC 1 or a 16-byte vector; G = 4 with 16-byte vectors for narrow heads).
// Instantiated once per value type (kernels_<type>.cu) so those files compile in parallel.
#include <cuda_runtime.h>

#include <string>

#include "cuda/common/check.cuh"
#include "cuda/common/programmatic_launch.cuh"
#include "cuda/fusedmm/backward_kernels.cuh"
#include "cuda/fusedmm/forward_kernel.cuh"
#include "spk/error.hpp"

namespace spk::detail::cuda::fused {

template <class T>
constexpr int wide_vec = 16 / static_cast<int>(sizeof(T));

inline void check_grid(long long blocks, long long tiles) {
    if (blocks > 0x7fffffffLL || tiles > 65535)
        unsupported("fusedmm on CUDA: problem too large for one launch (" + std::to_string(blocks) + " x " + std::to_string(tiles) +
                    " blocks)");
}

// Calls f.template operator()<G, VEC>() for the compiled shape s.
template <class T, class F>
void with_shape(const Shape& s, F&& f) {
    constexpr int W = wide_vec<T>;
    if (s.g == 4 && s.vec == W) return f.template operator()<4, W>();
    if (s.g == 8 && s.vec == 1) return f.template operator()<8, 1>();
    if (s.g == 8 && s.vec == W) return f.template operator()<8, W>();
    if (s.g == 32 && s.vec == 1) return f.template operator()<32, 1>();
    if (s.g == 32 && s.vec == W) return f.template operator()<32, W>();
    invalid_argument("fusedmm on CUDA: shape g" + std::to_string(s.g) + ".v" + std::to_string(s.vec) + " is not compiled");
}

// Calls f.template operator()<P, CR>() for the backward path p, CR saying what the kernel is
// compiled to know of args' rules (the resident paths, and the stored columns' dot-product
// attention: the general path reads them, the stored columns take no max). Groups of 4 lanes are chosen only when one vector a lane covers a
// head's widths, which is always resident: no general kernels for them. Only the column kernel
// has a stored_columns path (COLUMNS).
template <int G, bool COLUMNS, class T, class I, class F>
void with_path(BackwardPath p, const BackwardArgs<T, I>& args, F&& f) {
    using enum CompiledRules;
    const bool max_aggregate = args.rules.aggregate == Aggregate::max;
    if constexpr (COLUMNS)
        if (p == BackwardPath::stored_columns)
            return attention_rules_hold(args.rules) ? f.template operator()<BackwardPath::stored_columns, attention>()
                                                    : f.template operator()<BackwardPath::stored_columns, runtime>();
    if (p == BackwardPath::resident_scalar)
        return max_aggregate ? f.template operator()<BackwardPath::resident_scalar, max>()
                             : f.template operator()<BackwardPath::resident_scalar, runtime>();
    if (p == BackwardPath::resident_vector) {
        if (max_aggregate) return f.template operator()<BackwardPath::resident_vector, max>();
        if (attention_rules_hold(args.rules) && args.recompute && !args.use_saved)
            return f.template operator()<BackwardPath::resident_vector, attention>();
        return f.template operator()<BackwardPath::resident_vector, runtime>();
    }
    if constexpr (G > 4)
        if (p == BackwardPath::general) return f.template operator()<BackwardPath::general, runtime>();
    invalid_argument("fusedmm on CUDA: no backward kernel for path " + std::to_string(static_cast<int>(p)) + " and groups of " +
                     std::to_string(G) + " lanes");
}

// The forward grid: first the chunk blocks, enough for every (chunk, head) item the split's
// workspaces allow (the chunks' number is known on the device only; the blocks without an item
// leave at once), a group an item or, with block items, a block; then with block items a block a
// (team row, head); then one block per row block (groups / team rows) and head; tiles along y.
template <class T, class I>
void launch_forward(const Shape& s, bool max_aggregate, const ForwardArgs<T, I>& args, long long tiles, cudaStream_t stream) {
    with_shape<T>(s, [&]<int G, int VEC>() {
        constexpr long long groups = kBlockThreads / G;
        ForwardArgs<T, I> a = args;
        const bool block_items = G == 32 && a.split.block_items && !max_aggregate;
        const long long chunk_items = a.split.max_chunks * a.rules.heads;
        a.split.blocks = block_items ? chunk_items : (chunk_items + groups - 1) / groups;
        a.split.team_blocks = block_items ? a.split.team_count * a.rules.heads : 0;
        const long long rows_per_block = groups / (max_aggregate ? 1 : a.team);
        const long long blocks = a.split.blocks + a.split.team_blocks + (a.rows + rows_per_block - 1) / rows_per_block * a.rules.heads;
        if (blocks == 0 || tiles == 0) return;
        check_grid(blocks, tiles);
        const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles));
        // Teams run in kernels of their own (forward_work); teams of whole warps merge through shared memory.
        if ((a.team > 1 || block_items) && !max_aggregate) {
            const size_t bytes = G == 32 ? team_state_bytes<accum_t<T>, forward_lane_elements(VEC)> : 0;
            if (attention_rules_hold(a.rules))
                launch_after_previous(forward_kernel<T, I, G, VEC, CompiledRules::attention, true>, grid, kBlockThreads, bytes, stream, a);
            else
                launch_after_previous(forward_kernel<T, I, G, VEC, CompiledRules::runtime, true>, grid, kBlockThreads, bytes, stream, a);
        } else if (max_aggregate) {
            launch_after_previous(forward_kernel<T, I, G, VEC, CompiledRules::max, false>, grid, kBlockThreads, 0, stream, a);
        } else if (attention_rules_hold(a.rules)) {
            launch_after_previous(forward_kernel<T, I, G, VEC, CompiledRules::attention, false>, grid, kBlockThreads, 0, stream, a);
        } else {
            launch_after_previous(forward_kernel<T, I, G, VEC, CompiledRules::runtime, false>, grid, kBlockThreads, 0, stream, a);
        }
    });
}

template <class T, class I>
void launch_combine_chunks(const ForwardArgs<T, I>& args, long long blocks, cudaStream_t stream) {
    if (blocks == 0) return;
    check_grid(blocks, 1);
    combine_chunks<T, I><<<static_cast<unsigned>(blocks), kCombineThreads, 0, stream>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

// The row kernel's grid: first the chunk blocks, one group a (chunk, head group) item of the long
// rows found, then, unless `chunks_only`, one group a (row, head group); tiles along y (one tile on
// the resident paths).
template <class T, class I>
void launch_backward_rows(const Shape& s, const BackwardArgs<T, I>& args, bool chunks_only, long long tiles, BackwardPath path,
                          cudaStream_t stream) {
    with_shape<T>(s, [&]<int G, int VEC>() {
        constexpr long long groups = kBlockThreads / G;
        BackwardArgs<T, I> a = args;
        const long long head_groups = a.rules.heads / a.row_heads;
        a.split.rows.blocks = (a.split.rows.max_chunks * head_groups + groups - 1) / groups;
        const long long blocks = a.split.rows.blocks + (chunks_only ? 0 : (a.rows * head_groups + groups - 1) / groups);
        if (blocks == 0 || tiles == 0) return;
        check_grid(blocks, tiles);
        const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(path == BackwardPath::general ? tiles : 1));
        with_path<G, false>(path, a, [&]<BackwardPath P, CompiledRules CR>() {
            backward_rows_kernel<T, I, G, VEC, P, CR><<<grid, kBlockThreads, 0, stream>>>(a);
        });
        SPK_CUDA_CHECK_LAUNCH();
    });
}

// The column kernel's grid: first the chunk blocks of the long columns, then one group a
// (column, head); tiles along y (one tile on the resident paths).
template <class T, class I>
void launch_backward_columns(const Shape& s, const BackwardArgs<T, I>& args, long long tiles, BackwardPath path, cudaStream_t stream) {
    with_shape<T>(s, [&]<int G, int VEC>() {
        constexpr long long groups = kBlockThreads / G;
        BackwardArgs<T, I> a = args;
        a.split.columns.blocks = (a.split.columns.max_chunks * a.rules.heads + groups - 1) / groups;
        const long long blocks = a.split.columns.blocks + (a.cols * a.rules.heads + groups - 1) / groups;
        if (blocks == 0 || tiles == 0) return;
        check_grid(blocks, tiles);
        const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(path == BackwardPath::general ? tiles : 1));
        with_path<G, true>(path, a, [&]<BackwardPath P, CompiledRules CR>() {
            backward_columns_kernel<T, I, G, VEC, P, CR><<<grid, kBlockThreads, 0, stream>>>(a);
        });
        SPK_CUDA_CHECK_LAUNCH();
    });
}

}  // namespace spk::detail::cuda::fused

// Explicit instantiations of the launches for one value type T.
#define SPK_FUSED_LAUNCHES(T, I)                                                                                      \
    template void launch_forward<T, I>(const Shape&, bool, const ForwardArgs<T, I>&, long long, cudaStream_t);        \
    template void launch_combine_chunks<T, I>(const ForwardArgs<T, I>&, long long, cudaStream_t);                     \
    template void launch_backward_rows<T, I>(const Shape&, const BackwardArgs<T, I>&, bool, long long, BackwardPath, cudaStream_t); \
    template void launch_backward_columns<T, I>(const Shape&, const BackwardArgs<T, I>&, long long, BackwardPath, cudaStream_t);
