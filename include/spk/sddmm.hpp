#pragma once
// SDDMM: for each stored A(i,j) (entry p) and head h,
//   out(p, h) = [A.values[p] if scale_by_a] * sum_k X(i, h*d + k) * Y(j, h*d + k),  d = X.cols / heads.
#include <string>
#include <type_traits>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"

namespace spk {

struct SddmmOptions {
    bool scale_by_a = true;  // multiply by A's values (A may be pattern-only when false)
    int heads = 1;           // X and Y hold `heads` blocks of d columns each
    // The forward pass's kernel on CUDA: "rows" (neighbouring rows walked in lockstep, for rows of
    // about equal length whose neighbours share columns, such as a mesh's; used where d <= 128
    // 16-byte vectors or 256 single values, else "slices"), optionally with ".g<lanes>" (4, 8 or
    // 32 lanes a row; 32 is one row a warp) and ".s<split>" (warps sharing a group of rows, each
    // walking a span of its positions), both otherwise chosen from A's size; "slices" (equal
    // slices of entries, for any row lengths); or empty: chosen from A's rows at the first call
    // with A (one small kernel and a synchronisation). Ignored by the other backends and by
    // sddmm_backward; anything else is InvalidArgument on CUDA.
    std::string config = {};
};

// X: rows(A) x (heads*d), Y: cols(A) x (heads*d), out: nnz(A) x heads (row p = entry p of A).
template <class V, class I>
void sddmm(const Executor& exec, CsrView<const V, I> a, std::type_identity_t<DenseView<const V>> x,
           std::type_identity_t<DenseView<const V>> y, std::type_identity_t<DenseView<V>> out, const SddmmOptions& options = {});

// Gradients of sddmm given d_out (nnz x heads), with s_p = A.values[p] if scale_by_a else 1:
//   dX(i, block h) = sum over entries p = (i, j) of d_out(p, h) * s_p * Y(j, block h)
//   dY(j, block h) = sum over entries p = (i, j) of d_out(p, h) * s_p * X(i, block h)
//   da(p, 0)       = sum_h d_out(p, h) * <X(i, block h), Y(j, block h)>
// Any of dx (like X), dy (like Y), da (nnz x 1) may be a default (empty) view to skip it; those
// given are overwritten. da is the gradient for A's values when scale_by_a (the same formula is
// computed otherwise). A may be pattern-only unless scale_by_a and dx or dy is wanted.
template <class V, class I>
void sddmm_backward(const Executor& exec, CsrView<const V, I> a, std::type_identity_t<DenseView<const V>> x,
                    std::type_identity_t<DenseView<const V>> y, std::type_identity_t<DenseView<const V>> d_out,
                    std::type_identity_t<DenseView<V>> dx, std::type_identity_t<DenseView<V>> dy,
                    std::type_identity_t<DenseView<V>> da = {}, const SddmmOptions& options = {});

}  // namespace spk
