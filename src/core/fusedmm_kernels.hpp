#pragma once
// The FusedMM kernels, declared once and implemented by each backend (reference/, cpu/, cuda/).
// Arguments arrive validated, row-major for the cpu backend; widths per head are resolved.
#include <string>
#include <vector>

#include "core/fused_kept_split.hpp"
#include "core/transposed_pattern.hpp"
#include "spk/executor.hpp"
#include "spk/fusedmm.hpp"
#include "spk/matrix.hpp"

namespace spk::detail {

template <class V>
using fused_stat_t = typename value_traits<V>::accum;

template <class V, class I>
struct FusedForwardArgs {
    CsrView<const V, I> a;
    DenseView<const V> x, y, z;  // x, y unused for Score::value
    DenseView<V> e;
    FusedOptions options;
    index_t d;   // score width per head: X.cols / heads (1 for add, 0 for value)
    index_t dz;  // output width per head: Z.cols / heads
    // Outputs for the backward pass; empty when the options do not call for them.
    DenseView<fused_stat_t<V>> row_max, row_sum;
    DenseView<I> argmax;
    DenseView<V> attention;
    FusedSplitCache* kept_split = nullptr;  // the plan's (CUDA), or none: search at every call
};

template <class V, class I>
struct FusedBackwardArgs {
    CsrView<const V, I> a;
    TransposedPatternView<I> at;  // the caller's, or built by the plan for the cpu backend; else none
    DenseView<const V> de, x, y, z;
    DenseView<const fused_stat_t<V>> row_max, row_sum;  // softmax only
    DenseView<const I> argmax;                          // max aggregation only
    DenseView<const V> attention;                       // save_attention only
    DenseView<V> dx, dy, dz, da;                        // each may be empty
    FusedOptions options;
    index_t d, dz_width;     // as in FusedForwardArgs (dz_width: Z.cols / heads)
    DenseView<const V> e{};  // the forward pass's output, when the caller gives it (FusedPlan::backward)
    FusedSplitCache* kept_split = nullptr;  // the plan's (CUDA), or none: search at every call
};

namespace reference {
template <class V, class I>
void fusedmm_forward(const Executor& exec, const FusedForwardArgs<V, I>& args);
template <class V, class I>
void fusedmm_backward(const Executor& exec, const FusedBackwardArgs<V, I>& args);
}  // namespace reference

namespace cpu {
template <class V, class I>
void fusedmm_forward(const Executor& exec, const FusedForwardArgs<V, I>& args);
template <class V, class I>
void fusedmm_backward(const Executor& exec, const FusedBackwardArgs<V, I>& args);
template <class V, class I>
TransposedPattern<I> fusedmm_transpose(const Executor& exec, CsrView<const V, I> a);
}  // namespace cpu

namespace cuda {
template <class V, class I>
void fusedmm_forward(const Executor& exec, const FusedForwardArgs<V, I>& args, const std::string& config);
template <class V, class I>
void fusedmm_backward(const Executor& exec, const FusedBackwardArgs<V, I>& args, const std::string& config);
}  // namespace cuda

}  // namespace spk::detail
