// cpu TTM on a CSF whose leaf is the product's mode: output fiber f is
//   y(f, :) = sum over the fiber's (k, x) of x * U(:, k),
// with U's columns made contiguous once (rows of Uᵀ) so the loop over R vectorizes. Chunks of
// equal nnz balance the threads (tensor_chunks.hpp).
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/instantiate.hpp"
#include "core/tensor_chunks.hpp"
#include "core/tensor_kernels.hpp"
#include "core/tensor_rows.hpp"

namespace spk::detail::cpu {

template <class V, class I>
void ttm(const Executor& exec, const TtmArgs<V, I>& args) {
    static_assert(std::is_same_v<typename value_traits<V>::accum, V>, "f32 and f64 accumulate in their own type");
    const CsfView<const V, I>& x = args.x;
    const DenseView<V> y = args.y;
    const index_t rank = y.cols;
    if (rank == 0 || x.nnz == 0) return;
    const int threads = exec.threads();
    const ContiguousRows<V> columns(transposed(args.u), threads);
    const NnzChunks chunks(x.nnz, threads);
    PartialSums<V> partial(chunks.count, rank);

#pragma omp parallel num_threads(threads)
    {
        std::vector<V> buffer(static_cast<std::size_t>(rank));
        V* const sum = buffer.data();
#pragma omp for schedule(dynamic, 1)
        for (index_t c = 0; c < chunks.count; ++c) {
            const index_t p0 = chunks.begin(c), p1 = chunks.end(c);
            for (index_t f = segment_of(x.fiber_ptr, x.fibers, p0); f < x.fibers && x.fiber_ptr[f] < p1; ++f) {
                const index_t begin = x.fiber_ptr[f], end = x.fiber_ptr[f + 1];
                const index_t q0 = std::max(begin, p0), q1 = std::min(end, p1);
                {
                    const V v = x.values[q0];
                    const V* u = columns.row(x.leaf_ids[q0]);
#pragma omp simd
                    for (index_t r = 0; r < rank; ++r) sum[r] = v * u[r];
                }
                for (index_t q = q0 + 1; q < q1; ++q) {
                    const V v = x.values[q];
                    const V* u = columns.row(x.leaf_ids[q]);
#pragma omp simd
                    for (index_t r = 0; r < rank; ++r) sum[r] += v * u[r];
                }
                const bool started_before = begin<p0, continues_after = end> p1;
                if (!started_before && !continues_after)
                    store_row(y, f, sum);
                else
                    std::copy(sum, sum + rank, partial.slot(c, started_before, f));
            }
        }
    }
    partial.combine([&](index_t f, const V* total) { store_row(y, f, total); });
}

#define SPK_INSTANTIATE(V, I) template void ttm(const Executor&, const TtmArgs<V, I>&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
