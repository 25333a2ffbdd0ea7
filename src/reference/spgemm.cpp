// Reference SpGEMM: one row at a time into an ordered map, double accumulation. The oracle
// for every backend. Output rows are always sorted (a valid answer for sorted = false too).
#include <map>
#include <set>

#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"
#include "core/spgemm_semiring.hpp"

namespace spk::detail::reference {

namespace {

// The columns of row i of the mask as a set (empty set when there is no mask).
template <class V, class I>
std::set<index_t> mask_row(const SpgemmProblem<V, I>& p, index_t i) {
    std::set<index_t> cols;
    if (p.mask)
        for (index_t q = p.mask->row_ptr[i]; q < p.mask->row_ptr[i + 1]; ++q) cols.insert(p.mask->col_idx[q]);
    return cols;
}

// Row i of C: column -> value, every product kept where the mask allows it.
template <class Op, class V, class I>
std::map<index_t, double> row_of_c(const SpgemmProblem<V, I>& p, index_t i) {
    const std::set<index_t> mask = mask_row(p, i);
    std::map<index_t, double> row;
    for (index_t pa = p.a.row_ptr[i]; pa < p.a.row_ptr[i + 1]; ++pa) {
        const index_t k = p.a.col_idx[pa];
        const double av = p.a.values ? value_cast<double>(p.a.values[pa]) : 0.0;
        for (index_t pb = p.b.row_ptr[k]; pb < p.b.row_ptr[k + 1]; ++pb) {
            const index_t j = p.b.col_idx[pb];
            if (p.mask && (mask.count(j) != 0) == p.complement_mask) continue;
            const double bv = p.b.values ? value_cast<double>(p.b.values[pb]) : 0.0;
            const double prod = Op::multiply(av, bv);
            auto [it, fresh] = row.try_emplace(j, prod);
            if (!fresh) it->second = Op::add(it->second, prod);
        }
    }
    return row;
}

}  // namespace

template <class V, class I>
SpgemmAnalysis spgemm_symbolic(const Executor& exec, const SpgemmProblem<V, I>& p) {
    SpgemmAnalysis s;
    s.flops_prefix = spgemm_flops_prefix(exec, p.a, p.b);
    s.row_offsets.assign(static_cast<std::size_t>(p.a.rows) + 1, 0);
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
        for (index_t i = 0; i < p.a.rows; ++i) s.row_offsets[i + 1] = s.row_offsets[i] + static_cast<index_t>(row_of_c<Op>(p, i).size());
    });
    s.nnz = s.row_offsets.back();
    return s;
}

template <class V, class I>
void spgemm_numeric(const Executor&, const SpgemmProblem<V, I>& p, const SpgemmAnalysis& s, I* c_col_idx, V* c_values) {
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
        for (index_t i = 0; i < p.a.rows; ++i) {
            index_t out = s.row_offsets[i];
            for (const auto& [j, v] : row_of_c<Op>(p, i)) {
                if (c_col_idx) c_col_idx[out] = static_cast<I>(j);
                c_values[out] = value_cast<V>(v);
                ++out;
            }
        }
    });
}

#define SPK_INSTANTIATE(V, I)                                                             \
    template SpgemmAnalysis spgemm_symbolic(const Executor&, const SpgemmProblem<V, I>&); \
    template void spgemm_numeric(const Executor&, const SpgemmProblem<V, I>&, const SpgemmAnalysis&, I*, V*);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::reference
