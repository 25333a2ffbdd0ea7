#pragma once
// The scalar rules of FusedMM shared by the host backends: the edge function, its derivative,
// and what the backward pass must recompute. One definition, so the backends cannot disagree.
#include <cmath>

#include "spk/fusedmm.hpp"

// The edge rules also run in CUDA kernels (src/cuda/fusedmm/): callable on both sides there.
#if defined(__CUDACC__)
#define SPK_HOST_DEVICE __host__ __device__
#else
#define SPK_HOST_DEVICE
#endif

namespace spk::detail {

// w = f(s).
template <class T>
SPK_HOST_DEVICE inline T edge_apply(Edge e, T s) noexcept {
    switch (e.kind) {
        case Edge::Kind::identity:
            return s;
        case Edge::Kind::sigmoid:
            return T(1) / (T(1) + std::exp(-s));  // exp overflow gives 0, not NaN
        case Edge::Kind::exp:
            return std::exp(s);
        case Edge::Kind::leaky_relu:
            return s > T(0) ? s : T(e.param) * s;
        case Edge::Kind::tanh:
            return std::tanh(s);
        case Edge::Kind::scale:
            return T(e.param) * s;
    }
    return s;
}

// f'(s), given s and w = f(s). Only leaky_relu reads s; the others need w alone (or nothing).
template <class T>
SPK_HOST_DEVICE inline T edge_derivative(Edge e, T s, T w) noexcept {
    switch (e.kind) {
        case Edge::Kind::identity:
            return T(1);
        case Edge::Kind::sigmoid:
            return w * (T(1) - w);
        case Edge::Kind::exp:
            return w;
        case Edge::Kind::leaky_relu:
            return s > T(0) ? T(1) : T(e.param);
        case Edge::Kind::tanh:
            return T(1) - w * w;
        case Edge::Kind::scale:
            return T(e.param);
    }
    return T(1);
}

inline bool edge_derivative_is_constant(Edge e) noexcept { return e.kind == Edge::Kind::identity || e.kind == Edge::Kind::scale; }

// With saved attention the backward pass takes α from it and skips the score, except where
// f'(s) needs more than α: leaky_relu reads the sign of s (α cannot tell it when the slope is
// negative), and under softmax α no longer equals w.
inline bool backward_recomputes_score(const FusedOptions& o) noexcept {
    if (!o.save_attention) return true;
    if (edge_derivative_is_constant(o.edge)) return false;
    return o.normalize == Normalize::softmax || o.edge.kind == Edge::Kind::leaky_relu;
}

}  // namespace spk::detail
