// cpu SpGEMM numeric phase (second paper, kkmem): rows of C computed in parallel, chunks
// balanced by scalar products; each row picks its accumulator from its exact size (known from
// the symbolic phase: dense, tiny-row or hash) and writes columns and values straight into C.
#include <algorithm>
#include <vector>

#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"
#include "core/spgemm_semiring.hpp"
#include "cpu/row_partition.hpp"
#include "cpu/spgemm_accumulators.hpp"
#include "cpu/spgemm_prefetch.hpp"
#include "cpu/value_load.hpp"

namespace spk::detail::cpu {

namespace {

// A row uses the dense accumulator when reading its touched-bit words (columns / 64) costs no
// more than kDenseWordsPerEntry per entry of the row: the words then replace hashing and sorting.
// While the dense array stays in L2 (kCachedColumns), a word read is far cheaper than hashing and
// sorting one entry, so the bar is lower there. Beyond kDenseMaxColumns the per-thread dense array
// (8-16 bytes a column) costs more memory than it saves.
constexpr index_t kDenseWordsPerEntry = 2;
constexpr index_t kCachedWordsPerEntry = 16;
constexpr index_t kCachedColumns = index_t{1} << 16;
constexpr index_t kDenseMaxColumns = index_t{1} << 24;

bool use_dense(index_t ncols, index_t row_len) {
    if (ncols > kDenseMaxColumns) return false;
    const index_t per_entry = ncols <= kCachedColumns ? kCachedWordsPerEntry : kDenseWordsPerEntry;
    return ncols <= 64 * per_entry * row_len;
}

// Rows of the hash accumulator up to this long are sorted with their values by insertion: the
// first-touch order is a merge of sorted rows of B, often nearly sorted, and no second hash probe
// is needed.
constexpr index_t kInsertionSortMax = 32;

template <class I, class V>
void insertion_sort_pairs(I* cols, V* values, index_t len) {
    for (index_t q = 1; q < len; ++q) {
        const I col = cols[q];
        const V value = values[q];
        index_t r = q;
        for (; r > 0 && cols[r - 1] > col; --r) {
            cols[r] = cols[r - 1];
            values[r] = values[r - 1];
        }
        cols[r] = col;
        values[r] = value;
    }
}

// Rows of up to kTinyRow entries (road networks, most rows of sparse graphs) use the register
// accumulator; longer ones measured faster with the hash map (its compares grow with capacity).
constexpr int kTinyRow = 8;

template <class T, class I>
struct Workspace {
    HashAccumulator<T, I> hash;
    DenseAccumulator<T, I> dense;
    MaskRow mask;
    std::vector<I> cols;  // a row's columns when C's columns are not written (recompute)
};

// PREFETCH: B's rows a few entries of A ahead are fetched first (spgemm_prefetch.hpp).
template <class Op, bool Masked, bool Prefetch, class V, class I, class T>
void numeric_rows(const SpgemmProblem<V, I>& p, const SpgemmAnalysis& s, index_t begin, index_t end, Workspace<T, I>& ws, I* c_col_idx,
                  V* c_values) {
    const CsrView<const V, I>& a = p.a;
    const CsrView<const V, I>& b = p.b;
    const index_t ncols = b.cols;
    for (index_t i = begin; i < end; ++i) {
        const index_t start = s.row_offsets[i];
        const index_t len = s.row_offsets[i + 1] - start;
        if (len == 0) continue;
        I* cols = c_col_idx ? c_col_idx + start : ws.cols.data();
        V* values = c_values + start;
        if constexpr (Masked) ws.mask.mark(*p.mask, i);
        const auto allowed = [&](I j) {
            if constexpr (Masked)
                return ws.mask.marked(j, i) != p.complement_mask;
            else
                return true;
        };
        // Visits every allowed product of row i as (column, product).
        const auto for_each_product = [&](auto&& add) {
            for (index_t pa = a.row_ptr[i]; pa < a.row_ptr[i + 1]; ++pa) {
                if constexpr (Prefetch) prefetch_b_rows<true>(a, b, pa);
                const index_t k = a.col_idx[pa];
                const T av = load_as<T>(a.values[pa]);
                for (index_t pb = b.row_ptr[k]; pb < b.row_ptr[k + 1]; ++pb) {
                    const I j = b.col_idx[pb];
                    if (allowed(j)) add(j, Op::multiply(av, load_as<T>(b.values[pb])));
                }
            }
        };
        if (use_dense(ncols, len)) {
            ws.dense.prepare(ncols);
            for_each_product([&](I j, T prod) { ws.dense.template add<Op>(j, prod); });
            ws.dense.template drain<Op>(ncols, len, cols, [&](index_t q, T value) { values[q] = store_as<V>(value); });
        } else if (len <= kTinyRow) {
            ShortRowAccumulator<Op, T, I, kTinyRow> row;
            for_each_product([&](I j, T prod) { row.add(j, prod); });
            row.write(p.sorted, cols, [&](index_t q, T value) { values[q] = store_as<V>(value); });
        } else {
            index_t count = 0;
            ws.hash.prepare(len);
            for_each_product([&](I j, T prod) { ws.hash.template add<Op>(j, prod, cols, count); });
            if (p.sorted && len > kInsertionSortMax) {
                std::sort(cols, cols + len);
                for (index_t q = 0; q < len; ++q) values[q] = store_as<V>(ws.hash.value_of(cols[q]));
            } else {
                for (index_t q = 0; q < len; ++q) values[q] = store_as<V>(ws.hash.value_at(q));
                if (p.sorted) insertion_sort_pairs(cols, values, len);
            }
            ws.hash.clear(len);
        }
    }
}

}  // namespace

template <class V, class I>
void spgemm_numeric(const Executor& exec, const SpgemmProblem<V, I>& p, const SpgemmAnalysis& s, I* c_col_idx, V* c_values) {
    using T = accum_t<V>;
    const int threads = exec.threads();
    const std::vector<index_t> splits = balanced_row_splits(s.flops_prefix.data(), p.a.rows, chunk_count(p.a.rows, threads));
    const index_t chunks = static_cast<index_t>(splits.size()) - 1;
    // Masked products (triangle counting's among them) keep one copy of their loop, without
    // prefetches: not measured with them.
    const bool prefetch = !p.mask && prefetch_b_rows_for(p.a, p.b);
    index_t longest = 0;
    if (c_col_idx == nullptr)
        for (index_t i = 0; i < p.a.rows; ++i) longest = std::max(longest, s.row_offsets[i + 1] - s.row_offsets[i]);
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
#pragma omp parallel num_threads(threads)
        {
            Workspace<T, I> ws;
            ws.cols.resize(static_cast<std::size_t>(longest));
            if (p.mask) ws.mask.prepare(p.b.cols);
#pragma omp for schedule(dynamic, 1)
            for (index_t c = 0; c < chunks; ++c) {
                if (p.mask)
                    numeric_rows<Op, true, false>(p, s, splits[c], splits[c + 1], ws, c_col_idx, c_values);
                else if (prefetch)
                    numeric_rows<Op, false, true>(p, s, splits[c], splits[c + 1], ws, c_col_idx, c_values);
                else
                    numeric_rows<Op, false, false>(p, s, splits[c], splits[c + 1], ws, c_col_idx, c_values);
            }
        }
    });
}

#define SPK_INSTANTIATE(V, I) template void spgemm_numeric(const Executor&, const SpgemmProblem<V, I>&, const SpgemmAnalysis&, I*, V*);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
