// cpu SpGEMM symbolic phase (second paper, kkmem): the exact number of entries in each row of
// C, counted over B's compressed rows. Per thread, a dense array of column blocks holds the
// union of the row's bit masks (new columns = popcount(bits & ~seen)); a second such array
// holds the mask row, so C<M> and C<!M> only AND the product bits before counting.
#include <bit>
#include <cstdint>
#include <vector>

#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"
#include "cpu/row_partition.hpp"
#include "cpu/spgemm_compressed_rows.hpp"

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

} // namespace

template <class V, class I> SpgemmAnalysis spgemm_symbolic(const Executor& exec, const SpgemmProblem<V, I>& p) {
    const int threads = exec.threads();
    SpgemmAnalysis s;
    s.flops_prefix = spgemm_flops_prefix(exec, p.a, p.b);
    s.row_offsets.assign(static_cast<std::size_t>(p.a.rows) + 1, 0);
    const CompressedRows<I> bc = compress_rows(p.b, threads);
    const std::size_t blocks = static_cast<std::size_t>((p.b.cols + 63) / 64);
    const std::vector<index_t> splits = balanced_row_splits(s.flops_prefix.data(), p.a.rows, chunk_count(p.a.rows, threads));
    const index_t chunks = static_cast<index_t>(splits.size()) - 1;
#pragma omp parallel num_threads(threads)
    {
        std::vector<BlockSlot> seen(blocks, BlockSlot{0, -1});
        std::vector<BlockSlot> allowed(p.mask ? blocks : 0, BlockSlot{0, -1});
#pragma omp for schedule(dynamic, 1)
        for (index_t c = 0; c < chunks; ++c) {
            if (p.mask) count_rows<true>(p, bc, splits[c], splits[c + 1], seen, allowed, s.row_offsets);
            else count_rows<false>(p, bc, splits[c], splits[c + 1], seen, allowed, s.row_offsets);
        }
    }
    for (index_t i = 0; i < p.a.rows; ++i) s.row_offsets[i + 1] += s.row_offsets[i];
    return s;
}

#define SPK_INSTANTIATE(V, I) template SpgemmAnalysis spgemm_symbolic(const Executor&, const SpgemmProblem<V, I>&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

} // namespace spk::detail::cpu
