#pragma once
// Drivers of the numeric reuse with places (reuse_places_kernels.cuh): record_reuse_places at a
// plan's first recompute, after the hash kernels wrote C's columns; replay_reuse_places at the
// later ones, for every row of C.
#include <algorithm>
#include <cstdint>

#include "core/cuda_runtime.hpp"
#include "cuda/spgemm/numeric_reuse.cuh"
#include "cuda/spgemm/prefix_sum.cuh"
#include "cuda/spgemm/replay_entries.cuh"
#include "cuda/spgemm/replay_short_rows.cuh"
#include "cuda/spgemm/reuse_places_kernels.cuh"

namespace spk::detail::cuda::spgemm {

// Blocks for the global bin's rows (a block a row, rows pulled in turn): as many as stay resident.
inline unsigned global_row_blocks(const Executor& exec, long long rows) {
    return static_cast<unsigned>(std::max<long long>(1, std::min<long long>(rows, 4ll * multiprocessors(exec))));
}
inline constexpr int kGlobalRowThreads = 512;

// Finds every product's place in its row of C (C's sorted columns in c_col) and keeps the places
// in state.reuse. Returns false, keeping nothing, where they would take more than a quarter of the
// device's memory. The host reads two numbers back (the counts of places): the call waits for the
// work queued before it.
template <class V, class I>
bool record_reuse_places(const Executor& exec, const SpgemmProblem<V, I>& p, const DeviceState<I>& state, const I* c_col) {
    const cudaStream_t stream = stream_of(exec);
    const long long entries = p.a.nnz;
    Array<long long> entry_offset(exec, static_cast<std::size_t>(entries) + 1);
    Array<long long> global_entry_offset(exec, static_cast<std::size_t>(entries) + 1);
    {
        Workspace<long long> counts(exec, static_cast<std::size_t>(entries)), global_counts(exec, static_cast<std::size_t>(entries));
        if (entries > 0) {
            constexpr int threads = 256;
            const unsigned blocks = static_cast<unsigned>(std::min<long long>(grid_for(p.a.rows, threads / 32), 1ll << 20));
            count_placed_products<I><<<blocks, threads, 0, stream>>>(p.a.row_ptr, p.a.col_idx, p.b.row_ptr, state.row_ptr.data(), p.a.rows,
                                                                     counts.data(), global_counts.data());
            SPK_CUDA_CHECK_LAUNCH();
        }
        prefix_sum(exec, counts.data(), entries, entry_offset.data());
        prefix_sum(exec, global_counts.data(), entries, global_entry_offset.data());
    }
    const long long products = read_back(exec, entry_offset.data() + entries, 1).front();
    const long long global_products = read_back(exec, global_entry_offset.data() + entries, 1).front();
    const double bytes = static_cast<double>(products) * sizeof(place_t) + static_cast<double>(global_products) * sizeof(global_place_t) +
                         2.0 * static_cast<double>(entries + 1) * sizeof(long long);
    if (bytes > static_cast<double>(device_properties(exec.device()).global_bytes) / 4) return false;
    Array<place_t> places(exec, static_cast<std::size_t>(products));
    Array<global_place_t> global_places(exec, static_cast<std::size_t>(global_products));
    ReuseArgs<V, I> args = reuse_args(p, state, c_col, static_cast<V*>(nullptr));
    args.places = places.data();
    args.entry_offset = entry_offset.data();
    for_each_bin(state.numeric, state.numeric_rows.data(), args, [&](int bin, long long count, ReuseArgs<V, I> a) {
        if (bin != kGlobalBin) {
            launch_reuse_bin(bin, count, a, sizeof(I), stream, [](auto g) { return record_places<V, I, decltype(g)>; });
            return;
        }
        record_global_places<V, I><<<global_row_blocks(exec, count), kGlobalRowThreads, 0, stream>>>(a, global_places.data(),
                                                                                                     global_entry_offset.data());
        SPK_CUDA_CHECK_LAUNCH();
    });
    state.reuse.places = std::move(places);
    state.reuse.entry_offset = std::move(entry_offset);
    state.reuse.global_places = std::move(global_places);
    state.reuse.global_entry_offset = std::move(global_entry_offset);
    return true;
}

// One launch of replay_short_rows over `count` rows of a bin, `lanes` lanes a row (launch_sub_warps).
template <class Op, class V, class I>
void launch_short_replay(ReuseArgs<V, I> a, int lanes, long long count, cudaStream_t stream) {
    const auto kernel = lanes == 8 ? replay_short_rows<Op, V, I, 8> : lanes == 16 ? replay_short_rows<Op, V, I, 16> : replay_short_rows<Op, V, I, 32>;
    launch_sub_warps(kernel, a, lanes, count, sizeof(V), stream);
}

// Whether a bin's rows replay through replay_short_rows: short rows (bins 1 to 4) whose rounds in
// replay_rows would combine by atomics anyway (several sub-groups a row, or B's rows not known
// free of repeated columns). Where one sub-group takes a whole round, replay_rows writes without
// atomics and stays ahead (H200, f64 Laplace 128^3 squared, rows of bin 1: 0.81 ms against 0.98
// for the short rows' kernel, whose every product is an atomic); elsewhere the short rows' kernel
// is ahead (uniform 1M x 16 squared 2.53 -> 2.21 ms; f32 AMG products: BigStar R·A 0.86 ms, 0.57x ->
// 0.70x cuSPARSE's reuse, elasticity A·P 0.81x -> 1.00x).
inline bool replays_short(int bin, int width, bool b_rows_increasing) {
    const int lanes = short_replay_lanes(bin);
    if (lanes == 0) return false;
    const bool round_kernel_exclusive = b_rows_increasing && std::min(width, reuse_lanes(bin)) == reuse_lanes(bin);
    return !round_kernel_exclusive;
}

// C's values from what record_reuse_places and order_products_by_entry kept: the rows the entries
// cover by entries, the others by places.
template <class V, class I>
void replay_reuse_places(const Executor& exec, const SpgemmProblem<V, I>& p, const DeviceState<I>& state, V* c_values) {
    ReuseArgs<V, I> args = reuse_args(p, state, state.reuse.cols.data(), c_values);
    args.places = state.reuse.places.data();
    args.entry_offset = state.reuse.entry_offset.data();
    const cudaStream_t stream = stream_of(exec);
    const int entry_max_bin = state.reuse.entry_max_bin;
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
        if (entry_max_bin > 0) replay_by_entries<Op>(exec, p, state, c_values);
        for_each_bin(state.numeric, state.numeric_rows.data(), args, [&](int bin, long long count, ReuseArgs<V, I> a) {
            if (bin <= entry_max_bin) return;
            if (replays_short(bin, a.width, state.b_rows_increasing)) {
                launch_short_replay<Op>(a, short_replay_lanes(bin), count, stream);
                return;
            }
            if (bin != kGlobalBin) {
                launch_reuse_bin(bin, count, a, sizeof(V), stream, [](auto g) { return replay_rows<Op, V, I, decltype(g)>; });
                return;
            }
            replay_global_rows<Op, V, I><<<global_row_blocks(exec, count), kGlobalRowThreads, 0, stream>>>(
                a, state.reuse.global_places.data(), state.reuse.global_entry_offset.data());
            SPK_CUDA_CHECK_LAUNCH();
        });
    });
}

}  // namespace spk::detail::cuda::spgemm
