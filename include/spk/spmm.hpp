#pragma once
// SpMM: C = alpha * reduce_j(A(i,j) * B(j,:)) + beta * C, with A sparse CSR and B, C dense.
#include <memory>
#include <string>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"
#include "spk/tune.hpp"

namespace spk {

// sum: the usual product. mean: sum divided by the row's number of non-zeros.
// max / min: element-wise over the row's products A(i,j) * B(j,:). Empty rows give 0.
enum class Reduce { sum, mean, max, min };
inline constexpr Reduce all_reduces[] = {Reduce::sum, Reduce::mean, Reduce::max, Reduce::min};
std::string_view to_string(Reduce r) noexcept;

struct SpmmOptions {
    Reduce reduce = Reduce::sum;
    double alpha = 1.0;
    double beta = 0.0;           // C is not read when beta == 0 (it may hold NaN)
    bool transpose_a = false;    // use Aᵀ in place of A
    bool deterministic = false;  // only kernels whose sums do not depend on timing
    std::string config = {};     // explicit kernel configuration (backend-specific); empty: `tune` decides
    Tune tune = Tune::select;    // how the CUDA plan picks a configuration (the CPU backend has one)
};

// Analyses A once (transposes it if asked, bins rows, picks a kernel) and runs many times.
// The plan keeps a view of A: A's arrays must outlive it. Values of A may change between runs.
// On CUDA it runs on the executor's stream and keeps device memory freed on that stream: the
// stream must outlive the plan. The constructor queues the analysis on the stream and returns
// without waiting for it; the first run() or config() waits for what it counted (and a plan
// destroyed unused waits for that copy), so errors of the analysis surface there.
template <class V, class I>
class SpmmPlan {
public:
    SpmmPlan(const Executor& exec, CsrView<const V, I> a, index_t n, SpmmOptions options = {});
    ~SpmmPlan();
    SpmmPlan(SpmmPlan&&) noexcept;
    SpmmPlan& operator=(SpmmPlan&&) noexcept;

    // B: k x n, C: m x n (m, k: rows and columns of op(A)). arg (optional, m x n): for max and
    // min, the column of op(A) whose product won each output element, -1 for empty rows.
    void run(DenseView<const V> b, DenseView<V> c, DenseView<I> arg = {}) const;
    // As run, with `values` (nnz x 1, contiguous, in A's entry order: a dropout of A's values, new
    // edge weights) in place of A's own: one plan serves every set of values of A's pattern. Not for
    // plans made with transpose_a, whose Aᵀ holds its own copy of the values.
    void run_with_values(DenseView<const V> values, DenseView<const V> b, DenseView<V> c, DenseView<I> arg = {}) const;
    // The kernel configuration chosen for this plan, as a readable string.
    std::string config() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

template <class V, class I>
void spmm(const Executor& exec, CsrView<const V, I> a, std::type_identity_t<DenseView<const V>> b, std::type_identity_t<DenseView<V>> c,
          const SpmmOptions& options = {}, std::type_identity_t<DenseView<I>> arg = {});

}  // namespace spk
