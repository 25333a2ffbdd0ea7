#pragma once
// The SpMM kernel, declared once and implemented by each backend (reference/, cpu/, cuda/).
// Arguments arrive validated; op(A) is already materialised (the plan transposes).
#include <memory>
#include <string>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"
#include "spk/spmm.hpp"
#include "tune/spmm_config.hpp"

namespace spk::detail {

template <class V, class I>
struct SpmmArgs {
    CsrView<const V, I> a;
    DenseView<const V> b;
    DenseView<V> c;
    DenseView<I> arg;  // empty unless max/min with arg requested
    Reduce reduce;
    double alpha, beta;
};

namespace reference {
template <class V, class I>
void spmm(const Executor& exec, const SpmmArgs<V, I>& args);
}
namespace cpu {
template <class V, class I>
void spmm(const Executor& exec, const SpmmArgs<V, I>& args);
}
namespace cuda {
// What a CUDA plan learns about A once: row bins and the kernel configuration of each.
struct SpmmState;
template <class V, class I>
std::shared_ptr<const SpmmState> spmm_analyse(const Executor& exec, CsrView<const V, I> a, index_t n, const SpmmOptions& options);
template <class V, class I>
void spmm(const Executor& exec, const SpmmState& state, const SpmmArgs<V, I>& args);
std::string spmm_describe(const SpmmState& state);
// What the analysis measured (row-length histogram, ...), for the tuner.
const SpmmFeatures& spmm_features(const SpmmState& state);
// Aᵀ built on the device, sorted like spk::transpose's: what a transposed plan runs on.
template <class V, class I>
Csr<V, I> transpose(const Executor& exec, CsrView<const V, I> a);
}  // namespace cuda

}  // namespace spk::detail
