#pragma once
// FusedMM: SDDMM, an edge function, an optional row softmax and an SpMM in one pass over each
// row i of A, per head h (DESIGN.md §7; first paper):
//   s_ij = score(X_i, Y_j, a_ij)     dot: <X_i,h, Y_j,h> | add: X(i,h) + Y(j,h) (GAT's el + er)
//                                    | neg_sqdist: -|X_i,h - Y_j,h|^2 | value: a_ij
//   w_ij = edge(s_ij)                identity | sigmoid | exp | leaky_relu(alpha) | tanh | scale(c)
//   α_ij = normalize(w_i.)           none: α = w | softmax over the row's non-zeros (online, one pass)
//   E_i,h = aggregate_j α_ij Z_j,h    sum | mean (sum divided by the row length) | max (element-wise,
//                                    the first maximum wins ties, NaN propagates; the backward pass
//                                    routes by column, so a row must not repeat a column)
// Empty rows give E_i = 0. Nothing of size nnz is written unless save_attention is set.
// The backward pass recomputes scores from the O(rows x heads) statistics the forward pass saved.
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "spk/executor.hpp"
#include "spk/matrix.hpp"

namespace spk {

enum class Score { dot, add, neg_sqdist, value };
enum class Normalize { none, softmax };
enum class Aggregate { sum, mean, max };
inline constexpr Score all_scores[] = {Score::dot, Score::add, Score::neg_sqdist, Score::value};
inline constexpr Normalize all_normalizations[] = {Normalize::none, Normalize::softmax};
inline constexpr Aggregate all_aggregations[] = {Aggregate::sum, Aggregate::mean, Aggregate::max};

struct Edge {
    enum class Kind { identity, sigmoid, exp, leaky_relu, tanh, scale };
    Kind kind = Kind::identity;
    float param = 0.0f;  // leaky_relu: negative slope; scale: factor
    static constexpr Edge identity() { return {}; }
    static constexpr Edge sigmoid() { return {Kind::sigmoid, 0.0f}; }
    static constexpr Edge exp() { return {Kind::exp, 0.0f}; }
    static constexpr Edge leaky_relu(float alpha) { return {Kind::leaky_relu, alpha}; }
    static constexpr Edge tanh() { return {Kind::tanh, 0.0f}; }
    static constexpr Edge scale(float c) { return {Kind::scale, c}; }
    // Whether the kind reads `param` (leaky_relu, scale).
    static constexpr bool takes_param(Kind k) { return k == Kind::leaky_relu || k == Kind::scale; }
};
inline constexpr Edge::Kind all_edge_kinds[] = {Edge::Kind::identity,   Edge::Kind::sigmoid, Edge::Kind::exp,
                                                Edge::Kind::leaky_relu, Edge::Kind::tanh,    Edge::Kind::scale};

std::string_view to_string(Score s) noexcept;
std::string_view to_string(Normalize n) noexcept;
std::string_view to_string(Aggregate a) noexcept;
std::string_view to_string(Edge::Kind k) noexcept;  // "leaky_relu"
std::string to_string(Edge e);                      // "leaky_relu(0.2)"

struct FusedOptions {
    Score score = Score::dot;
    Edge edge = Edge::identity();
    Normalize normalize = Normalize::none;
    Aggregate aggregate = Aggregate::sum;
    int heads = 1;
    bool save_attention = false;  // keep the nnz x heads weights α for a faster backward
    // A faster backward for more scratch: while it runs, the backward pass keeps two values per
    // entry and head (the weight c α and the score's gradient ds, 2 nnz x heads accumulators),
    // which its row pass computes anyway, so that the gradients over Aᵀ (dY, dZ) read them instead
    // of recomputing every score. CUDA uses it for sum and mean aggregation when dX or dA is wanted
    // and each head fits its kernels' registers (f32 heads up to 128 wide); elsewhere it changes nothing.
    bool backward_edge_terms = false;
    // The CUDA forward kernel's configuration: "auto", or "team<P>" (P = 1, 2, 4 or 8) for P groups
    // of lanes sharing each row, which graphs of few rows use to fill the device (groups narrower
    // than a warp are capped at a warp; max aggregation always takes 1); "rows<T>" for a block on
    // each row longer than about T entries (team rows, which small power-law graphs take by
    // themselves where the groups are whole warps; rows0: none); or "team<P>.rows<T>". Checked on
    // every backend, used by CUDA only.
    std::string config = "auto";
};

// Views of what the forward pass keeps (FusedSaved's arrays, or the caller's own, e.g. a framework's
// tensors): the same shapes, row-major and tight (ld = cols), each empty where the options need
// none. FusedSavedOut is what forward() can write into, FusedSavedIn what backward() reads.
template <class V, class I, bool Writable>
struct FusedSavedViews {
    using Stat = typename value_traits<V>::accum;
    template <class T>
    using View = DenseView<std::conditional_t<Writable, T, const T>>;
    View<Stat> row_max, row_sum;
    View<I> argmax;
    View<V> attention;
};
template <class V, class I>
using FusedSavedOut = FusedSavedViews<V, I, true>;
template <class V, class I>
using FusedSavedIn = FusedSavedViews<V, I, false>;

// What the forward pass keeps for the backward pass: O(rows x heads) softmax statistics,
// the winners of a max aggregation (rows x heads*dz) and, only if asked, the attention.
// The statistics use the accumulation type (float; double for f64) so f64 gradients stay exact.
template <class V, class I>
struct FusedSaved {
    using Stat = typename value_traits<V>::accum;
    Dense<Stat> row_max;  // rows x heads (softmax only): max_j w_ij, -inf for an empty row
    Dense<Stat> row_sum;  // rows x heads (softmax only): sum_j exp(w_ij - row_max), 0 for an empty row
    Dense<I> argmax;      // rows x heads*dz (max aggregation only): column j of A, -1 if none
    Dense<V> attention;   // nnz x heads (save_attention only): α_ij, the weight after normalisation
                          // (before the 1/length of mean); row p is entry p of A

    FusedSavedIn<V, I> view() const { return {row_max.view(), row_sum.view(), argmax.view(), attention.view()}; }
    FusedSavedOut<V, I> out() { return {row_max.view(), row_sum.view(), argmax.view(), attention.view()}; }
};

// Shapes (d: feature width per head, dz: output width per head):
//   dot, neg_sqdist: X rows(A) x heads*d, Y cols(A) x heads*d;  add: X rows(A) x heads, Y cols(A) x heads;
//   value: X and Y unused (may be empty; A must have values).  Z: cols(A) x heads*dz;  E: rows(A) x heads*dz.
// Wrong shapes throw ShapeMismatch naming the argument; a width that heads does not divide,
// InvalidArgument. The plan keeps a view of A: A's arrays must outlive it; A's values may change
// between calls, its pattern may not. On CUDA the plan keeps what its first calls found (the long
// rows and columns; for the GCN pattern, an SpmmPlan, whose memory is freed on the executor's
// stream: the stream must outlive the plan).
template <class V, class I>
class FusedPlan {
public:
    FusedPlan(const Executor& exec, CsrView<const V, I> a, FusedOptions options);
    ~FusedPlan();
    FusedPlan(FusedPlan&&) noexcept;
    FusedPlan& operator=(FusedPlan&&) noexcept;

    FusedSaved<V, I> forward(DenseView<const V> x, DenseView<const V> y, DenseView<const V> z, DenseView<V> e) const;
    // The same, keeping what the backward pass needs in the caller's arrays (nothing allocated for them).
    void forward(DenseView<const V> x, DenseView<const V> y, DenseView<const V> z, DenseView<V> e, const FusedSavedOut<V, I>& saved) const;
    // Gradients from dE. Any of dx, dy, dz, da (nnz x 1, for A's values) may be empty to skip it;
    // those given are overwritten (with zeros where the input does not influence E: dx and dy for
    // the value score, da for the others). x, y, z must be the forward pass's inputs, saved its result.
    // e (optional): the forward pass's output E. Under softmax the backward needs, per row and head,
    // σ = Σ_j α_ij dα_ij, which is <dE_i, E_i> (FlashAttention-2's D); given E, the CUDA backend takes
    // it from there (f32 and f64) instead of a pass over the row. The host backends ignore it.
    void backward(DenseView<const V> de, const FusedSaved<V, I>& saved, DenseView<const V> x, DenseView<const V> y, DenseView<const V> z,
                  DenseView<V> dx, DenseView<V> dy, DenseView<V> dz, DenseView<V> da = {}, DenseView<const V> e = {}) const;
    // The same, reading what the forward pass kept from the caller's arrays.
    void backward(DenseView<const V> de, const FusedSavedIn<V, I>& saved, DenseView<const V> x, DenseView<const V> y, DenseView<const V> z,
                  DenseView<V> dx, DenseView<V> dy, DenseView<V> dz, DenseView<V> da = {}, DenseView<const V> e = {}) const;
    // Aᵀ's pattern for backward(), when the caller keeps one across plans (a training loop that
    // plans every step): the plan then builds none. In A's memory space: col_ptr (cols(A) + 1),
    // and per entry of Aᵀ the row of A (increasing within each column) and the entry of A it is.
    // Trusted, not checked; the arrays must outlive the plan.
    void use_transposed_pattern(const I* col_ptr, const I* row_idx, const I* entry);
    // The kernel configuration, as a readable string.
    std::string config() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

template <class V, class I>
FusedSaved<V, I> fusedmm(const Executor& exec, CsrView<const V, I> a, DenseView<const V> x, DenseView<const V> y, DenseView<const V> z,
                         DenseView<V> e, const FusedOptions& options);

}  // namespace spk
