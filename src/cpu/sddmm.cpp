// OpenMP SDDMM forward: rows of A in nnz-balanced chunks handed out dynamically; row i's X row
// is read once and reused for all of its non-zeros; each (entry, head) is one vectorised dot
// product over the head's d features, accumulated in f32 (f64 for f64).
#include "core/instantiate.hpp"
#include "core/sddmm_kernels.hpp"
#include "cpu/prefetch.hpp"
#include "cpu/row_partition.hpp"
#include "cpu/sddmm_rows.hpp"

namespace spk::detail::cpu {

namespace {
constexpr double kSerialWork = 32768;     // multiply-adds below which threads cost more than they give
constexpr index_t kPrefetchDistance = 16;  // entries ahead whose Y row is prefetched (8: 17-19% slower at d = 32 on scattered rows)

// The rows of A in `chunks` parallel chunks; PREFETCH: Y's rows a few entries ahead are fetched
// first. One parallel region per setting, so that a matrix that does not prefetch runs a loop
// without even the test for it (a test an entry, or the loop in a function of its own, cost the
// FEM matrices 5-10% at d = 32 on one core).
template <bool Prefetch, class V, class I>
void run_rows(const SddmmArgs<V, I>& args, int threads, const std::vector<index_t>& bounds) {
    using Acc = accum_t<V>;
    const auto& a = args.a;
    const index_t d = args.x.cols / args.heads;
    const index_t chunks = static_cast<index_t>(bounds.size()) - 1;
#pragma omp parallel num_threads(threads)
    {
        RowReader<V, Acc> x_rows(args.x), y_rows(args.y);
#pragma omp for schedule(dynamic, 1)
        for (index_t t = 0; t < chunks; ++t)
            for (index_t i = bounds[t]; i < bounds[t + 1]; ++i) {
                const Acc* xi = x_rows(i);
                for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
                    if constexpr (Prefetch)
                        if (p + kPrefetchDistance < a.nnz) y_rows.prefetch(a.col_idx[p + kPrefetchDistance]);
                    const Acc* yj = y_rows(a.col_idx[p]);
                    const Acc scale = args.scale_by_a ? load_as<Acc>(a.values[p]) : Acc(1);
                    for (index_t h = 0; h < args.heads; ++h) args.out(p, h) = store_as<V>(scale * dot(xi + h * d, yj + h * d, d));
                }
            }
    }
}

}  // namespace

template <class V, class I>
void sddmm(const Executor& exec, const SddmmArgs<V, I>& args) {
    const auto& a = args.a;
    if (a.nnz == 0) return;
    const double work = static_cast<double>(a.nnz) * static_cast<double>(args.x.cols + 1);
    const int threads = work < kSerialWork ? 1 : exec.threads();
    const std::vector<index_t> bounds = balanced_row_splits(a.row_ptr, a.rows, chunk_count(a.rows, threads));
    if (rows_worth_prefetching(a, cached_rows(static_cast<double>(args.y.cols) * sizeof(V))))
        run_rows<true>(args, threads, bounds);
    else
        run_rows<false>(args, threads, bounds);
}

#define SPK_INSTANTIATE(V, I) template void sddmm(const Executor&, const SddmmArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
