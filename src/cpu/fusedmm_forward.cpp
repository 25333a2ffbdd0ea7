// cpu FusedMM forward: OpenMP over row chunks balanced by non-zeros, a thread a row (the first
// paper's Algorithm 3), no array of nnz scores. Per entry, all heads are handled together so that
// Y_j and Z_j are read once, contiguously. Without softmax each row is one pass. Under softmax a
// row's weights go to a row buffer (the longest row times the heads, a thread), then each head's
// max m, then exp(w - m) in place with the sum l, and then they weight the Z_j: one exp an entry
// and no rescaling, where an online softmax (as in flash attention, and the CUDA kernels, which
// keep no row buffer) takes a second exp and rescales the accumulator each time the max grows.
// With the scores' AVX2 dot and, for f32, the Z rows summed in register tiles (fusedmm_vector.hpp),
// dot attention on one thread of the 2-core dev machine (AMD EPYC, other tenants' load moving
// single runs by 10-40%): Laplace 60^3 at k = 32 44 -> 24 ms, at k = 128 100 -> 71 ms; bcsstk33
// 15 -> 7 and 31 -> 14 ms (bench/results/cpu.md). Max aggregation under softmax compares
// α_ij Z_j with α = exp(w - m) / l for the row's final m and l, as the reference does (a running
// max would compare an early winner rescaled by exp(m_old - m_new) against values computed
// afresh; the two round differently, and once m grows far enough both underflow to +-0, where the
// reference's "first in the row wins" must decide, not the order of the rescales).
// Without scores or softmax (GCN: s = a_ij, identity or scale edge, sum or mean), E = c A Z is
// an SpMM, and runs as one: its register-tile loop beats the per-row accumulator buffer here.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/fusedmm_kernels.hpp"
#include "core/fusedmm_math.hpp"
#include "core/instantiate.hpp"
#include "core/spmm_kernels.hpp"
#include "cpu/fusedmm_vector.hpp"
#include "cpu/row_partition.hpp"

namespace spk::detail::cpu {

namespace {

template <class V, class I>
class ForwardRows {
public:
    using Acc = accum_t<V>;

    ForwardRows(const FusedForwardArgs<V, I>& args, index_t max_row_len)
        : args_(args),
          o_(args.options),
          heads_(o_.heads),
          width_(heads_ * args.dz),
          acc_(static_cast<std::size_t>(width_)),
          arg_(static_cast<std::size_t>(o_.aggregate == Aggregate::max ? width_ : 0)),
          m_(static_cast<std::size_t>(heads_)),
          l_(static_cast<std::size_t>(heads_)),
          weights_(static_cast<std::size_t>(keeps_row_weights(args) ? max_row_len * heads_ : 0)) {}

    // Whether a row's weights are kept until its final m and l: under softmax (a row buffer, at
    // most the longest row times the heads, a thread).
    static bool keeps_row_weights(const FusedForwardArgs<V, I>& args) { return args.options.normalize == Normalize::softmax; }

    void run(index_t i) {
        const auto& a = args_.a;
        const index_t begin = a.row_ptr[i], end = a.row_ptr[i + 1], dz = args_.dz;
        const bool softmax = o_.normalize == Normalize::softmax, max_agg = o_.aggregate == Aggregate::max;
        const bool save = args_.attention.data != nullptr;
        V* e = args_.e.data + i * args_.e.ld;
        if (begin == end) {  // empty row: E_i = 0, no winner
            for (index_t k = 0; k < width_; ++k) e[k] = store_as<V>(Acc(0));
            if (max_agg)
                for (index_t k = 0; k < width_; ++k) args_.argmax.data[i * args_.argmax.ld + k] = I(-1);
            if (softmax)
                for (index_t h = 0; h < heads_; ++h) {
                    args_.row_max.data[i * args_.row_max.ld + h] = -std::numeric_limits<Acc>::infinity();
                    args_.row_sum.data[i * args_.row_sum.ld + h] = Acc(0);
                }
            return;
        }
        std::fill(m_.begin(), m_.end(), -std::numeric_limits<Acc>::infinity());
        std::fill(l_.begin(), l_.end(), Acc(0));
        if (softmax && max_agg)
            max_of_final_weights(i, begin, end);
        else if (softmax)
            softmax_pass(i, begin, end);
        else
            plain_pass(i, begin, end);
        const Acc mean = o_.aggregate == Aggregate::mean ? Acc(1) / static_cast<Acc>(end - begin) : Acc(1);
        for (index_t h = 0; h < heads_; ++h) {
            // Under softmax the max aggregation already holds α Z; the others hold exp(w - m) Z.
            const Acc factor = softmax && !max_agg ? mean / l_[h] : mean;
            fused::store_row(acc_.data() + h * dz, factor, e + h * dz, dz);
            if (!softmax) continue;
            args_.row_max.data[i * args_.row_max.ld + h] = m_[h];
            args_.row_sum.data[i * args_.row_sum.ld + h] = l_[h];
            if (save && !max_agg)  // softmax_pass left exp(w - m) in the row buffer
                for (index_t p = begin; p < end; ++p)
                    args_.attention.data[p * args_.attention.ld + h] = store_as<V>(weights_[(p - begin) * heads_ + h] / l_[h]);
        }
        if (max_agg) std::copy(arg_.begin(), arg_.end(), args_.argmax.data + i * args_.argmax.ld);
    }

private:
    // w_ij = edge(s_ij) of head h for entry p (xi: X_i, null for the value score; yj: Y_j, likewise).
    Acc weight(const V* xi, const V* yj, index_t p, index_t h) const {
        return edge_apply(o_.edge, fused::score<Acc>(o_.score, xi, yj, args_.a.values, p, h, args_.d));
    }

    const V* x_row(index_t i) const { return o_.score == Score::value ? nullptr : args_.x.data + i * args_.x.ld; }
    const V* y_row(I j) const { return o_.score == Score::value ? nullptr : args_.y.data + j * args_.y.ld; }

    // The row's weights w (X_i and the Y_j) into the row buffer and each head's max m, then
    // exp(w - m) in place of w with each head's sum l: the softmax's numerators, as the reference
    // computes them (one exp an entry; an online softmax took a second one, and a rescale of the
    // accumulator, each time the max grew).
    void softmax_numerators(index_t i, index_t begin, index_t end) {
        const auto& a = args_.a;
        const V* xi = x_row(i);
        Acc* w = weights_.data();
        for (index_t p = begin; p < end; ++p) {
            if (o_.score != Score::value && p + fused::kPrefetchDistance < a.nnz)
                fused::prefetch_row(args_.y.data + a.col_idx[p + fused::kPrefetchDistance] * args_.y.ld, args_.y.cols);
            const V* yj = y_row(a.col_idx[p]);
            for (index_t h = 0; h < heads_; ++h) w[(p - begin) * heads_ + h] = weight(xi, yj, p, h);
        }
        // The maxima after the weights, in a loop of their own: kept in m_ through the loop above,
        // each entry waited on a store and a load of it (one head, soc-Slashdot0902 at k = 32:
        // about 3 of this pass's 17 ms). NaN weights never win (as std::max).
        const index_t count = (end - begin) * heads_;
        if (heads_ == 1) {
            Acc top = m_[0];
            for (index_t q = 0; q < count; ++q) top = w[q] > top ? w[q] : top;
            m_[0] = top;
        } else {
            for (index_t q = 0; q < count; ++q)
                if (w[q] > m_[q % heads_]) m_[q % heads_] = w[q];
        }
        for (index_t q = 0; q < count; ++q) {
            w[q] = std::exp(w[q] - m_[q % heads_]);
            l_[q % heads_] += w[q];
        }
    }

    // Sum and mean under softmax: the numerators, then the Z_j weighted by them.
    void softmax_pass(index_t i, index_t begin, index_t end) {
        const auto& a = args_.a;
        const index_t dz = args_.dz;
        softmax_numerators(i, begin, end);
        const Acc* w = weights_.data();
        if constexpr (std::is_same_v<V, float>) {
            for (index_t p = begin; p < std::min(end, begin + fused::kPrefetchDistance); ++p)
                fused::prefetch_row(args_.z.data + a.col_idx[p] * args_.z.ld, width_);
            for (index_t h = 0; h < heads_; ++h)
                fused::weighted_sum(args_.z.data + h * dz, args_.z.ld, a.col_idx + begin, w + h, heads_, end - begin, acc_.data() + h * dz, dz);
            return;
        }
        std::fill(acc_.begin(), acc_.end(), Acc(0));
        for (index_t p = begin; p < end; ++p) {
            if (p + fused::kPrefetchDistance < a.nnz)
                fused::prefetch_row(args_.z.data + a.col_idx[p + fused::kPrefetchDistance] * args_.z.ld, width_);
            const V* zj = args_.z.data + a.col_idx[p] * args_.z.ld;
            for (index_t h = 0; h < heads_; ++h) fused::axpy(w[(p - begin) * heads_ + h], zj + h * dz, acc_.data() + h * dz, dz);
        }
    }

    // Sum, mean and max without softmax: one pass, the weights used as they come.
    void plain_pass(index_t i, index_t begin, index_t end) {
        const auto& a = args_.a;
        const index_t dz = args_.dz;
        const bool max_agg = o_.aggregate == Aggregate::max;
        const bool save = args_.attention.data != nullptr;
        const V* xi = x_row(i);
        std::fill(acc_.begin(), acc_.end(), Acc(0));
        for (index_t p = begin; p < end; ++p) {
            if (p + fused::kPrefetchDistance < a.nnz) {
                const index_t ahead = a.col_idx[p + fused::kPrefetchDistance];
                if (o_.score != Score::value) fused::prefetch_row(args_.y.data + ahead * args_.y.ld, args_.y.cols);
                fused::prefetch_row(args_.z.data + ahead * args_.z.ld, width_);
            }
            const I j = a.col_idx[p];
            const V* yj = y_row(j);
            const V* zj = args_.z.data + j * args_.z.ld;
            for (index_t h = 0; h < heads_; ++h) {
                const Acc w = weight(xi, yj, p, h);
                Acc* acc = acc_.data() + h * dz;
                if (save) args_.attention.data[p * args_.attention.ld + h] = store_as<V>(w);
                if (!max_agg)
                    fused::axpy(w, zj + h * dz, acc, dz);
                else if (p == begin)
                    fused::max_init(w, zj + h * dz, acc, arg_.data() + h * dz, j, dz);
                else
                    fused::max_update(w, zj + h * dz, acc, arg_.data() + h * dz, j, dz);
            }
        }
    }

    // Max aggregation under softmax: the numerators first (X and Y only), then α = exp(w - m) / l
    // as the reference computes it, compared in row order (the first maximum wins ties, a NaN takes
    // over and stays).
    void max_of_final_weights(index_t i, index_t begin, index_t end) {
        const auto& a = args_.a;
        const index_t dz = args_.dz;
        softmax_numerators(i, begin, end);
        const bool save = args_.attention.data != nullptr;
        for (index_t p = begin; p < end; ++p) {
            if (p + fused::kPrefetchDistance < a.nnz)
                fused::prefetch_row(args_.z.data + a.col_idx[p + fused::kPrefetchDistance] * args_.z.ld, width_);
            const I j = a.col_idx[p];
            const V* zj = args_.z.data + j * args_.z.ld;
            for (index_t h = 0; h < heads_; ++h) {
                const Acc alpha = weights_[(p - begin) * heads_ + h] / l_[h];
                if (save) args_.attention.data[p * args_.attention.ld + h] = store_as<V>(alpha);
                if (p == begin)
                    fused::max_init(alpha, zj + h * dz, acc_.data() + h * dz, arg_.data() + h * dz, j, dz);
                else
                    fused::max_update(alpha, zj + h * dz, acc_.data() + h * dz, arg_.data() + h * dz, j, dz);
            }
        }
    }

    const FusedForwardArgs<V, I>& args_;
    const FusedOptions& o_;
    index_t heads_, width_;
    std::vector<Acc> acc_;      // heads x dz: the row's running aggregate
    std::vector<I> arg_;        // heads x dz: running winners (max only)
    std::vector<Acc> m_, l_;    // per head: running max and sum (softmax only)
    std::vector<Acc> weights_;  // row length x heads: w, then exp(w - m), under softmax (see keeps_row_weights)
};

// E = c A Z (c: the scale edge's factor, else 1): the weights are A's values, the same for every
// head, so the heads' outputs are one SpMM over all of Z's columns.
bool is_spmm(const FusedOptions& o) {
    return o.score == Score::value && o.normalize == Normalize::none && o.aggregate != Aggregate::max &&
           (o.edge.kind == Edge::Kind::identity || o.edge.kind == Edge::Kind::scale);
}

template <class V, class I>
void forward_as_spmm(const Executor& exec, const FusedForwardArgs<V, I>& args) {
    const FusedOptions& o = args.options;
    const double c = o.edge.kind == Edge::Kind::scale ? static_cast<double>(o.edge.param) : 1.0;
    const SpmmArgs<V, I> spmm_args{args.a, args.z, args.e, DenseView<I>{}, o.aggregate == Aggregate::mean ? Reduce::mean : Reduce::sum,
                                   c,      0.0};
    spmm(exec, spmm_args);
    if (args.attention.data == nullptr) return;
    using Acc = accum_t<V>;
    const auto& a = args.a;
    const int threads = fused::threads_for(static_cast<double>(a.nnz) * o.heads, exec.threads());
#pragma omp parallel for schedule(static) num_threads(threads)
    for (index_t p = 0; p < a.nnz; ++p) {
        const V w = store_as<V>(edge_apply(o.edge, load_as<Acc>(a.values[p])));
        for (index_t h = 0; h < o.heads; ++h) args.attention.data[p * args.attention.ld + h] = w;
    }
}

}  // namespace

template <class V, class I>
void fusedmm_forward(const Executor& exec, const FusedForwardArgs<V, I>& args) {
    if (is_spmm(args.options)) {
        forward_as_spmm(exec, args);
        return;
    }
    const auto& a = args.a;
    const double work =
        static_cast<double>(a.nnz) * static_cast<double>(args.options.heads * (args.d + args.dz)) + static_cast<double>(a.rows);
    const int threads = fused::threads_for(work, exec.threads());
    const auto bounds = balanced_row_splits(a.row_ptr, a.rows, chunk_count(a.rows, threads));
    const index_t chunks = static_cast<index_t>(bounds.size()) - 1;
    index_t max_row_len = 0;
    if (ForwardRows<V, I>::keeps_row_weights(args))
        for (index_t i = 0; i < a.rows; ++i) max_row_len = std::max<index_t>(max_row_len, a.row_ptr[i + 1] - a.row_ptr[i]);
    // Scratch is allocated before the parallel region: an allocation failure throws here, not
    // inside OpenMP where it would terminate.
    std::vector<ForwardRows<V, I>> workers;
    workers.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) workers.emplace_back(args, max_row_len);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (index_t c = 0; c < chunks; ++c) {
        ForwardRows<V, I>& rows = workers[static_cast<std::size_t>(omp_get_thread_num())];
        for (index_t i = bounds[c]; i < bounds[c + 1]; ++i) rows.run(i);
    }
}

#define SPK_INSTANTIATE(V, I) template void fusedmm_forward(const Executor&, const FusedForwardArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
