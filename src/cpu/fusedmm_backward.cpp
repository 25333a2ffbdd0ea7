// cpu FusedMM backward, in two passes so that no two threads ever write the same output row:
//   1. over the rows of A (chunks balanced by non-zeros): recompute α from the saved row
//      statistics (or read the saved attention), dα_ij = c <dE_i, Z_j>, the softmax Jacobian
//      dw = α (dα - Σ_k α_ik dα_ik), ds = dw f'(s); write dX_i and dA, and keep per entry the
//      two numbers the column gradients need: ds and β = c α (nnz x heads each).
//   2. over the rows of Aᵀ (the columns j of A): gather dZ_j = Σ_i β_ij dE_i and dY_j from ds.
// The alternatives were atomics on dY and dZ (contended on power-law columns, and the sums would
// depend on timing) or a private dY, dZ per thread (cols x width memory per thread, then a
// reduction). The gather costs one transposed pattern per plan and 2 nnz x heads scratch, and
// gives the same bits for any number of threads.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/fusedmm_kernels.hpp"
#include "core/fusedmm_math.hpp"
#include "core/instantiate.hpp"
#include "cpu/fusedmm_vector.hpp"
#include "cpu/row_partition.hpp"

namespace spk::detail::cpu {

namespace {

template <class V, class Acc>
void fill_zero(DenseView<V> out, int threads) {
    if (out.empty()) return;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (index_t r = 0; r < out.rows; ++r)
        for (index_t k = 0; k < out.cols; ++k) out.data[r * out.ld + k] = store_as<V>(Acc(0));
}

// Pass 1: one row of A at a time.
template <class V, class I>
class BackwardRows {
public:
    using Acc = accum_t<V>;

    BackwardRows(const FusedBackwardArgs<V, I>& args, index_t max_row_len, Acc* ds, Acc* beta)
        : args_(args),
          o_(args.options),
          heads_(o_.heads),
          ds_(ds),
          beta_(beta),
          alpha_(static_cast<std::size_t>(max_row_len * heads_)),
          dalpha_(alpha_.size()),
          slope_(alpha_.size()),
          sigma_(static_cast<std::size_t>(heads_)),
          dx_(static_cast<std::size_t>(args.dx.empty() || o_.score == Score::value ? 0 : args.dx.cols)) {}

    void run(index_t i) {
        const auto& a = args_.a;
        const index_t begin = a.row_ptr[i], end = a.row_ptr[i + 1], d = args_.d, dz = args_.dz_width, H = heads_;
        const bool softmax = o_.normalize == Normalize::softmax, max_agg = o_.aggregate == Aggregate::max;
        const bool recompute = backward_recomputes_score(o_), uses_xy = o_.score != Score::value;
        const Acc c = o_.aggregate == Aggregate::mean && end > begin ? Acc(1) / static_cast<Acc>(end - begin) : Acc(1);
        const V* xi = uses_xy ? args_.x.data + i * args_.x.ld : nullptr;
        const V* dei = args_.de.data + i * args_.de.ld;
        const I* argi = max_agg ? args_.argmax.data + i * args_.argmax.ld : nullptr;

        // α, dα and f'(s) for every entry and head of the row.
        for (index_t p = begin; p < end; ++p) {
            if (p + fused::kPrefetchDistance < a.nnz) {
                const index_t ahead = a.col_idx[p + fused::kPrefetchDistance];
                if (uses_xy) fused::prefetch_row(args_.y.data + ahead * args_.y.ld, args_.y.cols);
                fused::prefetch_row(args_.z.data + ahead * args_.z.ld, args_.z.cols);
            }
            const I j = a.col_idx[p];
            const V* yj = uses_xy ? args_.y.data + j * args_.y.ld : nullptr;
            const V* zj = args_.z.data + j * args_.z.ld;
            for (index_t h = 0; h < H; ++h) {
                const std::size_t q = static_cast<std::size_t>((p - begin) * H + h);
                Acc s = 0, w = 0, alpha;
                if (recompute) {
                    s = fused::score<Acc>(o_.score, xi, yj, a.values, p, h, d);
                    w = edge_apply(o_.edge, s);
                }
                if (o_.save_attention)
                    alpha = load_as<Acc>(args_.attention.data[p * args_.attention.ld + h]);
                else if (softmax)
                    alpha = std::exp(w - args_.row_max.data[i * args_.row_max.ld + h]) / args_.row_sum.data[i * args_.row_sum.ld + h];
                else
                    alpha = w;
                if (!recompute) w = alpha;  // α = w without softmax; unused when f' is constant
                alpha_[q] = alpha;
                slope_[q] = edge_derivative(o_.edge, s, w);
                const Acc g = max_agg ? fused::masked_dot<Acc>(dei + h * dz, zj + h * dz, argi + h * dz, j, dz)
                                      : fused::dot<Acc>(dei + h * dz, zj + h * dz, dz);
                dalpha_[q] = c * g;
            }
        }
        std::fill(sigma_.begin(), sigma_.end(), Acc(0));
        if (softmax)
            for (index_t q = 0; q < (end - begin) * H; ++q) sigma_[static_cast<std::size_t>(q % H)] += alpha_[q] * dalpha_[q];

        std::fill(dx_.begin(), dx_.end(), Acc(0));
        for (index_t p = begin; p < end; ++p) {
            const I j = a.col_idx[p];
            const V* yj = uses_xy ? args_.y.data + j * args_.y.ld : nullptr;
            Acc da = 0;
            for (index_t h = 0; h < H; ++h) {
                const std::size_t q = static_cast<std::size_t>((p - begin) * H + h);
                const Acc dw = softmax ? alpha_[q] * (dalpha_[q] - sigma_[h]) : dalpha_[q];
                const Acc ds = dw * slope_[q];
                if (ds_) ds_[p * H + h] = ds;
                if (beta_) beta_[p * H + h] = c * alpha_[q];
                da += ds;
                if (dx_.empty()) continue;
                switch (o_.score) {
                    case Score::dot:
                        fused::axpy(ds, yj + h * d, dx_.data() + h * d, d);
                        break;
                    case Score::add:
                        dx_[static_cast<std::size_t>(h)] += ds;
                        break;
                    case Score::neg_sqdist:
                        fused::axpy_difference(Acc(-2) * ds, xi + h * d, yj + h * d, dx_.data() + h * d, d);
                        break;
                    case Score::value:
                        break;
                }
            }
            if (args_.da.data) args_.da.data[p * args_.da.ld] = store_as<V>(o_.score == Score::value ? da : Acc(0));
        }
        if (!dx_.empty()) fused::store_row(dx_.data(), Acc(1), args_.dx.data + i * args_.dx.ld, static_cast<index_t>(dx_.size()));
    }

private:
    const FusedBackwardArgs<V, I>& args_;
    const FusedOptions& o_;
    index_t heads_;
    Acc *ds_, *beta_;                          // nnz x heads, or null when dY (dZ) is not wanted
    std::vector<Acc> alpha_, dalpha_, slope_;  // row length x heads
    std::vector<Acc> sigma_;                   // heads: Σ_k α_ik dα_ik
    std::vector<Acc> dx_;                      // the row's dX_i
};

// Pass 2: one column j of A (a row of Aᵀ) at a time.
template <class V, class I>
class BackwardColumns {
public:
    using Acc = accum_t<V>;

    BackwardColumns(const FusedBackwardArgs<V, I>& args, const Acc* ds, const Acc* beta)
        : args_(args),
          o_(args.options),
          ds_(ds),
          beta_(beta),
          dz_(static_cast<std::size_t>(beta ? args.dz.cols : 0)),
          dy_(static_cast<std::size_t>(ds ? args.dy.cols : 0)) {}

    void run(index_t j) {
        const TransposedPatternView<I>& at = args_.at;
        const index_t d = args_.d, dz = args_.dz_width, H = o_.heads;
        const bool max_agg = o_.aggregate == Aggregate::max;
        const V* yj = ds_ ? args_.y.data + j * args_.y.ld : nullptr;
        std::fill(dz_.begin(), dz_.end(), Acc(0));
        std::fill(dy_.begin(), dy_.end(), Acc(0));
        const index_t nnz = args_.a.nnz;
        for (index_t t = at.col_ptr[j]; t < at.col_ptr[j + 1]; ++t) {
            if (t + fused::kPrefetchDistance < nnz) {
                const index_t ahead = at.row_idx[t + fused::kPrefetchDistance];
                const index_t ahead_p = at.entry[t + fused::kPrefetchDistance];
                if (beta_) {
                    fused::prefetch_row(args_.de.data + ahead * args_.de.ld, args_.de.cols);
                    fused::prefetch_row(beta_ + ahead_p * H, H);
                    if (max_agg) fused::prefetch_row(args_.argmax.data + ahead * args_.argmax.ld, args_.argmax.cols);
                }
                if (ds_) {
                    fused::prefetch_row(args_.x.data + ahead * args_.x.ld, args_.x.cols);
                    fused::prefetch_row(ds_ + ahead_p * H, H);
                }
            }
            const index_t i = at.row_idx[t], p = at.entry[t];
            const V* dei = args_.de.data + i * args_.de.ld;
            const V* xi = ds_ ? args_.x.data + i * args_.x.ld : nullptr;
            for (index_t h = 0; h < H; ++h) {
                if (beta_) {
                    const Acc beta = beta_[p * H + h];
                    if (max_agg)
                        fused::masked_axpy(beta, dei + h * dz, args_.argmax.data + i * args_.argmax.ld + h * dz, static_cast<I>(j),
                                           dz_.data() + h * dz, dz);
                    else
                        fused::axpy(beta, dei + h * dz, dz_.data() + h * dz, dz);
                }
                if (!ds_) continue;
                const Acc ds = ds_[p * H + h];
                switch (o_.score) {
                    case Score::dot:
                        fused::axpy(ds, xi + h * d, dy_.data() + h * d, d);
                        break;
                    case Score::add:
                        dy_[static_cast<std::size_t>(h)] += ds;
                        break;
                    case Score::neg_sqdist:
                        fused::axpy_difference(Acc(2) * ds, xi + h * d, yj + h * d, dy_.data() + h * d, d);
                        break;
                    case Score::value:
                        break;
                }
            }
        }
        if (beta_) fused::store_row(dz_.data(), Acc(1), args_.dz.data + j * args_.dz.ld, static_cast<index_t>(dz_.size()));
        if (ds_) fused::store_row(dy_.data(), Acc(1), args_.dy.data + j * args_.dy.ld, static_cast<index_t>(dy_.size()));
    }

private:
    const FusedBackwardArgs<V, I>& args_;
    const FusedOptions& o_;
    const Acc *ds_, *beta_;
    std::vector<Acc> dz_, dy_;  // the column's dZ_j and dY_j
};

}  // namespace

template <class V, class I>
void fusedmm_backward(const Executor& exec, const FusedBackwardArgs<V, I>& args) {
    using Acc = accum_t<V>;
    const auto& a = args.a;
    const double work = static_cast<double>(a.nnz) * static_cast<double>(args.options.heads * (args.d + args.dz_width)) +
                        static_cast<double>(a.rows + a.cols);
    const int threads = fused::threads_for(work, exec.threads());
    const bool uses_xy = args.options.score != Score::value;
    if (!uses_xy) {  // X and Y do not enter E
        fill_zero<V, Acc>(args.dx, threads);
        fill_zero<V, Acc>(args.dy, threads);
    }
    const bool want_dy = uses_xy && !args.dy.empty(), want_dz = !args.dz.empty();
    const std::size_t per_entry = static_cast<std::size_t>(a.nnz * args.options.heads);
    // Uninitialised: pass 1 writes every element before pass 2 reads it.
    const auto ds = want_dy ? std::make_unique_for_overwrite<Acc[]>(per_entry) : nullptr;
    const auto beta = want_dz ? std::make_unique_for_overwrite<Acc[]>(per_entry) : nullptr;

    index_t max_row_len = 0;
    for (index_t i = 0; i < a.rows; ++i) max_row_len = std::max<index_t>(max_row_len, a.row_ptr[i + 1] - a.row_ptr[i]);
    {
        const auto bounds = balanced_row_splits(a.row_ptr, a.rows, chunk_count(a.rows, threads));
        const index_t chunks = static_cast<index_t>(bounds.size()) - 1;
        std::vector<BackwardRows<V, I>> workers;  // scratch allocated outside the parallel region
        workers.reserve(static_cast<std::size_t>(threads));
        for (int t = 0; t < threads; ++t) workers.emplace_back(args, max_row_len, ds.get(), beta.get());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (index_t c = 0; c < chunks; ++c) {
            BackwardRows<V, I>& rows = workers[static_cast<std::size_t>(omp_get_thread_num())];
            for (index_t i = bounds[c]; i < bounds[c + 1]; ++i) rows.run(i);
        }
    }
    if (!want_dy && !want_dz) return;
    const auto bounds = balanced_row_splits(args.at.col_ptr, a.cols, chunk_count(a.cols, threads));
    const index_t chunks = static_cast<index_t>(bounds.size()) - 1;
    std::vector<BackwardColumns<V, I>> workers;
    workers.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) workers.emplace_back(args, ds.get(), beta.get());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (index_t c = 0; c < chunks; ++c) {
        BackwardColumns<V, I>& cols = workers[static_cast<std::size_t>(omp_get_thread_num())];
        for (index_t j = bounds[c]; j < bounds[c + 1]; ++j) cols.run(j);
    }
}

#define SPK_INSTANTIATE(V, I) template void fusedmm_backward(const Executor&, const FusedBackwardArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cpu
