#pragma once
// The SpGEMM kernels, declared once and implemented by each backend (reference/, cpu/, cuda/).
// Two phases (second paper, kkmem): symbolic counts each row of C, numeric writes C's columns
// and values. Arguments arrive validated; the plan keeps the symbolic result for reuse.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"
#include "spk/spgemm.hpp"

namespace spk::detail {

template <class V, class I>
struct SpgemmProblem {
    CsrView<const V, I> a, b;
    std::optional<CsrView<const V, I>> mask;  // structural: only its pattern is read
    Semiring semiring;
    bool complement_mask;
    bool sorted;  // C's rows must come out with sorted columns
    SpgemmReuse reuse;  // what recompute keeps for its later calls (CUDA)
    bool detect_blocks = true;  // CUDA: multiply dense blocks where A and B consist of them
};

// What the symbolic phase leaves for the numeric phase.
struct SpgemmAnalysis {
    index_t nnz = 0;  // of C, exact (every backend sets it; the plan checks it fits the index type)
    // Host backends: C's row_ptr (rows + 1) in host memory. Empty on CUDA, which keeps it on the
    // device (see cuda::spgemm_row_ptr).
    std::vector<index_t> row_offsets;
    std::vector<index_t> flops_prefix;  // scalar products A(i,k) B(k,j) before each row (rows + 1): load balance
    // Backend-private state kept on the device (CUDA: C's row_ptr and row bins, and C's columns
    // once a recompute has run), null on the host.
    std::shared_ptr<const void> device;
    std::string config = "scalar";  // SpgemmPlan::config(): "scalar", or on CUDA "blocks BRxBKxBC"
};

// Scalar products before each row of A·B (rows + 1 entries), computed on the host.
template <class V, class I>
std::vector<index_t> spgemm_flops_prefix(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b);

// numeric: c_col_idx may be null (recompute: values only, columns already known). For the same
// patterns the numeric phase writes each row's entries in the same order every time.
namespace reference {
template <class V, class I>
SpgemmAnalysis spgemm_symbolic(const Executor& exec, const SpgemmProblem<V, I>& p);
template <class V, class I>
void spgemm_numeric(const Executor& exec, const SpgemmProblem<V, I>& p, const SpgemmAnalysis& s, I* c_col_idx, V* c_values);
}  // namespace reference
namespace cpu {
template <class V, class I>
SpgemmAnalysis spgemm_symbolic(const Executor& exec, const SpgemmProblem<V, I>& p);
template <class V, class I>
void spgemm_numeric(const Executor& exec, const SpgemmProblem<V, I>& p, const SpgemmAnalysis& s, I* c_col_idx, V* c_values);
// Triangles of the graph whose strictly lower triangle is the pattern `lower` (sorted, unique):
// Σ_i Σ_{k ∈ L_i} |L_i ∩ L_k|, the masked product L .* (L·L) summed without forming it.
template <class I>
std::uint64_t count_triangles(const Executor& exec, index_t n, const I* row_ptr, const I* col_idx);
}  // namespace cpu
namespace cuda {
template <class V, class I>
SpgemmAnalysis spgemm_symbolic(const Executor& exec, const SpgemmProblem<V, I>& p);
template <class V, class I>
void spgemm_numeric(const Executor& exec, const SpgemmProblem<V, I>& p, const SpgemmAnalysis& s, I* c_col_idx, V* c_values);
// C's row_ptr (rows + 1 entries, from the symbolic phase) into row_ptr, device memory of the
// executor, on its stream. Only for a plan whose nnz fits I.
template <class I>
void spgemm_row_ptr(const Executor& exec, const SpgemmAnalysis& s, I* row_ptr);
// As cpu::count_triangles, with row_ptr and col_idx in the executor's device memory.
template <class I>
std::uint64_t count_triangles(const Executor& exec, index_t n, const I* row_ptr, const I* col_idx);
// Triangles of the undirected simple graph under G's pattern (n x n, nnz entries in device memory;
// any order, repeats and self loops allowed): L built on the device (triangle_lower.cu), then
// count_triangles.
template <class I>
std::uint64_t count_graph_triangles(const Executor& exec, index_t n, index_t nnz, const I* row_ptr, const I* col_idx);
}  // namespace cuda

}  // namespace spk::detail
