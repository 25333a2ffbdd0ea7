// Aᵀ's pattern with a map back to A's entries, for the cpu FusedMM backward pass. spk::transpose
// moves values but forgets where each entry came from; the backward pass needs exactly that, to
// read the per-entry gradients its row pass computed. A counting sort by column, done once per plan.
#include <numeric>

#include "core/fusedmm_kernels.hpp"
#include "core/instantiate.hpp"

namespace spk::detail::cpu {

template <class V, class I> TransposedPattern<I> fusedmm_transpose(const Executor&, CsrView<const V, I> a) {
    TransposedPattern<I> t;
    t.col_ptr.assign(static_cast<std::size_t>(a.cols + 1), I(0));
    t.row_idx.resize(static_cast<std::size_t>(a.nnz));
    t.entry.resize(static_cast<std::size_t>(a.nnz));
    for (index_t p = 0; p < a.nnz; ++p) ++t.col_ptr[static_cast<std::size_t>(a.col_idx[p]) + 1];
    std::partial_sum(t.col_ptr.begin(), t.col_ptr.end(), t.col_ptr.begin());
    std::vector<I> next(t.col_ptr.begin(), t.col_ptr.end() - 1);
    // Rows in order, so each column lists its rows in increasing order: the gathers below then
    // sum in a fixed order, and the result does not depend on the number of threads.
    for (index_t i = 0; i < a.rows; ++i)
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const I q = next[static_cast<std::size_t>(a.col_idx[p])]++;
            t.row_idx[static_cast<std::size_t>(q)] = static_cast<I>(i);
            t.entry[static_cast<std::size_t>(q)] = static_cast<I>(p);
        }
    return t;
}

#define SPK_INSTANTIATE(V, I) template TransposedPattern<I> fusedmm_transpose(const Executor&, CsrView<const V, I>);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

} // namespace spk::detail::cpu
