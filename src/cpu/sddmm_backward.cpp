// OpenMP SDDMM backward. With w(p, h) = dOut(p, h) * [A.values[p] if scale_by_a]:
//   dX(i) = sum over row i's entries p = (i, j) of w(p, h) * Y(j)    (per head block h)
//   dY(j) = sum over column j's entries p = (i, j) of w(p, h) * X(i)
//   dA(p) = sum_h dOut(p, h) * <X(i), Y(j)>_h
// dX and dA come from one pass over A's rows (they share each Y row). dY needs a sum over A's
// columns: instead of atomics (float CAS loops, contention on hub columns, results that depend
// on timing) or per-thread copies of dY (threads x cols x features of memory, too much for
// large graphs), it runs the same row kernel over Aᵀ's pattern, built here with a permutation
// back to A's entries (O(nnz) indices, deterministic sums, no write conflicts).
// The pattern is built on every call, in parallel (cpu/transposed_pattern.hpp), not cached:
// sddmm_backward is a free function with no plan to keep it in, and a cache keyed by A's arrays
// would be stale whenever a caller reuses the memory for another pattern; checking it would read
// all of A, and keeping it would hold O(nnz) memory after the call.
#include "core/instantiate.hpp"
#include "core/sddmm_kernels.hpp"
#include "cpu/prefetch.hpp"
#include "cpu/row_partition.hpp"
#include "cpu/sddmm_rows.hpp"
#include "cpu/transposed_pattern.hpp"

namespace spk::detail::cpu {

namespace {

constexpr double kSerialWork = 32768;     // multiply-adds below which threads cost more than they give
constexpr index_t kPrefetchDistance = 16;  // entries ahead whose dense row is prefetched (as in sddmm.cpp)

template <class V, class I>
int thread_count(const Executor& exec, const SddmmBackwardArgs<V, I>& args) {
    const double work = static_cast<double>(args.a.nnz) * static_cast<double>(args.x.cols + 1);
    return work < kSerialWork ? 1 : exec.threads();
}

template <class Acc, class V, class I>
Acc entry_scale(const SddmmBackwardArgs<V, I>& args, index_t p) {
    return args.scale_by_a ? load_as<Acc>(args.a.values[p]) : Acc(1);
}

// dX and dA over A's rows; PREFETCH: Y's rows a few entries ahead are fetched first (one
// parallel region per setting, as in sddmm.cpp: no test an entry where nothing is prefetched).
template <bool Prefetch, class V, class I>
void rows_pass(const Executor& exec, const SddmmBackwardArgs<V, I>& args) {
    using Acc = accum_t<V>;
    const auto& a = args.a;
    const index_t d = args.x.cols / args.heads;
    const bool want_dx = args.dx.data != nullptr, want_da = args.da.data != nullptr;
    const int threads = thread_count(exec, args);
    const std::vector<index_t> bounds = balanced_row_splits(a.row_ptr, a.rows, chunk_count(a.rows, threads));
    const index_t chunks = static_cast<index_t>(bounds.size()) - 1;
#pragma omp parallel num_threads(threads)
    {
        RowReader<V, Acc> x_rows(args.x), y_rows(args.y);
        std::vector<Acc> acc(static_cast<std::size_t>(args.x.cols));
#pragma omp for schedule(dynamic, 1)
        for (index_t t = 0; t < chunks; ++t)
            for (index_t i = bounds[t]; i < bounds[t + 1]; ++i) {
                const Acc* xi = want_da ? x_rows(i) : nullptr;
                std::fill(acc.begin(), acc.end(), Acc(0));
                for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
                    if constexpr (Prefetch)
                        if (p + kPrefetchDistance < a.nnz) y_rows.prefetch(a.col_idx[p + kPrefetchDistance]);
                    const Acc* yj = y_rows(a.col_idx[p]);
                    const Acc scale = want_dx ? entry_scale<Acc>(args, p) : Acc(0);
                    Acc da = 0;
                    for (index_t h = 0; h < args.heads; ++h) {
                        const Acc g = load_as<Acc>(args.d_out(p, h));
                        if (want_da) da += g * dot(xi + h * d, yj + h * d, d);
                        if (want_dx) axpy(acc.data() + h * d, g * scale, yj + h * d, d);
                    }
                    if (want_da) args.da(p, 0) = store_as<V>(da);
                }
                if (want_dx) store_row(args.dx, i, acc.data());
            }
    }
}

// dY over Aᵀ's rows; PREFETCH: X's rows a few entries ahead are fetched first.
template <bool Prefetch, class V, class I>
void columns_pass(const Executor& exec, const SddmmBackwardArgs<V, I>& args) {
    using Acc = accum_t<V>;
    const index_t d = args.x.cols / args.heads, cols = args.a.cols;
    const int threads = thread_count(exec, args);
    const TransposedPattern<I> at = transposed_pattern(args.a, threads);
    const std::vector<index_t> bounds = balanced_row_splits(at.col_ptr.data(), cols, chunk_count(cols, threads));
    const index_t chunks = static_cast<index_t>(bounds.size()) - 1;
#pragma omp parallel num_threads(threads)
    {
        RowReader<V, Acc> x_rows(args.x);
        std::vector<Acc> acc(static_cast<std::size_t>(args.x.cols));
#pragma omp for schedule(dynamic, 1)
        for (index_t t = 0; t < chunks; ++t)
            for (index_t j = bounds[t]; j < bounds[t + 1]; ++j) {
                std::fill(acc.begin(), acc.end(), Acc(0));
                for (index_t q = at.col_ptr[j]; q < at.col_ptr[j + 1]; ++q) {
                    if constexpr (Prefetch)
                        if (q + kPrefetchDistance < args.a.nnz) x_rows.prefetch(at.row_idx[q + kPrefetchDistance]);
                    const index_t p = at.entry[q];
                    const Acc* xi = x_rows(at.row_idx[q]);
                    const Acc scale = entry_scale<Acc>(args, p);
                    for (index_t h = 0; h < args.heads; ++h)
                        axpy(acc.data() + h * d, load_as<Acc>(args.d_out(p, h)) * scale, xi + h * d, d);
                }
                store_row(args.dy, j, acc.data());
            }
    }
}

}  // namespace

template <class V, class I>
void sddmm_backward(const Executor& exec, const SddmmBackwardArgs<V, I>& args) {
    // Aᵀ's columns (A's rows) lie as far from their rows as A's columns from theirs.
    const bool prefetch = rows_worth_prefetching(args.a, cached_rows(static_cast<double>(args.x.cols) * sizeof(V)));
    if (args.dx.data != nullptr || args.da.data != nullptr) {
        if (prefetch)
            rows_pass<true>(exec, args);
        else
            rows_pass<false>(exec, args);
    }
    if (args.dy.data != nullptr) {
        if (prefetch)
            columns_pass<true>(exec, args);
        else
            columns_pass<false>(exec, args);
    }
}

#define SPK_INSTANTIATE(V, I) template void sddmm_backward(const Executor&, const SddmmBackwardArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
