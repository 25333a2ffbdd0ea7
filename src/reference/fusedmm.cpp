// Reference FusedMM: one row and head at a time, double accumulation, the softmax in two plain
// passes (max, then sum), column gradients scattered directly. The oracle for every backend.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/fusedmm_kernels.hpp"
#include "core/fusedmm_math.hpp"
#include "core/instantiate.hpp"

namespace spk::detail::reference {

namespace {

template <class V>
double get(const DenseView<const V>& m, index_t i, index_t j) {
    return value_cast<double>(m(i, j));
}

// s_ij for entry p = (i, j) and head h.
template <class V, class I>
double score(const FusedOptions& o, CsrView<const V, I> a, DenseView<const V> x, DenseView<const V> y, index_t d, index_t i, index_t j,
             index_t p, index_t h) {
    double s = 0.0;
    switch (o.score) {
        case Score::dot:
            for (index_t k = h * d; k < (h + 1) * d; ++k) s += get(x, i, k) * get(y, j, k);
            break;
        case Score::add:
            s = get(x, i, h) + get(y, j, h);
            break;
        case Score::neg_sqdist:
            for (index_t k = h * d; k < (h + 1) * d; ++k) s -= (get(x, i, k) - get(y, j, k)) * (get(x, i, k) - get(y, j, k));
            break;
        case Score::value:
            s = value_cast<double>(a.values[p]);
            break;
    }
    return s;
}

}  // namespace

template <class V, class I>
void fusedmm_forward(const Executor&, const FusedForwardArgs<V, I>& args) {
    const auto& a = args.a;
    const FusedOptions& o = args.options;
    const index_t dz = args.dz;
    constexpr double inf = std::numeric_limits<double>::infinity();
    std::vector<double> alpha, acc(static_cast<std::size_t>(dz));
    std::vector<index_t> arg(static_cast<std::size_t>(dz));
    for (index_t i = 0; i < a.rows; ++i) {
        const index_t begin = a.row_ptr[i], len = a.row_ptr[i + 1] - begin;
        for (index_t h = 0; h < o.heads; ++h) {
            alpha.assign(static_cast<std::size_t>(len), 0.0);
            for (index_t q = 0; q < len; ++q)
                alpha[q] =
                    edge_apply(o.edge, score(o, a, args.x, args.y, args.d, i, static_cast<index_t>(a.col_idx[begin + q]), begin + q, h));
            if (o.normalize == Normalize::softmax) {
                double m = -inf, l = 0.0;
                for (double w : alpha) m = std::max(m, w);
                // The sum is taken against the max as stored, so that the saved pair stays
                // consistent: exp(w - row_max) / row_sum is α even when the statistic type
                // (float for f32) rounds the max.
                m = static_cast<double>(static_cast<fused_stat_t<V>>(m));
                for (double w : alpha) l += std::exp(w - m);
                for (double& w : alpha) w = std::exp(w - m) / l;
                args.row_max(i, h) = static_cast<fused_stat_t<V>>(m);
                args.row_sum(i, h) = static_cast<fused_stat_t<V>>(l);
            }
            if (args.attention.data)
                for (index_t q = 0; q < len; ++q) args.attention(begin + q, h) = value_cast<V>(alpha[q]);

            std::fill(acc.begin(), acc.end(), 0.0);
            std::fill(arg.begin(), arg.end(), index_t{-1});
            for (index_t q = 0; q < len; ++q) {
                const index_t j = a.col_idx[begin + q];
                for (index_t k = 0; k < dz; ++k) {
                    const double v = alpha[q] * get(args.z, j, h * dz + k);
                    if (o.aggregate != Aggregate::max) acc[k] += v;
                    // The first maximum wins ties; a NaN takes over and stays.
                    else if (arg[k] < 0 || (v > acc[k]) || (std::isnan(v) && !std::isnan(acc[k]))) {
                        acc[k] = v;
                        arg[k] = j;
                    }
                }
            }
            for (index_t k = 0; k < dz; ++k) {
                double r = len == 0 ? 0.0 : acc[k];
                if (o.aggregate == Aggregate::mean && len > 0) r /= static_cast<double>(len);
                args.e(i, h * dz + k) = value_cast<V>(r);
                if (o.aggregate == Aggregate::max) args.argmax(i, h * dz + k) = static_cast<I>(arg[k]);
            }
        }
    }
}

template <class V, class I>
void fusedmm_backward(const Executor&, const FusedBackwardArgs<V, I>& args) {
    const auto& a = args.a;
    const FusedOptions& o = args.options;
    const index_t d = args.d, dz = args.dz_width;
    const bool softmax = o.normalize == Normalize::softmax, use_saved = o.save_attention;
    const bool recompute = backward_recomputes_score(o);
    const auto& x = args.x;
    const auto& y = args.y;
    // Gradients accumulate in double, row-major, and are written once at the end.
    std::vector<double> dx(static_cast<std::size_t>(x.rows * x.cols)), dy(static_cast<std::size_t>(y.rows * y.cols));
    std::vector<double> dzv(static_cast<std::size_t>(args.z.rows * args.z.cols)), da(static_cast<std::size_t>(a.nnz));
    std::vector<double> alpha, dalpha, slope;
    for (index_t i = 0; i < a.rows; ++i) {
        const index_t begin = a.row_ptr[i], len = a.row_ptr[i + 1] - begin;
        const double c = o.aggregate == Aggregate::mean && len > 0 ? 1.0 / static_cast<double>(len) : 1.0;
        for (index_t h = 0; h < o.heads; ++h) {
            alpha.assign(static_cast<std::size_t>(len), 0.0);
            dalpha.assign(static_cast<std::size_t>(len), 0.0);
            slope.assign(static_cast<std::size_t>(len), 0.0);
            // α, dα = c <dE_i, Z_j> (max: over the features j won) and f'(s) for every entry.
            for (index_t q = 0; q < len; ++q) {
                const index_t p = begin + q, j = a.col_idx[p];
                double s = 0.0, w = 0.0;
                if (recompute) {
                    s = score(o, a, x, y, d, i, j, p, h);
                    w = edge_apply(o.edge, s);
                }
                if (use_saved)
                    alpha[q] = value_cast<double>(args.attention(p, h));
                else if (softmax)
                    alpha[q] = std::exp(w - static_cast<double>(args.row_max(i, h))) / static_cast<double>(args.row_sum(i, h));
                else
                    alpha[q] = w;
                if (!recompute) w = alpha[q];  // α = w without softmax; unused when f' is constant
                slope[q] = edge_derivative(o.edge, s, w);
                double g = 0.0;
                for (index_t k = h * dz; k < (h + 1) * dz; ++k)
                    if (o.aggregate != Aggregate::max || static_cast<index_t>(args.argmax(i, k)) == j)
                        g += get(args.de, i, k) * get(args.z, j, k);
                dalpha[q] = c * g;
            }
            double sigma = 0.0;  // Σ_k α_ik dα_ik, the softmax Jacobian's shared term
            if (softmax)
                for (index_t q = 0; q < len; ++q) sigma += alpha[q] * dalpha[q];
            for (index_t q = 0; q < len; ++q) {
                const index_t p = begin + q, j = a.col_idx[p];
                for (index_t k = h * dz; k < (h + 1) * dz; ++k)
                    if (o.aggregate != Aggregate::max || static_cast<index_t>(args.argmax(i, k)) == j)
                        dzv[j * args.z.cols + k] += c * alpha[q] * get(args.de, i, k);
                const double dw = softmax ? alpha[q] * (dalpha[q] - sigma) : dalpha[q];
                const double ds = dw * slope[q];
                switch (o.score) {
                    case Score::dot:
                        for (index_t k = h * d; k < (h + 1) * d; ++k) {
                            dx[i * x.cols + k] += ds * get(y, j, k);
                            dy[j * y.cols + k] += ds * get(x, i, k);
                        }
                        break;
                    case Score::add:
                        dx[i * x.cols + h] += ds;
                        dy[j * y.cols + h] += ds;
                        break;
                    case Score::neg_sqdist:
                        for (index_t k = h * d; k < (h + 1) * d; ++k) {
                            const double diff = get(x, i, k) - get(y, j, k);
                            dx[i * x.cols + k] -= 2.0 * ds * diff;
                            dy[j * y.cols + k] += 2.0 * ds * diff;
                        }
                        break;
                    case Score::value:
                        da[p] += ds;
                        break;
                }
            }
        }
    }
    const auto store = [](DenseView<V> out, const std::vector<double>& v) {
        if (out.empty()) return;
        for (index_t r = 0; r < out.rows; ++r)
            for (index_t k = 0; k < out.cols; ++k) out(r, k) = value_cast<V>(v[r * out.cols + k]);
    };
    store(args.dx, dx);
    store(args.dy, dy);
    store(args.dz, dzv);
    store(args.da, da);
}

#define SPK_INSTANTIATE(V, I)                                                      \
    template void fusedmm_forward(const Executor&, const FusedForwardArgs<V, I>&); \
    template void fusedmm_backward(const Executor&, const FusedBackwardArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::reference
