#pragma once
// The numeric-reuse driver: one launch of reuse_rows per non-empty bin of C's rows but the global
// bin (the bins the symbolic phase left for the numeric phase; spgemm_numeric runs the global
// bin's rows through the hash kernels), the semiring chosen at compile time. Each group gets a tree
// of its bin's table size (rows of a bin are at most half of it). Nothing to allocate, nothing
// read back.
#include "core/spgemm_kernels.hpp"
#include "core/spgemm_semiring.hpp"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/numeric_reuse_kernels.cuh"

namespace spk::detail::cuda::spgemm {

// C's values from C's sorted columns c_col (device memory, as compute() wrote them).
template <class V, class I>
void numeric_reuse(const Executor& exec, const SpgemmProblem<V, I>& p, const DeviceState<I>& state, const I* c_col, V* c_values) {
    const BinLayout& bins = state.numeric;
    const cudaStream_t stream = stream_of(exec);
    constexpr long long entry_bytes = sizeof(I) + sizeof(V);
    ReuseArgs<V, I> args{};
    args.a_ptr = p.a.row_ptr;
    args.a_col = p.a.col_idx;
    args.a_val = p.a.values;
    args.b_ptr = p.b.row_ptr;
    args.b_col = p.b.col_idx;
    args.b_val = p.b.values;
    args.c_ptr = state.row_ptr.data();
    args.c_col = c_col;
    args.c_val = c_values;
    args.masked = p.mask.has_value();
    args.width = entry_width(p.b.nnz, p.b.rows);
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
        for_each_bin(bins, state.numeric_rows.data(), args, [&](int bin, long long count, ReuseArgs<V, I> a) {
            if (bin == kGlobalBin) return;
            if (kBinShapes[bin].warp)
                launch_bin(reuse_rows<Op, V, I, true>, a, bin, count, entry_bytes, 0, 0, stream);
            else
                launch_bin(reuse_rows<Op, V, I, false>, a, bin, count, entry_bytes, 0, 0, stream);
        });
    });
}

}  // namespace spk::detail::cuda::spgemm
