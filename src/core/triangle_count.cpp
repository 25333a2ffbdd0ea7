// Triangle counting: the undirected simple graph under G (pattern of G + Gᵀ, no diagonal) as
// its strictly lower triangle L, vertices relabelled by decreasing degree so that each row of
// L holds only neighbours of higher (or equal) degree: a vertex has at most sqrt(2 edges) of those,
// which bounds every row on power-law graphs (the count does not depend on the labelling; ranked
// by increasing degree, the hubs' rows held all their neighbours: 64,760 in R-MAT scale 20's L).
// Then Σ L .* (L·L) under plus_pair, masked by L. The CPU backends build L
// here; CUDA builds the same L on the device (src/cuda/spgemm/triangle_lower.cu).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "core/check.hpp"
#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"

namespace spk {

namespace {

// The strictly lower triangle of the relabelled graph: rows and columns are ranks by degree.
// Every pass over G's entries runs on `threads` threads: entries land in their rows in any order
// (atomic counters), and each row is then sorted and its repeats removed, so L does not depend on
// the thread count.
template <class V, class I>
Csr<double, I> lower_triangle_by_degree(CsrView<const V, I> g, int threads) {
    const index_t n = g.rows;
    const auto off_diagonal = [&](auto&& visit) {  // visit(r, c) for each entry off the diagonal
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1024)
        for (index_t r = 0; r < n; ++r)
            for (index_t q = g.row_ptr[r]; q < g.row_ptr[r + 1]; ++q)
                if (g.col_idx[q] != r) visit(r, static_cast<index_t>(g.col_idx[q]));
    };
    std::vector<index_t> degree(static_cast<std::size_t>(n), 0);  // counts repeated edges: an estimate is enough
    off_diagonal([&](index_t r, index_t c) {
        std::atomic_ref<index_t>(degree[r]).fetch_add(1, std::memory_order_relaxed);
        std::atomic_ref<index_t>(degree[c]).fetch_add(1, std::memory_order_relaxed);
    });
    // Ranks by decreasing degree, ties by vertex number: a counting sort of max_degree - degree
    // (degrees are below 2 nnz).
    index_t max_degree = 0;
    for (index_t r = 0; r < n; ++r) max_degree = std::max(max_degree, degree[r]);
    std::vector<index_t> first_rank(static_cast<std::size_t>(max_degree) + 2, 0);
    for (index_t r = 0; r < n; ++r) ++first_rank[max_degree - degree[r] + 1];
    for (index_t k = 0; k <= max_degree; ++k) first_rank[k + 1] += first_rank[k];
    std::vector<I> rank(static_cast<std::size_t>(n));
    for (index_t r = 0; r < n; ++r) rank[r] = static_cast<I>(first_rank[max_degree - degree[r]]++);

    // Each off-diagonal entry once, as (higher rank, lower rank); repeats removed per row below.
    std::vector<index_t> start(static_cast<std::size_t>(n) + 1, 0);
    off_diagonal([&](index_t r, index_t c) {
        std::atomic_ref<index_t>(start[std::max(rank[r], rank[c]) + 1]).fetch_add(1, std::memory_order_relaxed);
    });
    for (index_t r = 0; r < n; ++r) start[r + 1] += start[r];
    std::vector<I> cols(static_cast<std::size_t>(start[n]));
    std::vector<index_t> fill(start.begin(), start.end() - 1);
    off_diagonal([&](index_t r, index_t c) {
        const I x = rank[r], y = rank[c];
        cols[std::atomic_ref<index_t>(fill[std::max(x, y)]).fetch_add(1, std::memory_order_relaxed)] = std::min(x, y);
    });
    std::vector<index_t> unique_len(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
    for (index_t r = 0; r < n; ++r) {
        const auto first = cols.begin() + start[r], last = cols.begin() + start[r + 1];
        std::sort(first, last);
        unique_len[r + 1] = std::unique(first, last) - first;
    }
    for (index_t r = 0; r < n; ++r) unique_len[r + 1] += unique_len[r];
    Csr<double, I> lower(Executor::cpu(), n, n, unique_len[n]);
    for (index_t r = 0; r <= n; ++r) lower.row_ptr()[r] = static_cast<I>(unique_len[r]);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1024)
    for (index_t r = 0; r < n; ++r)
        std::copy_n(cols.begin() + start[r], unique_len[r + 1] - unique_len[r], lower.col_idx().data() + unique_len[r]);
    std::fill_n(lower.values().data(), lower.nnz(), 1.0);
    return lower;
}

}  // namespace

template <class V, class I>
std::uint64_t triangle_count(const Executor& exec, CsrView<const V, I> g) {
    detail::check_csr(g, exec, "G", /*need_values=*/false);
    if (g.rows != g.cols) shape_mismatch("G: shape " + detail::shape_string(g.rows, g.cols) + ", triangle counting needs a square matrix");
    if (!exec.is_host())  // CUDA: the same L, built on the device (a host build took 2.1 s of R-MAT scale 20's count)
        return detail::cuda::count_graph_triangles(exec, g.rows, g.nnz, g.row_ptr, g.col_idx);
    const int threads = exec.backend() == Backend::cpu ? exec.threads() : 1;
    const Csr<double, I> lower = lower_triangle_by_degree(g, threads);
    if (exec.backend() == Backend::cpu)
        return detail::cpu::count_triangles(exec, lower.rows(), lower.row_ptr().data(), lower.col_idx().data());
    // The reference: the masked product itself, C<L> = L·L under plus_pair, then the sum of C.
    const SpgemmOptions options{.semiring = Semiring::plus_pair};
    const Csr<double, I> paths = spgemm(exec, lower.view(), lower.view(), options, std::optional(lower.view()));
    double total = 0;
    for (index_t q = 0; q < paths.nnz(); ++q) total += paths.values()[q];
    return static_cast<std::uint64_t>(total);
}

#define SPK_INSTANTIATE(V, I) template std::uint64_t triangle_count(const Executor&, CsrView<const V, I>);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
