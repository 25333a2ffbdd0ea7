// P = (I - omega D⁻¹A) P_tent (MueLu's SaPFactory), the product by spk's own SpGEMM.
#include <string>

#include "core/instantiate.hpp"
#include "generate/diagonal.hpp"
#include "generate/smoothed_aggregation.hpp"
#include "spk/spgemm.hpp"

namespace spk::detail {

template <class V, class I>
Csr<V, I> smooth_prolongator(CsrView<const V, I> a, CsrView<const V, I> p_tent, double omega) {
    const std::vector<double> inv_diag = inverse_diagonal(a, "smooth_prolongator");
    if (p_tent.rows != a.cols)
        shape_mismatch("smooth_prolongator: P_tent has " + std::to_string(p_tent.rows) + " rows, A has " + std::to_string(a.cols) +
                       " columns");
    // S = I - omega D⁻¹A shares A's pattern (which holds the diagonal), so only values are new.
    Array<V> s_values(Executor::cpu(), static_cast<std::size_t>(a.nnz));
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < a.rows; ++i)
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
            s_values[p] = value_cast<V>((a.col_idx[p] == i ? 1.0 : 0.0) - omega * inv_diag[i] * value_cast<double>(a.values[p]));
    const CsrView<const V, I> s{a.rows, a.cols, a.nnz, a.row_ptr, a.col_idx, s_values.data(), MemorySpace::host(), a.sorted};
    return spgemm(Executor::cpu(), s, p_tent);
}

#define SPK_INSTANTIATE(V, I) template Csr<V, I> smooth_prolongator<V, I>(CsrView<const V, I>, CsrView<const V, I>, double);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail
