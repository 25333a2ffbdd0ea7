#pragma once
// The numeric phase's driver: one kernel launch per non-empty bin of C's rows (bins and
// row_ptr come from the symbolic phase), the semiring chosen at compile time. Returns without
// waiting: the pool is a stream-ordered workspace. compute() and a plan's first recompute run the
// hash kernels of numeric_kernels.cuh (the first recompute into the plan's copy of C's columns,
// then, unless SpgemmProblem::reuse is search, a pass that keeps each product's place in C, and
// where entries apply the products grouped by entry of C); later recomputes replay those
// (reuse_places.cuh, replay_entries.cuh) or search C's columns (numeric_reuse.cuh).
#include <mutex>

#include "core/cuda_runtime.hpp"
#include "core/spgemm_kernels.hpp"
#include "core/spgemm_semiring.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/spgemm/block_numeric.cuh"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/numeric_kernels.cuh"
#include "cuda/spgemm/numeric_reuse.cuh"
#include "cuda/spgemm/reuse_places.cuh"

namespace spk::detail::cuda {

namespace spgemm {

// At most this much pool: fewer blocks share the global bin's rows where slots are large.
inline constexpr long long kPoolBytes = 1ll << 31;

// Sizes the global bin's accumulators (see global_table): the dense accumulator wherever its
// bitmap fits in shared memory (then the shared memory holds the bitmap, and the pool a value per
// column per slot), else shared hash tables up to the limit and pool tables beyond it.
template <class V, class I>
void size_global_bin(const Executor& exec, const BinLayout& bins, NumericArgs<V, I>& args) {
    using K = key_t<I>;
    const long long limit = shared_memory_limit(exec);
    const long long hash_bytes = static_cast<long long>(sizeof(K) + sizeof(V)) << ceil_log2(2 * bins.max_need);
    const long long bitmap_bytes = 4 * bitmap_words(args.cols);
    args.dense_values = bitmap_bytes <= limit;
    args.smem_bytes = args.dense_values ? bitmap_bytes : std::min(limit, hash_bytes);
    const long long slot = args.dense_values ? args.cols * static_cast<long long>(sizeof(V)) : hash_bytes > args.smem_bytes ? hash_bytes : 0;
    args.slot_bytes = (slot + 15) / 16 * 16;
}

// C's columns and values by the hash kernels (of the global bin's rows alone when global_bin_only).
template <class V, class I>
void numeric_hash(const Executor& exec, const SpgemmProblem<V, I>& p, const DeviceState<I>& state, I* c_col_idx, V* c_values,
                  bool global_bin_only = false) {
    using K = key_t<I>;
    const BinLayout& bins = state.numeric;
    const cudaStream_t stream = stream_of(exec);
    NumericArgs<V, I> args{};
    args.a_ptr = p.a.row_ptr;
    args.a_col = p.a.col_idx;
    args.a_val = p.a.values;
    args.b_ptr = p.b.row_ptr;
    args.b_col = p.b.col_idx;
    args.b_val = p.b.values;
    args.masked = p.mask.has_value();
    args.m_ptr = p.mask ? p.mask->row_ptr : nullptr;
    args.m_col = p.mask ? (state.mask_cols.empty() ? p.mask->col_idx : state.mask_cols.data()) : nullptr;
    args.complement = p.complement_mask;
    args.c_ptr = state.row_ptr.data();
    args.c_col = c_col_idx;
    args.c_val = c_values;
    args.cols = p.b.cols;
    args.width = entry_width(p.b.nnz, p.b.rows);
    args.b_rows_increasing = state.b_rows_increasing;
    const long long global_rows = bins.count(kGlobalBin);
    if (global_rows > 0) size_global_bin(exec, bins, args);
    // The global bin's pool: its row counter, then a slot per block.
    Workspace<unsigned char> pool;
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
        for_each_bin(bins, state.numeric_rows.data(), args, [&](int bin, long long count, NumericArgs<V, I> a) {
            if (global_bin_only && bin != kGlobalBin) return;
            a.log2_capacity += kBinShapes[bin].numeric_spare;
            a.hash_block_bits = kBinShapes[bin].numeric_hash_block_bits;
            if (bin == kGlobalBin) {
                long long slots = global_slots(exec, numeric_global_rows<Op, V, I>, a.smem_bytes, count);
                if (a.slot_bytes > 0) slots = std::min(slots, std::max(1ll, kPoolBytes / a.slot_bytes));
                pool = Workspace<unsigned char>(exec, static_cast<std::size_t>(16 + slots * a.slot_bytes));
                SPK_CUDA_CHECK(cudaMemsetAsync(pool.data(), 0, 16, stream));
                a.next_row = reinterpret_cast<unsigned long long*>(pool.data());
                a.pool = pool.data() + 16;
                launch_bin(numeric_global_rows<Op, V, I>, a, bin, count, sizeof(K) + sizeof(V), slots, a.smem_bytes, stream);
            } else if (kBinShapes[bin].warp) {
                launch_bin(numeric_warp_rows<Op, V, I>, a, bin, count, sizeof(K) + sizeof(V), 0, 0, stream);
            } else {
                // Block rows spanning at most 32 x kSpanOrderWords columns leave in order without a sort.
                a.order_words = kSpanOrderWords;
                launch_bin(numeric_block_rows<Op, V, I>, a, bin, count, sizeof(K) + sizeof(V), 0, 0, stream, kSpanOrderBytes);
            }
        });
    });
}

}  // namespace spgemm

template <class V, class I>
void spgemm_numeric(const Executor& exec, const SpgemmProblem<V, I>& p, const SpgemmAnalysis& s, I* c_col_idx, V* c_values) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    using namespace spgemm;
    const DeviceState<I>& state = device_state<I>(s);
    // An empty C has nothing to compute, and its null column array would read as a recompute.
    if (s.nnz == 0) return;
    if (state.blocks) {
        block_numeric(exec, p, *state.blocks, c_col_idx, c_values, [&](const SpgemmProblem<V, I>& q, const DeviceState<I>& qs, I* cols, V* values) {
            numeric_hash(exec, q, qs, cols, values);
        });
        return;
    }
    if (c_col_idx != nullptr) {  // compute()
        numeric_hash(exec, p, state, c_col_idx, c_values);
        return;
    }
    const std::lock_guard<std::mutex> lock(state.reuse.mutex);
    if (state.reuse.ready && state.reuse.placed) {
        replay_reuse_places(exec, p, state, c_values);
        return;
    }
    if (state.reuse.ready) {
        numeric_reuse(exec, p, state, state.reuse.cols.data(), c_values);
        // The global bin's rows outgrow a shared-memory tree: in windows of C's columns each window
        // would scan all of the row's products again (R-MAT 18 squared: reuse 280 ms against a
        // 169 ms product). The hash path's accumulators scan them once; for these rows it rewrites
        // the columns it wrote at the first recompute, unchanged.
        numeric_hash(exec, p, state, state.reuse.cols.data(), c_values, true);
        return;
    }
    state.reuse.cols = Array<I>(exec, static_cast<std::size_t>(s.nnz));
    numeric_hash(exec, p, state, state.reuse.cols.data(), c_values);
    state.reuse.ready = true;
    if (p.reuse == SpgemmReuse::search) return;
    try {
        state.reuse.placed = record_reuse_places(exec, p, state, state.reuse.cols.data());
        if (state.reuse.placed && p.reuse != SpgemmReuse::places) order_products_by_entry(exec, p, state, p.reuse == SpgemmReuse::automatic);
    } catch (const Error& e) {  // no room for the places (later recomputes search C's columns) or the entries (they use the places)
        if (e.kind() != ErrorKind::OutOfMemory) throw;
    }
}

}  // namespace spk::detail::cuda
