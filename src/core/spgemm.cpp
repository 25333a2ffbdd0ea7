// SpGEMM front end: validate, run the symbolic phase once (the plan), the numeric phase per call.
#include "spk/spgemm.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/check.hpp"
#include "core/instantiate.hpp"
#include "core/spgemm_kernels.hpp"

namespace spk {

std::string_view to_string(Semiring s) noexcept {
    switch (s) {
        case Semiring::plus_times:
            return "plus_times";
        case Semiring::plus_pair:
            return "plus_pair";
        case Semiring::min_plus:
            return "min_plus";
        case Semiring::max_times:
            return "max_times";
        case Semiring::lor_land:
            return "lor_land";
    }
    return "?";
}

std::string_view to_string(SpgemmReuse r) noexcept {
    switch (r) {
        case SpgemmReuse::automatic:
            return "automatic";
        case SpgemmReuse::search:
            return "search";
        case SpgemmReuse::places:
            return "places";
        case SpgemmReuse::entries:
            return "entries";
    }
    return "?";
}

namespace detail {

template <class V, class I>
std::vector<index_t> spgemm_flops_prefix(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b) {
    std::vector<index_t> prefix(static_cast<std::size_t>(a.rows) + 1, 0);
    const int threads = exec.backend() == Backend::cpu ? exec.threads() : 1;
#pragma omp parallel for num_threads(threads) schedule(static, 1024)
    for (index_t i = 0; i < a.rows; ++i) {
        index_t f = 0;
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const index_t k = a.col_idx[p];
            f += b.row_ptr[k + 1] - b.row_ptr[k];
        }
        prefix[i + 1] = f;
    }
    for (index_t i = 0; i < a.rows; ++i) prefix[i + 1] += prefix[i];
    return prefix;
}

}  // namespace detail

template <class V, class I>
struct SpgemmPlan<V, I>::Impl {
    Executor exec;
    detail::SpgemmProblem<V, I> problem;
    detail::SpgemmAnalysis analysis;
};

namespace {

template <class V, class I>
void validate_spgemm(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, const std::optional<CsrView<const V, I>>& mask) {
    detail::check_csr(a, exec, "A");
    detail::check_csr(b, exec, "B");
    if (a.cols != b.rows)
        shape_mismatch("B: " + std::to_string(b.rows) + " rows, expected " + std::to_string(a.cols) + " (the columns of A, which is " +
                       detail::shape_string(a.rows, a.cols) + ")");
    if (mask) {
        detail::check_csr(*mask, exec, "mask", /*need_values=*/false);
        if (mask->rows != a.rows || mask->cols != b.cols)
            shape_mismatch("mask: shape " + detail::shape_string(mask->rows, mask->cols) + ", expected " +
                           detail::shape_string(a.rows, b.cols) + " (rows of A x columns of B)");
    }
}

template <class V, class I>
detail::SpgemmAnalysis run_symbolic(const Executor& exec, const detail::SpgemmProblem<V, I>& p) {
    switch (exec.backend()) {
        case Backend::reference:
            return detail::reference::spgemm_symbolic(exec, p);
        case Backend::cpu:
            return detail::cpu::spgemm_symbolic(exec, p);
        case Backend::cuda:
            break;
    }
    return detail::cuda::spgemm_symbolic(exec, p);
}

template <class V, class I>
void run_numeric(const Executor& exec, const detail::SpgemmProblem<V, I>& p, const detail::SpgemmAnalysis& s, I* cols, V* values) {
    switch (exec.backend()) {
        case Backend::reference:
            detail::reference::spgemm_numeric(exec, p, s, cols, values);
            return;
        case Backend::cpu:
            detail::cpu::spgemm_numeric(exec, p, s, cols, values);
            return;
        case Backend::cuda:
            detail::cuda::spgemm_numeric(exec, p, s, cols, values);
            return;
    }
}

}  // namespace

template <class V, class I>
SpgemmPlan<V, I>::SpgemmPlan(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, SpgemmOptions options,
                             std::optional<CsrView<const V, I>> mask) {
    validate_spgemm(exec, a, b, mask);
    detail::SpgemmProblem<V, I> problem{a, b, mask, options.semiring, options.complement_mask, options.sorted,
                                        options.reuse, options.detect_blocks};
    detail::SpgemmAnalysis analysis = run_symbolic(exec, problem);
    const index_t nnz = analysis.nnz;
    if (nnz > static_cast<index_t>(std::numeric_limits<I>::max()))
        invalid_argument("SpgemmPlan: C has " + std::to_string(nnz) + " non-zeros, more than the index type " +
                         std::string(index_traits<I>::name) + " can hold; use int64_t indices");
    impl_ = std::make_unique<Impl>(Impl{exec, problem, std::move(analysis)});
}

template <class V, class I>
SpgemmPlan<V, I>::~SpgemmPlan() = default;
template <class V, class I>
SpgemmPlan<V, I>::SpgemmPlan(SpgemmPlan&&) noexcept = default;
template <class V, class I>
SpgemmPlan<V, I>& SpgemmPlan<V, I>::operator=(SpgemmPlan&&) noexcept = default;

template <class V, class I>
index_t SpgemmPlan<V, I>::nnz() const {
    return impl_->analysis.nnz;
}

template <class V, class I>
std::string SpgemmPlan<V, I>::config() const {
    return impl_->analysis.config;
}

template <class V, class I>
std::vector<index_t> SpgemmPlan<V, I>::row_offsets() const {
    const Impl& p = *impl_;
    if (p.exec.backend() != Backend::cuda) return p.analysis.row_offsets;
    Array<I> device(p.exec, static_cast<std::size_t>(p.problem.a.rows) + 1);
    detail::cuda::spgemm_row_ptr(p.exec, p.analysis, device.data());
    p.exec.synchronize();
    const std::vector<I> host = device.to_vector();
    return std::vector<index_t>(host.begin(), host.end());
}

template <class V, class I>
Csr<V, I> SpgemmPlan<V, I>::compute() const {
    const Impl& p = *impl_;
    const index_t rows = p.problem.a.rows;
    Csr<V, I> c(p.exec, rows, p.problem.b.cols, nnz());
    if (p.exec.backend() == Backend::cuda) {
        detail::cuda::spgemm_row_ptr(p.exec, p.analysis, c.row_ptr().data());  // device to device, on the stream
    } else {
        const std::vector<index_t>& offsets = p.analysis.row_offsets;
        std::copy(offsets.begin(), offsets.end(), c.row_ptr().data());  // narrowed to I: checked by the plan
    }
    run_numeric(p.exec, p.problem, p.analysis, c.col_idx().data(), c.values().data());
    c.set_sorted(p.problem.sorted);
    return c;
}

template <class V, class I>
void SpgemmPlan<V, I>::recompute(const V* a_values, const V* b_values, V* c_values) const {
    const Impl& p = *impl_;
    if (a_values == nullptr && p.problem.a.nnz > 0) invalid_argument("recompute: a_values is null");
    if (b_values == nullptr && p.problem.b.nnz > 0) invalid_argument("recompute: b_values is null");
    if (c_values == nullptr && nnz() > 0) invalid_argument("recompute: c_values is null");
    detail::SpgemmProblem<V, I> problem = p.problem;
    problem.a.values = a_values;
    problem.b.values = b_values;
    run_numeric(p.exec, problem, p.analysis, static_cast<I*>(nullptr), c_values);
}

template <class V, class I>
Csr<V, I> spgemm(const Executor& exec, CsrView<const V, I> a, CsrView<const V, I> b, const SpgemmOptions& options,
                 std::optional<CsrView<const V, I>> mask) {
    return SpgemmPlan<V, I>(exec, a, b, options, mask).compute();
}

#define SPK_INSTANTIATE(V, I)                                                                                  \
    template class SpgemmPlan<V, I>;                                                                           \
    template Csr<V, I> spgemm(const Executor&, CsrView<const V, I>, CsrView<const V, I>, const SpgemmOptions&, \
                              std::optional<CsrView<const V, I>>);                                             \
    template std::vector<index_t> detail::spgemm_flops_prefix(const Executor&, CsrView<const V, I>, CsrView<const V, I>);
SPK_FOR_FLOAT_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
