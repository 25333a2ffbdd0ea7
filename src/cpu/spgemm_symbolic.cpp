// cpu SpGEMM symbolic phase (second paper, kkmem): the exact number of entries in each row of
// C, by one of two counters, whichever an estimate of their instruction counts prefers:
// - compressed: over B's compressed rows. Per thread, a dense array of column blocks holds the
//   union of the row's bit masks (new columns = popcount(bits & ~seen)); a second such array
//   holds the mask row, so C<M> and C<!M> only AND the product bits before counting. It pays
//   off when B's rows put many columns in each block of 64 (meshes, banded matrices);
// - plain: over B's columns as they are, with a per-thread tag per column (the row that saw it
//   last). It needs no compressed copy of B, which costs more than it saves when B's rows are
//   short or scattered (road networks, citation graphs, power-law graphs).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"
#include "cpu/row_partition.hpp"
#include "cpu/spgemm_compressed_rows.hpp"
#include "cpu/spgemm_prefetch.hpp"

namespace spk::detail::cpu {

namespace {

// One column block of a row: its bits, valid while `row` is the row being counted.
struct BlockSlot {
    std::uint64_t bits;
    index_t row;
};

template <bool Masked, class V, class I>
void count_rows(const SpgemmProblem<V, I>& p, const CompressedRows<I>& bc, index_t begin, index_t end, std::vector<BlockSlot>& seen,
                std::vector<BlockSlot>& allowed, std::vector<index_t>& row_nnz) {
    BlockSlot* const seen_at = seen.data();
    BlockSlot* const allowed_at = allowed.data();
    for (index_t i = begin; i < end; ++i) {
        if constexpr (Masked) {
            const auto& m = *p.mask;
            for (index_t q = m.row_ptr[i]; q < m.row_ptr[i + 1]; ++q) {
                BlockSlot& slot = allowed_at[m.col_idx[q] >> 6];
                if (slot.row != i) slot = {0, i};
                slot.bits |= std::uint64_t{1} << (m.col_idx[q] & 63);
            }
        }
        index_t count = 0;
        for (index_t pa = p.a.row_ptr[i]; pa < p.a.row_ptr[i + 1]; ++pa) {
            const index_t k = p.a.col_idx[pa];
            for (index_t q = bc.ptr[k]; q < bc.ptr[k + 1]; ++q) {
                const I block = bc.block[q];
                std::uint64_t bits = bc.bits[q];
                if constexpr (Masked) {
                    const BlockSlot& mask = allowed_at[block];
                    const std::uint64_t in_mask = mask.row == i ? mask.bits : 0;
                    bits &= p.complement_mask ? ~in_mask : in_mask;
                }
                BlockSlot& slot = seen_at[block];
                if (slot.row != i) slot = {0, i};
                count += std::popcount(bits & ~slot.bits);
                slot.bits |= bits;
            }
        }
        row_nnz[i + 1] = count;
    }
}

// A tag per column: column j is marked in the current row when tags[j] == current. Moving to the
// next row is one increment; the tags are cleared only when the 32-bit counter wraps.
class ColumnTags {
public:
    explicit ColumnTags(index_t cols) : tags_(static_cast<std::size_t>(cols), 0) {}
    void next_row() {
        if (++current_ != 0) return;
        std::fill(tags_.begin(), tags_.end(), 0u);
        current_ = 1;
    }
    // Marks column j; true if it was not marked yet in this row.
    bool mark(index_t j) {
        std::uint32_t& tag = tags_[static_cast<std::size_t>(j)];
        const bool fresh = tag != current_;
        tag = current_;
        return fresh;
    }
    bool marked(index_t j) const { return tags_[static_cast<std::size_t>(j)] == current_; }

private:
    std::vector<std::uint32_t> tags_;
    std::uint32_t current_ = 0;
};

// PREFETCH: B's rows a few entries of A ahead are fetched first (spgemm_prefetch.hpp).
template <bool Masked, bool Prefetch, class V, class I>
void count_rows_plain(const SpgemmProblem<V, I>& p, index_t begin, index_t end, ColumnTags& seen, ColumnTags& allowed,
                      std::vector<index_t>& row_nnz) {
    const CsrView<const V, I>& a = p.a;
    const CsrView<const V, I>& b = p.b;
    for (index_t i = begin; i < end; ++i) {
        seen.next_row();
        if constexpr (Masked) {
            allowed.next_row();
            for (index_t q = p.mask->row_ptr[i]; q < p.mask->row_ptr[i + 1]; ++q) allowed.mark(p.mask->col_idx[q]);
        }
        index_t count = 0;
        for (index_t pa = a.row_ptr[i]; pa < a.row_ptr[i + 1]; ++pa) {
            if constexpr (Prefetch) prefetch_b_rows<false>(a, b, pa);
            const index_t k = a.col_idx[pa];
            for (index_t pb = b.row_ptr[k]; pb < b.row_ptr[k + 1]; ++pb) {
                const I j = b.col_idx[pb];
                if constexpr (Masked)
                    if (allowed.marked(j) == p.complement_mask) continue;
                count += seen.mark(j);
            }
        }
        row_nnz[i + 1] = count;
    }
}

// Instruction counts measured on both counters (callgrind): compressing costs about 40 per
// entry of B, visiting a compressed block about 15, a plain product about 8.
constexpr double kCompressCostPerEntry = 40;
constexpr double kBlockCost = 15;
constexpr double kPlainProductCost = 8;
// Beyond this many columns the plain counter's tags (4 bytes a column per thread) leave the
// caches, while the compressed counter needs 16 bytes per 64 columns.
constexpr index_t kPlainMaxColumns = index_t{1} << 21;
// Entries of A whose rows of B are sampled to estimate the columns per block.
constexpr index_t kSampledEntries = 4096;

// Average entries per (row, 64-column block) pair of B over the rows of B that sampled entries
// of A select, weighting B's rows as the products do. Unsorted rows count a block each time the
// block changes, which can only underestimate (and so favour the plain counter).
template <class V, class I>
double columns_per_block(const CsrView<const V, I>& a, const CsrView<const V, I>& b) {
    const index_t step = std::max<index_t>(1, a.nnz / kSampledEntries);
    double entries = 0, blocks = 0;
    for (index_t pa = 0; pa < a.nnz; pa += step) {
        const index_t k = a.col_idx[pa];
        const index_t first = b.row_ptr[k], last = b.row_ptr[k + 1];
        if (first == last) continue;
        index_t changes = 1;
        for (index_t pb = first + 1; pb < last; ++pb) changes += (b.col_idx[pb] >> 6) != (b.col_idx[pb - 1] >> 6);
        entries += static_cast<double>(last - first);
        blocks += static_cast<double>(changes);
    }
    return blocks == 0 ? 1.0 : entries / blocks;
}

template <class V, class I>
bool use_plain_counter(const SpgemmProblem<V, I>& p, index_t products) {
    if (p.b.cols > kPlainMaxColumns) return false;
    const double compressed =
        kCompressCostPerEntry * static_cast<double>(p.b.nnz) + kBlockCost * static_cast<double>(products) / columns_per_block(p.a, p.b);
    return kPlainProductCost * static_cast<double>(products) <= compressed;
}

}  // namespace

template <class V, class I>
SpgemmAnalysis spgemm_symbolic(const Executor& exec, const SpgemmProblem<V, I>& p) {
    const int threads = exec.threads();
    SpgemmAnalysis s;
    s.flops_prefix = spgemm_flops_prefix(exec, p.a, p.b);
    s.row_offsets.assign(static_cast<std::size_t>(p.a.rows) + 1, 0);
    const std::vector<index_t> splits = balanced_row_splits(s.flops_prefix.data(), p.a.rows, chunk_count(p.a.rows, threads));
    const index_t chunks = static_cast<index_t>(splits.size()) - 1;
    if (use_plain_counter(p, s.flops_prefix.back())) {
        const bool prefetch = !p.mask && prefetch_b_rows_for(p.a, p.b);
#pragma omp parallel num_threads(threads)
        {
            ColumnTags seen(p.b.cols), allowed(p.mask ? p.b.cols : 0);
#pragma omp for schedule(dynamic, 1)
            for (index_t c = 0; c < chunks; ++c) {
                if (p.mask)
                    count_rows_plain<true, false>(p, splits[c], splits[c + 1], seen, allowed, s.row_offsets);
                else if (prefetch)
                    count_rows_plain<false, true>(p, splits[c], splits[c + 1], seen, allowed, s.row_offsets);
                else
                    count_rows_plain<false, false>(p, splits[c], splits[c + 1], seen, allowed, s.row_offsets);
            }
        }
    } else {
        const CompressedRows<I> bc = compress_rows(p.b, threads);
        const std::size_t blocks = static_cast<std::size_t>((p.b.cols + 63) / 64);
#pragma omp parallel num_threads(threads)
        {
            std::vector<BlockSlot> seen(blocks, BlockSlot{0, -1});
            std::vector<BlockSlot> allowed(p.mask ? blocks : 0, BlockSlot{0, -1});
#pragma omp for schedule(dynamic, 1)
            for (index_t c = 0; c < chunks; ++c) {
                if (p.mask)
                    count_rows<true>(p, bc, splits[c], splits[c + 1], seen, allowed, s.row_offsets);
                else
                    count_rows<false>(p, bc, splits[c], splits[c + 1], seen, allowed, s.row_offsets);
            }
        }
    }
    for (index_t i = 0; i < p.a.rows; ++i) s.row_offsets[i + 1] += s.row_offsets[i];
    s.nnz = s.row_offsets.back();
    return s;
}

#define SPK_INSTANTIATE(V, I) template SpgemmAnalysis spgemm_symbolic(const Executor&, const SpgemmProblem<V, I>&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
