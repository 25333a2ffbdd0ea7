#pragma once
// The SDDMM kernels (forward and backward), declared once and implemented by each backend
// (reference/, cpu/, cuda/). Arguments arrive validated.
#include <string_view>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"
#include "spk/sddmm.hpp"

namespace spk::detail {

template <class V, class I>
struct SddmmArgs {
    CsrView<const V, I> a;  // values read only when scale_by_a
    DenseView<const V> x, y;
    DenseView<V> out;  // nnz x heads
    bool scale_by_a;
    index_t heads;            // >= 1; x.cols is a multiple of it
    std::string_view config;  // SddmmOptions::config (the CUDA backend reads it)
};

// dx, dy, da: an empty view (null data) means "not wanted".
template <class V, class I>
struct SddmmBackwardArgs {
    CsrView<const V, I> a;
    DenseView<const V> x, y, d_out;
    DenseView<V> dx, dy, da;
    bool scale_by_a;
    index_t heads;
};

namespace reference {
template <class V, class I>
void sddmm(const Executor& exec, const SddmmArgs<V, I>& args);
template <class V, class I>
void sddmm_backward(const Executor& exec, const SddmmBackwardArgs<V, I>& args);
}  // namespace reference
namespace cpu {
template <class V, class I>
void sddmm(const Executor& exec, const SddmmArgs<V, I>& args);
template <class V, class I>
void sddmm_backward(const Executor& exec, const SddmmBackwardArgs<V, I>& args);
}  // namespace cpu
namespace cuda {
template <class V, class I>
void sddmm(const Executor& exec, const SddmmArgs<V, I>& args);
template <class V, class I>
void sddmm_backward(const Executor& exec, const SddmmBackwardArgs<V, I>& args);
}  // namespace cuda

}  // namespace spk::detail
