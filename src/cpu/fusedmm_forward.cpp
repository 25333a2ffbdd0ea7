// cpu FusedMM forward: OpenMP over row chunks balanced by non-zeros, one pass over each row
// with the scores never stored (the first paper's Algorithm 3, a thread per row). Per entry, all
// heads are handled together so that Y_j and Z_j are read once, contiguously.
// The softmax is online (as in flash attention): a running max m and sum l per head, and the
// accumulator rescaled by exp(m_old - m_new) whenever the max grows. The rescale is a positive
// factor, so it serves the max aggregation as well as sum and mean.
// Without scores or softmax (GCN: s = a_ij, identity or scale edge, sum or mean), E = c A Z is
// an SpMM, and runs as one: its register-tile loop beats the per-row accumulator buffer here.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
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
          weights_(static_cast<std::size_t>(args.attention.data && o_.normalize == Normalize::softmax ? max_row_len * heads_ : 0)) {}

    void run(index_t i) {
        const auto& a = args_.a;
        const index_t begin = a.row_ptr[i], end = a.row_ptr[i + 1], dz = args_.dz, d = args_.d;
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
        const V* xi = o_.score == Score::value ? nullptr : args_.x.data + i * args_.x.ld;
        std::fill(acc_.begin(), acc_.end(), Acc(0));
        std::fill(m_.begin(), m_.end(), -std::numeric_limits<Acc>::infinity());
        std::fill(l_.begin(), l_.end(), Acc(0));
        for (index_t p = begin; p < end; ++p) {
            if (p + fused::kPrefetchDistance < a.nnz) {
                const index_t ahead = a.col_idx[p + fused::kPrefetchDistance];
                if (o_.score != Score::value) fused::prefetch_row(args_.y.data + ahead * args_.y.ld, args_.y.cols);
                fused::prefetch_row(args_.z.data + ahead * args_.z.ld, width_);
            }
            const I j = a.col_idx[p];
            const V* yj = o_.score == Score::value ? nullptr : args_.y.data + j * args_.y.ld;
            const V* zj = args_.z.data + j * args_.z.ld;
            for (index_t h = 0; h < heads_; ++h) {
                const Acc s = fused::score<Acc>(o_.score, xi, yj, a.values, p, h, d);
                const Acc w = edge_apply(o_.edge, s);
                Acc* acc = acc_.data() + h * dz;
                Acc weight = w;
                if (softmax) {
                    if (w > m_[h]) {
                        const Acc r = std::exp(m_[h] - w);
                        if (p != begin) fused::scale(acc, r, dz);
                        l_[h] *= r;
                        m_[h] = w;
                    }
                    weight = std::exp(w - m_[h]);
                    l_[h] += weight;
                    if (save) weights_[(p - begin) * heads_ + h] = w;
                } else if (save) {
                    args_.attention.data[p * args_.attention.ld + h] = store_as<V>(w);
                }
                if (!max_agg)
                    fused::axpy(weight, zj + h * dz, acc, dz);
                else if (p == begin)
                    fused::max_init(weight, zj + h * dz, acc, arg_.data() + h * dz, j, dz);
                else
                    fused::max_update(weight, zj + h * dz, acc, arg_.data() + h * dz, j, dz);
            }
        }
        const Acc mean = o_.aggregate == Aggregate::mean ? Acc(1) / static_cast<Acc>(end - begin) : Acc(1);
        for (index_t h = 0; h < heads_; ++h) {
            const Acc factor = softmax ? mean / l_[h] : mean;
            fused::store_row(acc_.data() + h * dz, factor, e + h * dz, dz);
            if (!softmax) continue;
            args_.row_max.data[i * args_.row_max.ld + h] = m_[h];
            args_.row_sum.data[i * args_.row_sum.ld + h] = l_[h];
            if (save)
                for (index_t p = begin; p < end; ++p)
                    args_.attention.data[p * args_.attention.ld + h] =
                        store_as<V>(std::exp(weights_[(p - begin) * heads_ + h] - m_[h]) / l_[h]);
        }
        if (max_agg) std::copy(arg_.begin(), arg_.end(), args_.argmax.data + i * args_.argmax.ld);
    }

private:
    const FusedForwardArgs<V, I>& args_;
    const FusedOptions& o_;
    index_t heads_, width_;
    std::vector<Acc> acc_;      // heads x dz: the row's running aggregate
    std::vector<I> arg_;        // heads x dz: running winners (max only)
    std::vector<Acc> m_, l_;    // per head: running max and sum (softmax only)
    std::vector<Acc> weights_;  // row length x heads: w kept until the row's final m, l (softmax + save_attention)
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
    if (args.attention.data && args.options.normalize == Normalize::softmax)
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
