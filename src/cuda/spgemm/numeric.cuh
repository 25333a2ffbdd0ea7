#pragma once
// The numeric phase's driver: one kernel launch per non-empty bin of C's rows (bins and row
// offsets come from the symbolic phase), the semiring chosen at compile time.
#include "core/spgemm_kernels.hpp"
#include "core/spgemm_semiring.hpp"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/numeric_kernels.cuh"

namespace spk::detail::cuda {

template <class V, class I>
void spgemm_numeric(const Executor& exec, const SpgemmProblem<V, I>& p, const SpgemmAnalysis& s, I* c_col_idx, V* c_values) {
    using namespace spgemm;
    using K = key_t<I>;
    const DeviceState<I>& state = device_state<I>(s);
    const RowBins<I>& bins = state.numeric;
    const cudaStream_t stream = stream_of(exec);
    NumericArgs<V, I> args{p.a.row_ptr,
                           p.a.col_idx,
                           p.a.values,
                           p.b.row_ptr,
                           p.b.col_idx,
                           p.b.values,
                           p.mask ? p.mask->row_ptr : nullptr,
                           p.mask ? (state.mask_cols.empty() ? p.mask->col_idx : state.mask_cols.data()) : nullptr,
                           p.complement_mask,
                           state.row_offsets.data(),
                           c_col_idx,
                           c_values,
                           nullptr,
                           0,
                           0,
                           nullptr,
                           0,
                           p.b.cols,
                           entry_width(p.b.nnz, p.b.rows)};
    // The global pool: a slot per block, each large enough for the longest row's hash table
    // (a row takes the dense accumulator only where that is no larger).
    Array<unsigned char> pool;
    const long long global_rows = bins.count(kGlobalBin);
    const long long slots = std::min<long long>(global_rows, 2ll * multiprocessors(exec));
    if (global_rows > 0) {
        args.slot_bytes = ((static_cast<long long>(sizeof(K) + sizeof(V)) << ceil_log2(2 * bins.max_need)) + 15) / 16 * 16;
        pool = Array<unsigned char>(exec, static_cast<std::size_t>(slots * args.slot_bytes));
        args.pool = pool.data();
    }
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
        for (int bin = 1; bin < kBins; ++bin) {
            const long long count = bins.count(bin);
            if (count == 0) continue;
            NumericArgs<V, I> a = args;
            a.rows = bins.rows.data() + bins.start[bin];
            a.num_rows = count;
            a.log2_capacity = kBinShapes[bin].log2_capacity;
            if (kBinShapes[bin].warp)
                launch_bin(numeric_rows<Op, V, I, true>, a, bin, count, sizeof(K) + sizeof(V), slots, stream);
            else
                launch_bin(numeric_rows<Op, V, I, false>, a, bin, count, sizeof(K) + sizeof(V), slots, stream);
        }
    });
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));  // the pool is freed on return
}

}  // namespace spk::detail::cuda
