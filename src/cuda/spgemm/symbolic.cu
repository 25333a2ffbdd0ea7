// CUDA SpGEMM symbolic phase. Rows of C with few products (short_rows.cuh) are counted directly
// from B's columns, and binned for the numeric phase in the same kernel. The others take the
// general path (second paper, kkmem): B compressed into column-block bit masks, the (block, bits)
// pairs each row of A reaches, rows binned by the size of their symbolic table, each row of C
// counted; C's rows then binned by length for the numeric phase (that pass also sums nnz(C)).
// C's row_ptr is scanned on the device in the index type, only when nnz(C) fits it (else the plan
// rejects C). Counts are 64-bit throughout. Every temporary is a stream-ordered workspace, and
// what the host needs comes back in one copy a stage (plan_word): a matrix of short rows costs
// one stream synchronisation, the general path two, nothing else waits for the device.
#include <cub/cub.cuh>

#include <limits>
#include <string>

#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"
#include "cuda/spgemm/binning.cuh"
#include "cuda/spgemm/blocks.cuh"
#include "cuda/spgemm/prefix_sum.cuh"
#include "cuda/spgemm/short_rows.cuh"
#include "cuda/spgemm/symbolic_kernels.cuh"

namespace spk::detail::cuda {

namespace {

using namespace spgemm;

// B's rows as (column block, bit mask) pairs. Sized for nnz(B) pairs, the most there can be, so
// that nothing waits for their count: it goes to words[plan_word::pairs] (and whether a row's
// columns fail to strictly increase to words[plan_word::unordered]), read back with the bins.
struct CompressedB {
    Workspace<long long> ptr;
    Workspace<unsigned> block, bits;
};

template <class V, class I>
CompressedB compress_b(const Executor& exec, const CsrView<const V, I>& b, unsigned long long* words) {
    CompressedB c;
    const long long rows = b.rows;
    const cudaStream_t stream = stream_of(exec);
    c.ptr = Workspace<long long>(exec, static_cast<std::size_t>(rows) + 1);
    Workspace<long long> pairs(exec, static_cast<std::size_t>(rows));
    if (rows > 0) {
        count_block_pairs<I><<<grid_for(rows, 256), 256, 0, stream>>>(b.row_ptr, b.col_idx, rows, pairs.data(), words + plan_word::unordered);
        SPK_CUDA_CHECK_LAUNCH();
    }
    prefix_sum(exec, pairs.data(), rows, c.ptr.data());
    SPK_CUDA_CHECK(cudaMemcpyAsync(words + plan_word::pairs, c.ptr.data() + rows, sizeof(long long), cudaMemcpyDeviceToDevice, stream));
    c.block = Workspace<unsigned>(exec, static_cast<std::size_t>(b.nnz));
    c.bits = Workspace<unsigned>(exec, static_cast<std::size_t>(b.nnz));
    if (b.nnz > 0) {
        fill_block_pairs<I><<<grid_for(rows, 256), 256, 0, stream>>>(b.row_ptr, b.col_idx, rows, c.ptr.data(), c.block.data(), c.bits.data());
        SPK_CUDA_CHECK_LAUNCH();
    }
    return c;
}

// The mask's columns sorted within each row (binary searches need them sorted).
template <class V, class I>
Workspace<I> sorted_mask_columns(const Executor& exec, const CsrView<const V, I>& m) {
    if (m.nnz > std::numeric_limits<int>::max() || m.rows > std::numeric_limits<int>::max())
        unsupported("spgemm on CUDA: an unsorted mask with more than 2^31 - 1 entries or rows; sort its rows first");
    Workspace<I> cols(exec, static_cast<std::size_t>(m.nnz));
    run_cub(exec, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceSegmentedSort::SortKeys(temp, bytes, m.col_idx, cols.data(), static_cast<int>(m.nnz), static_cast<int>(m.rows),
                                                  m.row_ptr, m.row_ptr + 1, stream_of(exec));
    });
    return cols;
}

// The general path's count of C's rows into row_nnz: all of them, or with short_counted (row_nnz
// holds the short rows' counts, kLongRow elsewhere) the long ones. words: plan_word::all words.
// Returns whether B's columns strictly increase in every row.
template <class V, class I>
bool count_rows_in_general(const Executor& exec, const SpgemmProblem<V, I>& p, const I* mask_cols, long long blocks, bool short_counted,
                           long long* row_nnz, unsigned long long* words) {
    const long long rows = p.a.rows;
    const cudaStream_t stream = stream_of(exec);
    SPK_CUDA_CHECK(cudaMemsetAsync(words, 0, plan_word::all * sizeof(unsigned long long), stream));
    const CompressedB bc = compress_b(exec, p.b, words);
    Workspace<long long> need(exec, static_cast<std::size_t>(rows));
    if (rows > 0) {
        const int width = entry_width(p.a.nnz, rows);
        row_needs<I><<<grid_for(rows, 256 / width), 256, 0, stream>>>(p.a.row_ptr, p.a.col_idx, rows, bc.ptr.data(), blocks, width,
                                                                        short_counted ? row_nnz : nullptr, need.data());
        SPK_CUDA_CHECK_LAUNCH();
    }
    // Rows of need 0 stay out of the bins: their count is 0, or the short rows' own.
    if (rows > 0 && !short_counted) SPK_CUDA_CHECK(cudaMemsetAsync(row_nnz, 0, sizeof(long long) * static_cast<std::size_t>(rows), stream));
    queue_bin_count(exec, need.data(), rows, words + plan_word::totals);
    const std::vector<unsigned long long> host = read_back(exec, words, plan_word::read);
    const BinLayout bins = bin_layout(host.data() + plan_word::totals);
    Workspace<I> bin_ids(exec, static_cast<std::size_t>(rows));
    queue_bin_scatter(exec, need.data(), rows, bins, words + plan_word::cursors, bin_ids.data());
    SymbolicArgs<I> args{};
    args.a_ptr = p.a.row_ptr;
    args.a_col = p.a.col_idx;
    args.bc_ptr = bc.ptr.data();
    args.bc_block = bc.block.data();
    args.bc_bits = bc.bits.data();
    args.masked = p.mask.has_value();
    args.m_ptr = p.mask ? p.mask->row_ptr : nullptr;
    args.m_col = mask_cols;
    args.complement = p.complement_mask;
    args.need = need.data();
    args.blocks = blocks;
    args.width = entry_width(static_cast<long long>(host[plan_word::pairs]), p.b.rows);
    args.b_rows_increasing = host[plan_word::unordered] == 0;
    args.row_nnz = row_nnz;
    // The global bin (see symbolic_table): a word per column block in shared memory where that
    // fits, else shared hash tables up to the limit; the pool (its row counter, then a slot per
    // block for the largest table, 8 bytes an entry) only for what shared memory cannot hold.
    Workspace<unsigned> pool;
    long long slots = 0;
    const long long global_rows = bins.count(kGlobalBin);
    if (global_rows > 0) {
        const long long limit = shared_memory_limit(exec);
        const long long largest_words = 2ll << ceil_log2(2 * bins.max_need);
        args.smem_bytes = 4 * blocks <= limit ? 4 * blocks : std::min(limit, 4 * largest_words);
        if (4 * blocks > limit && 4 * largest_words > args.smem_bytes) args.slot_words = largest_words;
        slots = global_slots(exec, symbolic_global_rows<I>, args.smem_bytes, global_rows);
        if (args.slot_words > 0) slots = std::min(slots, std::max(1ll, (1ll << 29) / args.slot_words));
        pool = Workspace<unsigned>(exec, static_cast<std::size_t>(4 + slots * args.slot_words));
        SPK_CUDA_CHECK(cudaMemsetAsync(pool.data(), 0, 16, stream));
        args.next_row = reinterpret_cast<unsigned long long*>(pool.data());
        args.pool = pool.data() + 4;
    }
    for_each_bin(bins, bin_ids.data(), args, [&](int bin, long long count, const SymbolicArgs<I>& a) {
        if (bin == kGlobalBin)
            launch_bin(symbolic_global_rows<I>, a, bin, count, 2 * sizeof(unsigned), slots, a.smem_bytes, stream);
        else if (kBinShapes[bin].warp)
            launch_bin(symbolic_rows<I, true>, a, bin, count, 2 * sizeof(unsigned), slots, a.smem_bytes, stream);
        else
            launch_bin(symbolic_rows<I, false>, a, bin, count, 2 * sizeof(unsigned), slots, a.smem_bytes, stream);
    });
    return host[plan_word::unordered] == 0;
}

}  // namespace

template <class V, class I>
SpgemmAnalysis spgemm_symbolic(const Executor& exec, const SpgemmProblem<V, I>& p) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    const long long rows = p.a.rows;
    const long long blocks = (p.b.cols + 31) / 32;
    if (blocks >= static_cast<long long>(kEmptyBlock))
        unsupported("spgemm on CUDA: B has " + std::to_string(p.b.cols) + " columns, more than the 2^37 - 32 the column-block keys can hold");
    if (const auto shape = detect_block_shape(exec, p))
        if (auto block_analysis = block_symbolic(exec, p, *shape)) return std::move(*block_analysis);
    const cudaStream_t stream = stream_of(exec);
    auto state = std::make_shared<DeviceState<I>>();
    SpgemmAnalysis s;
    if (p.mask && !p.mask->sorted && p.mask->nnz > 0) state->mask_cols = sorted_mask_columns(exec, *p.mask);
    const I* mask_cols = !p.mask ? nullptr : state->mask_cols.empty() ? p.mask->col_idx : state->mask_cols.data();

    Workspace<unsigned long long> words(exec, plan_word::all);
    Workspace<long long> row_nnz(exec, static_cast<std::size_t>(rows));
    std::vector<unsigned long long> host;  // the words last read back
    bool short_counted = false;
    if (short_rows_likely<I>(p.a.rows, p.a.nnz, p.b.rows, p.b.nnz)) {
        SPK_CUDA_CHECK(cudaMemsetAsync(words.data(), 0, words.size() * sizeof(unsigned long long), stream));
        queue_short_row_counts(exec, p, mask_cols, row_nnz.data(), words.data());
        host = read_back(exec, words.data(), plan_word::read);
        short_counted = true;
        state->b_rows_increasing = host[plan_word::unordered] == 0;
    }
    if (!short_counted || host[plan_word::long_rows] > 0) {
        state->b_rows_increasing = count_rows_in_general(exec, p, mask_cols, blocks, short_counted, row_nnz.data(), words.data());
        SPK_CUDA_CHECK(cudaMemsetAsync(words.data(), 0, words.size() * sizeof(unsigned long long), stream));
        queue_bin_count(exec, row_nnz.data(), rows, words.data() + plan_word::totals);
        host = read_back(exec, words.data(), plan_word::read);
    }

    state->numeric = bin_layout(host.data() + plan_word::totals);
    state->numeric_rows = Workspace<I>(exec, static_cast<std::size_t>(rows));
    queue_bin_scatter(exec, row_nnz.data(), rows, state->numeric, words.data() + plan_word::cursors, state->numeric_rows.data());
    s.nnz = state->numeric.total_need;
    if (s.nnz <= static_cast<index_t>(std::numeric_limits<I>::max())) {
        state->row_ptr = Workspace<I>(exec, static_cast<std::size_t>(rows) + 1);
        prefix_sum(exec, row_nnz.data(), rows, state->row_ptr.data());
    }
    s.device = std::move(state);
    return s;  // row_offsets and flops_prefix stay empty: C's row_ptr is on the device
}

template <class I>
void spgemm_row_ptr(const Executor& exec, const SpgemmAnalysis& s, I* row_ptr) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    const Workspace<I>& from = spgemm::device_state<I>(s).row_ptr;
    if (from.empty()) invalid_argument("spgemm on CUDA: C's row_ptr was not built (its non-zeros do not fit the index type)");
    SPK_CUDA_CHECK(cudaMemcpyAsync(row_ptr, from.data(), from.size() * sizeof(I), cudaMemcpyDeviceToDevice, spgemm::stream_of(exec)));
}

#define SPK_INSTANTIATE(V, I) template SpgemmAnalysis spgemm_symbolic(const Executor&, const SpgemmProblem<V, I>&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE
template void spgemm_row_ptr(const Executor&, const SpgemmAnalysis&, std::int32_t*);
template void spgemm_row_ptr(const Executor&, const SpgemmAnalysis&, std::int64_t*);

}  // namespace spk::detail::cuda
