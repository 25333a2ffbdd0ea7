// Tentative prolongator (MueLu's TentativePFactory): per aggregate, the near-nullspace rows of
// its unknowns B_agg = Q R; P_tent holds Q in the aggregate's k columns, R becomes the coarse
// near-nullspace, so P_tent * coarse_nullspace reproduces the fine one exactly.
#include <string>

#include "core/instantiate.hpp"
#include "generate/csr_builder.hpp"
#include "generate/local_qr.hpp"
#include "generate/smoothed_aggregation.hpp"
#include "spk/error.hpp"

namespace spk::detail {

template <class V, class I>
TentativeProlongator<V, I> tentative_prolongator(const Aggregates<I>& aggregates, int block_size, const std::vector<double>& nullspace,
                                                 int k) {
    const index_t nodes = static_cast<index_t>(aggregates.of_node.size());
    const index_t rows = nodes * block_size;
    if (k < 1) invalid_argument("tentative_prolongator: the nullspace needs at least one vector, k = " + std::to_string(k));
    if (static_cast<index_t>(nullspace.size()) != rows * k)
        invalid_argument("tentative_prolongator: nullspace has " + std::to_string(nullspace.size()) + " entries, expected " +
                         std::to_string(rows) + " x " + std::to_string(k));
    require_fits_index<I>(rows * k, "nnz", "tentative_prolongator");
    require_fits_index<I>(aggregates.count * k, "coarse columns", "tentative_prolongator");

    // Members of each aggregate in increasing node order (a counting sort by aggregate).
    std::vector<index_t> start(static_cast<std::size_t>(aggregates.count) + 1, 0);
    for (index_t v = 0; v < nodes; ++v) {
        const index_t agg = aggregates.of_node[v];
        if (agg < 0 || agg >= aggregates.count)
            invalid_argument("tentative_prolongator: node " + std::to_string(v) + " is in aggregate " + std::to_string(agg) +
                             ", outside [0, " + std::to_string(aggregates.count) + ")");
        ++start[agg + 1];
    }
    inclusive_scan_parallel(start.data() + 1, aggregates.count);
    std::vector<index_t> members(static_cast<std::size_t>(nodes));
    {
        std::vector<index_t> next(start.begin(), start.end() - 1);
        for (index_t v = 0; v < nodes; ++v) members[next[aggregates.of_node[v]]++] = v;
    }

    TentativeProlongator<V, I> out{Csr<V, I>(Executor::cpu(), rows, aggregates.count * k, rows * k), {}};
    out.coarse_nullspace.assign(static_cast<std::size_t>(aggregates.count * k * k), 0.0);
    I* row_ptr = out.p.row_ptr().data();
    I* col_idx = out.p.col_idx().data();
    V* values = out.p.values().data();
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i <= rows; ++i) row_ptr[i] = static_cast<I>(i * k);
#pragma omp parallel
    {
        std::vector<double> b, q, r(static_cast<std::size_t>(k) * k), work;
#pragma omp for schedule(dynamic, 256)
        for (index_t agg = 0; agg < aggregates.count; ++agg) {
            const index_t size = start[agg + 1] - start[agg];
            const int m = static_cast<int>(size * block_size);
            b.resize(static_cast<std::size_t>(m) * k);
            q.resize(b.size());
            // local row: (member, component); unknown = member * block_size + component
            auto unknown = [&](int local) { return members[start[agg] + local / block_size] * block_size + local % block_size; };
            for (int l = 0; l < m; ++l)
                for (int j = 0; j < k; ++j) b[static_cast<std::size_t>(j) * m + l] = nullspace[unknown(l) * k + j];
            householder_qr(m, k, b.data(), q.data(), r.data(), work);
            for (int l = 0; l < m; ++l) {
                const index_t row = unknown(l);
                for (int j = 0; j < k; ++j) {
                    col_idx[row * k + j] = static_cast<I>(agg * k + j);
                    values[row * k + j] = value_cast<V>(q[static_cast<std::size_t>(j) * m + l]);
                }
            }
            std::copy(r.begin(), r.end(), out.coarse_nullspace.begin() + agg * k * k);
        }
    }
    return out;
}

#define SPK_INSTANTIATE(V, I) \
    template TentativeProlongator<V, I> tentative_prolongator<V, I>(const Aggregates<I>&, int, const std::vector<double>&, int);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail
