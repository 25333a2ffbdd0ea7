// FusedMM front end: validate the options and shapes, plan, dispatch to a backend.
#include "spk/fusedmm.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

#include "core/check.hpp"
#include "core/fused_row_team.hpp"
#include "core/fusedmm_kernels.hpp"
#include "core/fusedmm_stage.hpp"
#include "core/instantiate.hpp"
#include "spk/spmm.hpp"

namespace spk {

std::string_view to_string(Score s) noexcept {
    switch (s) {
        case Score::dot:
            return "dot";
        case Score::add:
            return "add";
        case Score::neg_sqdist:
            return "neg_sqdist";
        case Score::value:
            return "value";
    }
    return "?";
}

std::string_view to_string(Normalize n) noexcept {
    switch (n) {
        case Normalize::none:
            return "none";
        case Normalize::softmax:
            return "softmax";
    }
    return "?";
}

std::string_view to_string(Aggregate a) noexcept {
    switch (a) {
        case Aggregate::sum:
            return "sum";
        case Aggregate::mean:
            return "mean";
        case Aggregate::max:
            return "max";
    }
    return "?";
}

std::string_view to_string(Edge::Kind k) noexcept {
    switch (k) {
        case Edge::Kind::identity:
            return "identity";
        case Edge::Kind::sigmoid:
            return "sigmoid";
        case Edge::Kind::exp:
            return "exp";
        case Edge::Kind::tanh:
            return "tanh";
        case Edge::Kind::leaky_relu:
            return "leaky_relu";
        case Edge::Kind::scale:
            return "scale";
    }
    return "?";
}

// "name" or "name(param)", param in the shortest text that reads back as it. std::to_chars rather
// than an ostream: no locale, which matters inside the Python extension, where a second copy of
// the C++ runtime's locale machinery has crashed on the GPU machine's image.
std::string to_string(Edge e) {
    std::string text(to_string(e.kind));
    if (!Edge::takes_param(e.kind)) return text;
    char digits[32];
    const auto end = std::to_chars(digits, digits + sizeof digits, e.param).ptr;
    return text.append("(").append(digits, end).append(")");
}

namespace {

void check_options(const FusedOptions& o) {
    if (o.heads < 1) invalid_argument("FusedOptions.heads must be >= 1, got " + std::to_string(o.heads));
    if (to_string(o.score) == "?") invalid_argument("FusedOptions.score: unknown value " + std::to_string(static_cast<int>(o.score)));
    if (to_string(o.normalize) == "?")
        invalid_argument("FusedOptions.normalize: unknown value " + std::to_string(static_cast<int>(o.normalize)));
    if (to_string(o.aggregate) == "?")
        invalid_argument("FusedOptions.aggregate: unknown value " + std::to_string(static_cast<int>(o.aggregate)));
    if (to_string(o.edge) == "?") invalid_argument("FusedOptions.edge: unknown kind " + std::to_string(static_cast<int>(o.edge.kind)));
    if (!std::isfinite(o.edge.param)) invalid_argument("FusedOptions.edge: parameter of " + to_string(o.edge) + " must be finite");
    detail::cuda::fused_team::parse_forward_config(o.config);
}

// Columns `cols` of argument `name` must split into `heads` equal blocks; returns the block width.
index_t per_head(index_t cols, int heads, std::string_view name) {
    if (cols % heads != 0)
        invalid_argument(std::string(name) + ": " + std::to_string(cols) + " columns do not split into " + std::to_string(heads) +
                         " heads");
    return cols / heads;
}

struct Widths {
    index_t d, dz;
};

// Checks X, Y, Z against A and the options; returns the widths per head.
template <class V, class I>
Widths check_inputs(const Executor& exec, CsrView<const V, I> a, const FusedOptions& o, DenseView<const V> x, DenseView<const V> y,
                    DenseView<const V> z) {
    detail::check_dense(x, exec, "X");
    detail::check_dense(y, exec, "Y");
    detail::check_dense(z, exec, "Z");
    if (z.rows != a.cols)
        shape_mismatch("Z: shape " + detail::shape_string(z.rows, z.cols) + ", expected " + std::to_string(a.cols) + " rows (cols of A)");
    Widths w{0, per_head(z.cols, o.heads, "Z")};
    switch (o.score) {
        case Score::dot:
        case Score::neg_sqdist:
            if (x.rows != a.rows)
                shape_mismatch("X: shape " + detail::shape_string(x.rows, x.cols) + ", expected " + std::to_string(a.rows) +
                               " rows (rows of A)");
            w.d = per_head(x.cols, o.heads, "X");
            detail::check_shape(y, a.cols, x.cols, "Y");
            break;
        case Score::add:
            detail::check_shape(x, a.rows, o.heads, "X");
            detail::check_shape(y, a.cols, o.heads, "Y");
            w.d = 1;
            break;
        case Score::value:
            break;  // X and Y unused
    }
    return w;
}

// A saved array: the kernels index it as row-major and tight.
template <class T>
void check_saved(DenseView<T> d, const Executor& exec, index_t rows, index_t cols, std::string_view name) {
    detail::check_dense(d, exec, name);
    detail::check_shape(d, rows, cols, name);
    if (rows > 0 && cols > 0 && (d.layout != Layout::row_major || d.ld != cols))
        invalid_argument(std::string(name) + ": must be row-major with ld = cols (" + std::to_string(cols) + "), got " +
                         (d.layout == Layout::row_major ? "ld " + std::to_string(d.ld) : std::string("column-major")));
}

// The saved arrays the options call for.
template <class V, class I, bool Writable>
void check_saved(const FusedSavedViews<V, I, Writable>& s, const Executor& exec, const FusedOptions& o, index_t rows, index_t nnz,
                 index_t z_cols) {
    if (o.normalize == Normalize::softmax) {
        check_saved(s.row_max, exec, rows, o.heads, "saved.row_max");
        check_saved(s.row_sum, exec, rows, o.heads, "saved.row_sum");
    }
    if (o.aggregate == Aggregate::max) check_saved(s.argmax, exec, rows, z_cols, "saved.argmax");
    if (o.save_attention) check_saved(s.attention, exec, nnz, o.heads, "saved.attention");
}

// What both passes check: X, Y and Z against A and the options, the rows x Z-columns array the pass
// writes (E, forward) or reads (dE, backward), and the saved arrays. Returns the widths per head.
template <class V, class I, class T, bool Writable>
Widths check_pass(const Executor& exec, CsrView<const V, I> a, const FusedOptions& o, DenseView<const V> x, DenseView<const V> y,
                  DenseView<const V> z, DenseView<T> e, std::string_view e_name, const FusedSavedViews<V, I, Writable>& saved) {
    const Widths w = check_inputs(exec, a, o, x, y, z);
    detail::check_dense(e, exec, e_name);
    detail::check_shape(e, a.rows, z.cols, e_name);
    check_saved(saved, exec, o, a.rows, a.nnz, z.cols);
    return w;
}

// A gradient output: skipped when empty, else it must have the shape of what it differentiates.
template <class V>
void check_gradient(DenseView<V> g, const Executor& exec, index_t rows, index_t cols, std::string_view name) {
    if (g.empty()) return;
    detail::check_dense(g, exec, name);
    detail::check_shape(g, rows, cols, name);
}

// FusedMM's GCN pattern (A's values as the scores, an identity or scaling edge function, no
// normalisation, sum or mean) is an SpMM, E = c A Z (mean: each row over its length), with every
// head at once since no score depends on the head. On CUDA it runs through an SpmmPlan, whose
// family of kernels is tuned for it: FusedMM's own kernel took 0.67-0.70x cuSPARSE's SpMM there
// (H200, quick suite, K = 32 and 128). The plan is deterministic, as FusedMM's kernel is.
bool runs_as_spmm(const FusedOptions& o) {
    return o.score == Score::value && o.normalize == Normalize::none && (o.aggregate == Aggregate::sum || o.aggregate == Aggregate::mean) &&
           (o.edge.kind == Edge::Kind::identity || o.edge.kind == Edge::Kind::scale) && !o.save_attention;
}

SpmmOptions spmm_options_of(const FusedOptions& o) {
    SpmmOptions s;
    s.reduce = o.aggregate == Aggregate::mean ? Reduce::mean : Reduce::sum;
    s.alpha = o.edge.kind == Edge::Kind::scale ? static_cast<double>(o.edge.param) : 1.0;
    s.deterministic = true;
    return s;
}

}  // namespace

template <class V, class I>
struct FusedPlan<V, I>::Impl {
    Impl(const Executor& e, CsrView<const V, I> m, const FusedOptions& o) : exec(e), a(m), options(o) {}
    Executor exec;
    CsrView<const V, I> a;
    FusedOptions options;
    std::string config;
    // Aᵀ's pattern for the backward pass (host or device, as the backend's), built on the first
    // backward call that needs it, so that forward-only (inference) use pays nothing and a plan
    // reused across training steps sorts once.
    mutable std::once_flag transposed_once;
    mutable std::optional<detail::TransposedPattern<I>> transposed;
    mutable std::optional<detail::cuda::DeviceTransposedPattern<I>> device_transposed;
    detail::TransposedPatternView<I> given;  // the caller's (use_transposed_pattern), else none
    mutable detail::FusedSplitCache split_cache;  // the CUDA forward's long-row searches
    // The SpMM plans of the GCN pattern on CUDA (runs_as_spmm), by output width; made at a width's first forward.
    mutable std::mutex spmm_mutex;
    mutable std::map<index_t, SpmmPlan<V, I>> spmm_plans;

    const SpmmPlan<V, I>& spmm_plan(index_t width) const {
        const std::lock_guard<std::mutex> lock(spmm_mutex);
        auto it = spmm_plans.find(width);
        if (it == spmm_plans.end()) it = spmm_plans.emplace(width, SpmmPlan<V, I>(exec, a, width, spmm_options_of(options))).first;
        return it->second;
    }
};

template <class V, class I>
FusedPlan<V, I>::FusedPlan(const Executor& exec, CsrView<const V, I> a, FusedOptions options) {
    check_options(options);
    detail::check_csr(a, exec, "A", options.score == Score::value);
    impl_ = std::make_unique<Impl>(exec, a, options);
    switch (exec.backend()) {
        case Backend::reference:
            impl_->config = "reference";
            break;
        case Backend::cpu:
            impl_->config = "cpu.rows";
            break;
        case Backend::cuda:
            impl_->config = options.config;
            break;
    }
}

template <class V, class I>
FusedPlan<V, I>::~FusedPlan() = default;
template <class V, class I>
FusedPlan<V, I>::FusedPlan(FusedPlan&&) noexcept = default;
template <class V, class I>
FusedPlan<V, I>& FusedPlan<V, I>::operator=(FusedPlan&&) noexcept = default;

template <class V, class I>
void FusedPlan<V, I>::use_transposed_pattern(const I* col_ptr, const I* row_idx, const I* entry) {
    if (!col_ptr || (impl_->a.nnz > 0 && (!row_idx || !entry)))
        invalid_argument("FusedPlan::use_transposed_pattern: col_ptr, row_idx and entry must all be given");
    impl_->given = {col_ptr, row_idx, entry};
}

template <class V, class I>
std::string FusedPlan<V, I>::config() const {
    return impl_->config;
}

template <class V, class I>
FusedSaved<V, I> FusedPlan<V, I>::forward(DenseView<const V> x, DenseView<const V> y, DenseView<const V> z, DenseView<V> e) const {
    const Impl& p = *impl_;
    const FusedOptions& o = p.options;
    check_inputs(p.exec, p.a, o, x, y, z);
    FusedSaved<V, I> saved;
    if (o.normalize == Normalize::softmax) {
        saved.row_max = Dense<detail::fused_stat_t<V>>(p.exec, p.a.rows, o.heads);
        saved.row_sum = Dense<detail::fused_stat_t<V>>(p.exec, p.a.rows, o.heads);
    }
    if (o.aggregate == Aggregate::max) saved.argmax = Dense<I>(p.exec, p.a.rows, z.cols);
    if (o.save_attention) saved.attention = Dense<V>(p.exec, p.a.nnz, o.heads);
    forward(x, y, z, e, saved.out());
    return saved;
}

template <class V, class I>
void FusedPlan<V, I>::forward(DenseView<const V> x, DenseView<const V> y, DenseView<const V> z, DenseView<V> e,
                              const FusedSavedOut<V, I>& saved) const {
    const Impl& p = *impl_;
    const FusedOptions& o = p.options;
    const Widths w = check_pass(p.exec, p.a, o, x, y, z, e, "E", saved);

    if (p.exec.backend() == Backend::cuda && runs_as_spmm(o) && z.cols > 0) {  // nothing to save: no statistics, winners or weights
        p.spmm_plan(z.cols).run(z, e);
        return;
    }
    detail::FusedForwardArgs<V, I> args{p.a, x, y, z, e, o, w.d, w.dz, saved.row_max, saved.row_sum, saved.argmax, saved.attention, &p.split_cache};
    switch (p.exec.backend()) {
        case Backend::reference:
            detail::reference::fusedmm_forward(p.exec, args);
            break;
        case Backend::cpu: {
            // The cpu kernels walk contiguous rows; column-major arguments go through row-major copies.
            const detail::RowMajorInput<V> xs(x), ys(y), zs(z);
            detail::RowMajorOutput<V> es(e);
            args.x = xs.view();
            args.y = ys.view();
            args.z = zs.view();
            args.e = es.view();
            detail::cpu::fusedmm_forward(p.exec, args);
            es.write_back();
            break;
        }
        case Backend::cuda:
            detail::cuda::fusedmm_forward(p.exec, args, p.config);
            break;
    }
}

template <class V, class I>
void FusedPlan<V, I>::backward(DenseView<const V> de, const FusedSaved<V, I>& saved, DenseView<const V> x, DenseView<const V> y,
                               DenseView<const V> z, DenseView<V> dx, DenseView<V> dy, DenseView<V> dz, DenseView<V> da,
                               DenseView<const V> e) const {
    backward(de, saved.view(), x, y, z, dx, dy, dz, da, e);
}

template <class V, class I>
void FusedPlan<V, I>::backward(DenseView<const V> de, const FusedSavedIn<V, I>& saved, DenseView<const V> x, DenseView<const V> y,
                               DenseView<const V> z, DenseView<V> dx, DenseView<V> dy, DenseView<V> dz, DenseView<V> da,
                               DenseView<const V> e) const {
    const Impl& p = *impl_;
    const FusedOptions& o = p.options;
    const Widths w = check_pass(p.exec, p.a, o, x, y, z, de, "dE", saved);
    check_gradient(dx, p.exec, x.rows, x.cols, "dX");
    check_gradient(dy, p.exec, y.rows, y.cols, "dY");
    check_gradient(dz, p.exec, z.rows, z.cols, "dZ");
    check_gradient(da, p.exec, p.a.nnz, 1, "dA");
    if (!e.empty()) {
        detail::check_dense(e, p.exec, "E");
        detail::check_shape(e, p.a.rows, z.cols, "E");
    }

    detail::FusedBackwardArgs<V, I> args{
        p.a, p.given, de, x, y,   z,   saved.row_max, saved.row_sum, saved.argmax, saved.attention, dx,
        dy,  dz,      da, o, w.d, w.dz,
        e,   &p.split_cache};
    switch (p.exec.backend()) {
        case Backend::reference:
            detail::reference::fusedmm_backward(p.exec, args);
            break;
        case Backend::cpu: {
            if ((!dy.empty() || !dz.empty()) && !args.at.col_ptr) {
                std::call_once(p.transposed_once, [&] { p.transposed = detail::cpu::fusedmm_transpose(p.exec, p.a); });
                args.at = p.transposed->view();
            }
            const detail::RowMajorInput<V> des(de), xs(x), ys(y), zs(z);
            detail::RowMajorOutput<V> dxs(dx), dys(dy), dzs(dz), das(da);
            args.de = des.view();
            args.x = xs.view();
            args.y = ys.view();
            args.z = zs.view();
            args.dx = dxs.view();
            args.dy = dys.view();
            args.dz = dzs.view();
            args.da = das.view();
            detail::cpu::fusedmm_backward(p.exec, args);
            dxs.write_back();
            dys.write_back();
            dzs.write_back();
            das.write_back();
            break;
        }
        case Backend::cuda:
            if ((!dy.empty() || !dz.empty()) && !args.at.col_ptr) {
                std::call_once(p.transposed_once, [&] {
                    p.device_transposed = detail::cuda::transposed_pattern<I>(p.exec, p.a.row_ptr, p.a.col_idx, p.a.rows, p.a.cols, p.a.nnz);
                });
                args.at = p.device_transposed->view();
            }
            detail::cuda::fusedmm_backward(p.exec, args, p.config);
            break;
    }
}

template <class V, class I>
FusedSaved<V, I> fusedmm(const Executor& exec, CsrView<const V, I> a, DenseView<const V> x, DenseView<const V> y, DenseView<const V> z,
                         DenseView<V> e, const FusedOptions& options) {
    return FusedPlan<V, I>(exec, a, options).forward(x, y, z, e);
}

#define SPK_INSTANTIATE(V, I)                                                                                                           \
    template class FusedPlan<V, I>;                                                                                                     \
    template FusedSaved<V, I> fusedmm(const Executor&, CsrView<const V, I>, DenseView<const V>, DenseView<const V>, DenseView<const V>, \
                                      DenseView<V>, const FusedOptions&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
