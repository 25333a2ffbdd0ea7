#pragma once
// Sparse 3-way tensor operations: MTTKRP (the core of CP-ALS) and TTM (the core of Tucker).
// Both are reductions over a CSF: the output mode is the CSF root for MTTKRP (so that each
// thread owns its output rows) and the leaf for TTM (so that each output fiber is contiguous).
// Every executor: reference, cpu and cuda (src/cuda/tensor/).
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"
#include "spk/sparse_tensor.hpp"

namespace spk {

// MTTKRP in mode n: out(i_n, r) = sum over non-zeros X(i0, i1, i2) * prod_{m != n} U_m(i_m, r).
// The plan builds one CSF rooted at each planned mode once (duplicates summed), so CP-ALS
// iterations reuse them; it keeps no reference to x.
template <class V, class I>
class MttkrpPlan {
public:
    // modes: the modes run() will be called with (each in 0..2, all three by default).
    MttkrpPlan(const Executor& exec, const CooTensor3<V, I>& x, const std::vector<int>& modes = {0, 1, 2});
    ~MttkrpPlan();
    MttkrpPlan(MttkrpPlan&&) noexcept;
    MttkrpPlan& operator=(MttkrpPlan&&) noexcept;

    // factors[m]: dims[m] x R (any layout) for m != mode; factors[mode] is not read and may be
    // empty. out: dims[mode] x R, overwritten (rows without non-zeros become 0).
    void run(int mode, const std::array<DenseView<const V>, 3>& factors, DenseView<V> out) const;

    const std::array<index_t, 3>& dims() const;
    index_t nnz() const;  // after duplicates were summed
    // The CSF rooted at a planned mode (in the executor's memory space).
    const Csf<V, I>& csf(int mode) const;
    std::string config() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

template <class V, class I>
void mttkrp(const Executor& exec, const CooTensor3<V, I>& x, int mode, const std::array<DenseView<const V>, 3>& factors, DenseView<V> out);

// TTM in mode n (Kolda's convention, Y = X x_n U): Y(.., r, ..) = sum_{i_n} X(.. i_n ..) U(r, i_n)
// with U of shape R x dims[n]. Y is semi-sparse: one dense R-vector per non-empty mode-n fiber
// of X. The plan builds the CSF whose leaf is mode n (duplicates summed) and keeps no
// reference to x.
template <class V, class I>
class TtmPlan {
public:
    TtmPlan(const Executor& exec, const CooTensor3<V, I>& x, int mode);
    ~TtmPlan();
    TtmPlan(TtmPlan&&) noexcept;
    TtmPlan& operator=(TtmPlan&&) noexcept;

    // The values of Y only: y is fibers() x R (any layout), overwritten.
    void run(DenseView<const V> u, DenseView<V> y) const;
    // The whole of Y, allocated in the executor's memory space.
    SemiSparseTensor3<V, I> run(DenseView<const V> u) const;

    int mode() const;
    index_t fibers() const;  // the number of non-empty mode-n fibers of X
    const Csf<V, I>& csf() const;
    std::string config() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

template <class V, class I>
SemiSparseTensor3<V, I> ttm(const Executor& exec, const CooTensor3<V, I>& x, int mode, DenseView<const V> u);

}  // namespace spk
