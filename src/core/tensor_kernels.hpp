#pragma once
// The MTTKRP and TTM kernels, declared once and implemented by each backend (reference/, cpu/,
// cuda/). Arguments arrive validated, and each kernel gets the CSF its plan built for it.
#include <string>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"
#include "spk/sparse_tensor.hpp"

namespace spk::detail {

// out(i, r) = sum over slice i's non-zeros (i, j, k, x) of x * mid(j, r) * leaf(k, r), where
// i, j, k are the root, middle and leaf indices of x's CSF (root = the output mode).
template <class V, class I>
struct MttkrpArgs {
    CsfView<const V, I> x;
    DenseView<const V> mid;   // dims[order[1]] x R
    DenseView<const V> leaf;  // dims[order[2]] x R
    DenseView<V> out;         // dims[order[0]] x R, overwritten
};

// y(f, r) = sum over fiber f's non-zeros (k, x) of x * u(r, k), where k is the leaf index of x's
// CSF (leaf = the TTM mode).
template <class V, class I>
struct TtmArgs {
    CsfView<const V, I> x;
    DenseView<const V> u;  // R x dims[order[2]]
    DenseView<V> y;        // fibers x R, overwritten
};

namespace reference {
template <class V, class I>
void mttkrp(const Executor& exec, const MttkrpArgs<V, I>& args);
template <class V, class I>
void ttm(const Executor& exec, const TtmArgs<V, I>& args);
}  // namespace reference
namespace cpu {
template <class V, class I>
void mttkrp(const Executor& exec, const MttkrpArgs<V, I>& args);
template <class V, class I>
void ttm(const Executor& exec, const TtmArgs<V, I>& args);
}  // namespace cpu
namespace cuda {
template <class V, class I>
void mttkrp(const Executor& exec, const MttkrpArgs<V, I>& args, const std::string& config);
template <class V, class I>
void ttm(const Executor& exec, const TtmArgs<V, I>& args, const std::string& config);
}  // namespace cuda

}  // namespace spk::detail
