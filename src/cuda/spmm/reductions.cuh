#pragma once
// How one SpMM output element folds its products: a sum, or an extremum that remembers which
// column of A won (ties and NaN resolved the same way whatever the order of combination, so
// the result does not depend on how lanes split a row).
#include <cmath>

namespace spk::detail::cuda {

enum class Fold { sum, max, min };

template <Fold F, class A>
__device__ __forceinline__ A fold_identity() {
    if constexpr (F == Fold::sum)
        return A(0);
    else if constexpr (F == Fold::max)
        return -INFINITY;
    else
        return INFINITY;
}

// Does (v, j) beat (best, best_j)? NaN beats everything (it propagates); among equals and among
// NaNs the smaller column wins, which is the first one in a sorted row.
template <Fold F, class A, class I>
__device__ __forceinline__ bool fold_wins(A v, I j, A best, I best_j) {
    const bool v_nan = v != v, best_nan = best != best;
    if (v_nan || best_nan) return v_nan && (!best_nan || j < best_j);
    if (best_j < 0) return true;
    if constexpr (F == Fold::max)
        return v > best || (v == best && j < best_j);
    else
        return v < best || (v == best && j < best_j);
}

}  // namespace spk::detail::cuda
