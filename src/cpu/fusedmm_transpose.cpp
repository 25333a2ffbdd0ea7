// Aᵀ's pattern with a map back to A's entries, for the cpu FusedMM backward pass: it reads the
// per-entry gradients its row pass computed through that map. Built once per plan, in parallel.
#include "core/fusedmm_kernels.hpp"
#include "core/instantiate.hpp"
#include "cpu/transposed_pattern.hpp"

namespace spk::detail::cpu {

template <class V, class I>
TransposedPattern<I> fusedmm_transpose(const Executor& exec, CsrView<const V, I> a) {
    return transposed_pattern(a, exec.threads());
}

#define SPK_INSTANTIATE(V, I) template TransposedPattern<I> fusedmm_transpose(const Executor&, CsrView<const V, I>);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
