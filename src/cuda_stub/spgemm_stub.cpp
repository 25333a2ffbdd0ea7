// Built without CUDA: the CUDA SpGEMM and triangle-counting kernels throw Unsupported.
#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"
#include "cuda_stub/missing.hpp"

namespace spk::detail::cuda {

template <class V, class I>
SpgemmAnalysis spgemm_symbolic(const Executor&, const SpgemmProblem<V, I>&) {
    missing_kernel("spgemm");
}
template <class V, class I>
void spgemm_numeric(const Executor&, const SpgemmProblem<V, I>&, const SpgemmAnalysis&, I*, V*) {
    missing_kernel("spgemm");
}
template <class I>
void spgemm_row_ptr(const Executor&, const SpgemmAnalysis&, I*) {
    missing_kernel("spgemm");
}
template <class I>
std::uint64_t count_graph_triangles(const Executor&, index_t, index_t, const I*, const I*) {
    missing_kernel("triangle_count");
}

#define SPK_INSTANTIATE(V, I)                                                             \
    template SpgemmAnalysis spgemm_symbolic(const Executor&, const SpgemmProblem<V, I>&); \
    template void spgemm_numeric(const Executor&, const SpgemmProblem<V, I>&, const SpgemmAnalysis&, I*, V*);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE
template void spgemm_row_ptr(const Executor&, const SpgemmAnalysis&, std::int32_t*);
template void spgemm_row_ptr(const Executor&, const SpgemmAnalysis&, std::int64_t*);
template std::uint64_t count_graph_triangles(const Executor&, index_t, index_t, const std::int32_t*, const std::int32_t*);
template std::uint64_t count_graph_triangles(const Executor&, index_t, index_t, const std::int64_t*, const std::int64_t*);

}  // namespace spk::detail::cuda
