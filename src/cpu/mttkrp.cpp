// cpu MTTKRP on a CSF rooted at the output mode: slice i's row is
//   out(i, :) = sum over its fibers j of mid(j, :) ⊙ (sum over the fiber's (k, x) of x * leaf(k, :)),
// so the middle factor row is multiplied once per fiber rather than once per non-zero, and each
// output row is written by one thread. Chunks of equal nnz balance the threads (tensor_chunks.hpp).
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/instantiate.hpp"
#include "core/tensor_chunks.hpp"
#include "core/tensor_kernels.hpp"
#include "core/tensor_rows.hpp"

namespace spk::detail::cpu {
namespace {

template <class V, class I>
struct MttkrpWork {
    const CsfView<const V, I>& x;
    const ContiguousRows<V>& mid;
    const ContiguousRows<V>& leaf;
    DenseView<V> out;
    index_t rank;
    const NnzChunks& chunks;
    PartialSums<V>& partial;
};

// Chunk c of the non-zeros. With Fixed > 0 the rank is a compile-time constant and the fiber and
// slice sums are local arrays the compiler keeps in registers; Fixed = 0 uses the buffers given.
template <index_t Fixed, class V, class I>
void mttkrp_chunk(const MttkrpWork<V, I>& w, index_t c, V* fiber_buffer, V* slice_buffer) {
    const CsfView<const V, I>& x = w.x;
    const index_t rank = Fixed > 0 ? Fixed : w.rank;
    alignas(64) V fixed_fiber[Fixed > 0 ? Fixed : 1];
    alignas(64) V fixed_slice[Fixed > 0 ? Fixed : 1];
    V* const fiber_sum = Fixed > 0 ? fixed_fiber : fiber_buffer;
    V* const slice_sum = Fixed > 0 ? fixed_slice : slice_buffer;

    const index_t p0 = w.chunks.begin(c), p1 = w.chunks.end(c);
    index_t f = segment_of(x.fiber_ptr, x.fibers, p0);
    for (index_t s = segment_of(x.slice_ptr, x.slices, f); s < x.slices; ++s) {
        const index_t begin = x.fiber_ptr[x.slice_ptr[s]], end = x.fiber_ptr[x.slice_ptr[s + 1]];
        if (begin >= p1) break;
        // The chunk where a slice starts also clears the empty rows just before it.
        if (begin >= p0) zero_rows(w.out, s == 0 ? index_t{0} : index_t{x.slice_ids[s - 1]} + 1, index_t{x.slice_ids[s]});
        for (index_t r = 0; r < rank; ++r) slice_sum[r] = V(0);
        for (; f < x.slice_ptr[s + 1] && x.fiber_ptr[f] < p1; ++f) {
            const index_t q0 = std::max<index_t>(x.fiber_ptr[f], p0), q1 = std::min<index_t>(x.fiber_ptr[f + 1], p1);
            {
                const V v = x.values[q0];
                const V* u = w.leaf.row(x.leaf_ids[q0]);
#pragma omp simd
                for (index_t r = 0; r < rank; ++r) fiber_sum[r] = v * u[r];
            }
            for (index_t q = q0 + 1; q < q1; ++q) {
                const V v = x.values[q];
                const V* u = w.leaf.row(x.leaf_ids[q]);
#pragma omp simd
                for (index_t r = 0; r < rank; ++r) fiber_sum[r] += v * u[r];
            }
            const V* m = w.mid.row(x.fiber_ids[f]);
#pragma omp simd
            for (index_t r = 0; r < rank; ++r) slice_sum[r] += m[r] * fiber_sum[r];
        }
        const bool started_before = begin<p0, continues_after = end> p1;
        if (!started_before && !continues_after)
            store_row(w.out, x.slice_ids[s], slice_sum);
        else
            std::copy(slice_sum, slice_sum + rank, w.partial.slot(c, started_before, s));
    }
}

template <index_t Fixed, class V, class I>
void mttkrp_chunks(const MttkrpWork<V, I>& w, int threads) {
#pragma omp parallel num_threads(threads)
    {
        std::vector<V> buffers(Fixed > 0 ? 0 : static_cast<std::size_t>(2 * w.rank));
#pragma omp for schedule(dynamic, 1)
        for (index_t c = 0; c < w.chunks.count; ++c) mttkrp_chunk<Fixed>(w, c, buffers.data(), buffers.data() + w.rank);
    }
}

}  // namespace

template <class V, class I>
void mttkrp(const Executor& exec, const MttkrpArgs<V, I>& args) {
    static_assert(std::is_same_v<typename value_traits<V>::accum, V>, "f32 and f64 accumulate in their own type");
    const CsfView<const V, I>& x = args.x;
    const DenseView<V> out = args.out;
    const index_t rank = out.cols;
    if (rank == 0) return;
    const int threads = exec.threads();
    const ContiguousRows<V> mid(args.mid, threads), leaf(args.leaf, threads);
    const NnzChunks chunks(x.nnz, threads);
    PartialSums<V> partial(chunks.count, rank);
    const MttkrpWork<V, I> work{x, mid, leaf, out, rank, chunks, partial};
    // The ranks CP decompositions use most get register-resident sums.
    switch (rank) {
        case 8:
            mttkrp_chunks<8>(work, threads);
            break;
        case 16:
            mttkrp_chunks<16>(work, threads);
            break;
        case 32:
            mttkrp_chunks<32>(work, threads);
            break;
        default:
            mttkrp_chunks<0>(work, threads);
            break;
    }
    zero_rows(out, x.slices == 0 ? index_t{0} : index_t{x.slice_ids[x.slices - 1]} + 1, out.rows);
    partial.combine([&](index_t s, const V* sum) { store_row(out, x.slice_ids[s], sum); });
}

#define SPK_INSTANTIATE(V, I) template void mttkrp(const Executor&, const MttkrpArgs<V, I>&);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
