#pragma once
// Semiring operations shared by every SpGEMM backend, so that all of them agree on the
// arithmetic (including NaN: min/max ignore a NaN operand unless both are NaN, as fmin/fmax).
// T is the accumulation type (double in reference/, value_traits<V>::accum elsewhere).
// kZeroIsIdentity: add(0, x) == x (up to the sign of a zero), so an accumulator may start from 0
// instead of testing for the first product.
#include <cmath>
#include <utility>

#include "spk/spgemm.hpp"

// The operations run in CUDA kernels too (src/cuda/spgemm/).
#if defined(__CUDACC__)
#define SPK_SEMIRING_FN __host__ __device__
#else
#define SPK_SEMIRING_FN
#endif

namespace spk::detail {

struct PlusTimes {
    static constexpr bool kZeroIsIdentity = true;
    template <class T>
    SPK_SEMIRING_FN static T multiply(T a, T b) {
        return a * b;
    }
    template <class T>
    SPK_SEMIRING_FN static T add(T x, T y) {
        return x + y;
    }
};
struct PlusPair {  // each product counts 1
    static constexpr bool kZeroIsIdentity = true;
    template <class T>
    SPK_SEMIRING_FN static T multiply(T, T) {
        return T(1);
    }
    template <class T>
    SPK_SEMIRING_FN static T add(T x, T y) {
        return x + y;
    }
};
struct MinPlus {
    static constexpr bool kZeroIsIdentity = false;
    template <class T>
    SPK_SEMIRING_FN static T multiply(T a, T b) {
        return a + b;
    }
    template <class T>
    SPK_SEMIRING_FN static T add(T x, T y) {
        return std::fmin(x, y);
    }
};
struct MaxTimes {
    static constexpr bool kZeroIsIdentity = false;
    template <class T>
    SPK_SEMIRING_FN static T multiply(T a, T b) {
        return a * b;
    }
    template <class T>
    SPK_SEMIRING_FN static T add(T x, T y) {
        return std::fmax(x, y);
    }
};
struct LorLand {  // non-zero is true; results are 0 or 1
    static constexpr bool kZeroIsIdentity = true;
    template <class T>
    SPK_SEMIRING_FN static T multiply(T a, T b) {
        return (a != T(0) && b != T(0)) ? T(1) : T(0);
    }
    template <class T>
    SPK_SEMIRING_FN static T add(T x, T y) {
        return (x != T(0) || y != T(0)) ? T(1) : T(0);
    }
};

// Calls f with the semiring's operation type (a compile-time choice inside kernels).
template <class F>
decltype(auto) with_semiring(Semiring s, F&& f) {
    switch (s) {
        case Semiring::plus_pair:
            return std::forward<F>(f)(PlusPair{});
        case Semiring::min_plus:
            return std::forward<F>(f)(MinPlus{});
        case Semiring::max_times:
            return std::forward<F>(f)(MaxTimes{});
        case Semiring::lor_land:
            return std::forward<F>(f)(LorLand{});
        case Semiring::plus_times:
            break;
    }
    return std::forward<F>(f)(PlusTimes{});
}

}  // namespace spk::detail
