// SDDMM front end: validate, dispatch to a backend. No plan: nothing about A is worth analysing
// ahead of time for the forward pass, and the backward pass builds what it needs per call.
#include "spk/sddmm.hpp"

#include "core/check.hpp"
#include "core/instantiate.hpp"
#include "core/sddmm_kernels.hpp"

namespace spk {

namespace {

// X and Y: rows(A) and cols(A) rows, the same number of columns, a multiple of heads.
template <class V, class I>
void check_operands(const Executor& exec, CsrView<const V, I> a, DenseView<const V> x, DenseView<const V> y, const SddmmOptions& options,
                    const char* fn) {
    if (options.heads < 1) invalid_argument(std::string(fn) + ": heads must be >= 1, got " + std::to_string(options.heads));
    detail::check_csr(a, exec, "A", options.scale_by_a);
    detail::check_dense(x, exec, "X");
    detail::check_dense(y, exec, "Y");
    detail::check_shape(x, a.rows, x.cols, "X");
    detail::check_shape(y, a.cols, x.cols, "Y");
    if (x.cols % options.heads != 0)
        shape_mismatch("X: " + std::to_string(x.cols) + " columns do not split into heads = " + std::to_string(options.heads) +
                       " equal blocks");
}

// A gradient view the caller may leave empty (default-constructed) to skip it.
template <class T>
bool wanted(const DenseView<T>& d) {
    return !(d.data == nullptr && d.rows == 0 && d.cols == 0);
}

}  // namespace

template <class V, class I>
void sddmm(const Executor& exec, CsrView<const V, I> a, std::type_identity_t<DenseView<const V>> x,
           std::type_identity_t<DenseView<const V>> y, std::type_identity_t<DenseView<V>> out, const SddmmOptions& options) {
    check_operands(exec, a, x, y, options, "sddmm");
    detail::check_dense(out, exec, "out");
    detail::check_shape(out, a.nnz, options.heads, "out");
    const detail::SddmmArgs<V, I> args{a, x, y, out, options.scale_by_a, options.heads, options.config};
    switch (exec.backend()) {
        case Backend::reference:
            detail::reference::sddmm(exec, args);
            break;
        case Backend::cpu:
            detail::cpu::sddmm(exec, args);
            break;
        case Backend::cuda:
            detail::cuda::sddmm(exec, args);
            break;
    }
}

template <class V, class I>
void sddmm_backward(const Executor& exec, CsrView<const V, I> a, std::type_identity_t<DenseView<const V>> x,
                    std::type_identity_t<DenseView<const V>> y, std::type_identity_t<DenseView<const V>> d_out,
                    std::type_identity_t<DenseView<V>> dx, std::type_identity_t<DenseView<V>> dy, std::type_identity_t<DenseView<V>> da,
                    const SddmmOptions& options) {
    // A's values enter dX and dY only when they scaled the forward result.
    const bool need_values = options.scale_by_a && (wanted(dx) || wanted(dy));
    check_operands(exec, a, x, y, {.scale_by_a = need_values, .heads = options.heads}, "sddmm_backward");
    detail::check_dense(d_out, exec, "d_out");
    detail::check_shape(d_out, a.nnz, options.heads, "d_out");
    if (wanted(dx)) {
        detail::check_dense(dx, exec, "dx");
        detail::check_shape(dx, x.rows, x.cols, "dx");
    } else
        dx = {};
    if (wanted(dy)) {
        detail::check_dense(dy, exec, "dy");
        detail::check_shape(dy, y.rows, y.cols, "dy");
    } else
        dy = {};
    if (wanted(da)) {
        detail::check_dense(da, exec, "da");
        detail::check_shape(da, a.nnz, 1, "da");
    } else
        da = {};
    const detail::SddmmBackwardArgs<V, I> args{a, x, y, d_out, dx, dy, da, options.scale_by_a, options.heads};
    switch (exec.backend()) {
        case Backend::reference:
            detail::reference::sddmm_backward(exec, args);
            break;
        case Backend::cpu:
            detail::cpu::sddmm_backward(exec, args);
            break;
        case Backend::cuda:
            detail::cuda::sddmm_backward(exec, args);
            break;
    }
}

#define SPK_INSTANTIATE(V, I)                                                                                                            \
    template void sddmm<V, I>(const Executor&, CsrView<const V, I>, DenseView<const V>, DenseView<const V>, DenseView<V>,                \
                              const SddmmOptions&);                                                                                      \
    template void sddmm_backward<V, I>(const Executor&, CsrView<const V, I>, DenseView<const V>, DenseView<const V>, DenseView<const V>, \
                                       DenseView<V>, DenseView<V>, DenseView<V>, const SddmmOptions&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
