// cpu triangle counting: Σ_i Σ_{k ∈ L_i} |L_i ∩ L_k| over the strictly lower triangle L, i.e.
// the sum of L .* (L·L) under plus_pair with the product masked by L, without forming any
// product entry: row i's columns are marked once, then each L_k is checked against the marks.
#include <cstdint>
#include <vector>

#include "core/spgemm_kernels.hpp"
#include "cpu/prefetch.hpp"
#include "cpu/row_partition.hpp"
#include "cpu/spgemm_prefetch.hpp"

namespace spk::detail::cpu {

namespace {

// PREFETCH: the rows L_k a few entries ahead are fetched first, where L's columns are scattered
// (spgemm_prefetch.hpp: the misses of SpGEMM's walk over B's rows, with L as both operands).
template <bool Prefetch, class I>
std::uint64_t count_rows(const CsrView<const float, I>& lower, const std::vector<index_t>& splits, int threads) {
    const index_t n = lower.rows;
    const I* const row_ptr = lower.row_ptr;
    const I* const col_idx = lower.col_idx;
    const index_t chunks = static_cast<index_t>(splits.size()) - 1;
    std::uint64_t total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
        // marked[j] == i + 1: column j is in L_i (i + 1 so that zero-filled means unmarked).
        std::vector<I> marked(static_cast<std::size_t>(n), 0);
#pragma omp for schedule(dynamic, 1)
        for (index_t c = 0; c < chunks; ++c) {
            for (index_t i = splits[c]; i < splits[c + 1]; ++i) {
                const I stamp = static_cast<I>(i + 1);
                for (I q = row_ptr[i]; q < row_ptr[i + 1]; ++q) marked[static_cast<std::size_t>(col_idx[q])] = stamp;
                std::uint64_t found = 0;
                for (I q = row_ptr[i]; q < row_ptr[i + 1]; ++q) {
                    if constexpr (Prefetch) prefetch_b_rows<false>(lower, lower, static_cast<index_t>(q));
                    const I k = col_idx[q];
                    for (I r = row_ptr[k]; r < row_ptr[k + 1]; ++r) found += marked[static_cast<std::size_t>(col_idx[r])] == stamp;
                }
                total += found;
            }
        }
    }
    return total;
}

}  // namespace

template <class I>
std::uint64_t count_triangles(const Executor& exec, index_t n, const I* row_ptr, const I* col_idx) {
    const int threads = exec.threads();
    // Work of row i: the lengths of the rows it intersects with.
    std::vector<index_t> work(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for num_threads(threads) schedule(static, 1024)
    for (index_t i = 0; i < n; ++i) {
        index_t w = 0;
        for (I q = row_ptr[i]; q < row_ptr[i + 1]; ++q) w += row_ptr[col_idx[q] + 1] - row_ptr[col_idx[q]];
        work[i + 1] = w;
    }
    for (index_t i = 0; i < n; ++i) work[i + 1] += work[i];
    const std::vector<index_t> splits = balanced_row_splits(work.data(), n, chunk_count(n, threads));
    const CsrView<const float, I> lower{n, n, static_cast<index_t>(row_ptr[n]), row_ptr, col_idx, nullptr};
    const double row_bytes = n > 0 ? static_cast<double>(row_ptr[n]) / static_cast<double>(n) * sizeof(I) : 0.0;
    return rows_worth_prefetching(lower, cached_rows(row_bytes)) ? count_rows<true>(lower, splits, threads)
                                                                  : count_rows<false>(lower, splits, threads);
}

template std::uint64_t count_triangles(const Executor&, index_t, const std::int32_t*, const std::int32_t*);
template std::uint64_t count_triangles(const Executor&, index_t, const std::int64_t*, const std::int64_t*);

}  // namespace spk::detail::cpu
