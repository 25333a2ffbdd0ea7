#pragma once
// What the CUDA FusedMM kernels read and write: raw device pointers, every dense operand
// row-major (the host side stages column-major ones), leading dimensions in elements.
// T is the device value type (float, double, __half, __nv_bfloat16), S the statistic type.
#include <limits>

#include "spk/fusedmm.hpp"

namespace spk::detail::cuda::fused {

// The options as the kernels branch on them (uniform over a group, so the branches are cheap).
struct Rules {
    Score score = Score::dot;
    Edge edge{};
    bool softmax = false;
    Aggregate aggregate = Aggregate::sum;
    int heads = 1;
    long long d = 0;   // score width a head (1 for add, 0 for value)
    long long dz = 0;  // output width a head
};

// Segments longer than `threshold` entries cut into chunks (split.cuh): rows of A (forward, backward
// rows) or A's columns as the rows of Aᵀ (backward columns). Filled by find_long_rows over the
// segments' pointer array; `threshold` is the maximum (and every pointer null) when nothing is split.
// A kernel's first `blocks` blocks take the chunks, a group a (chunk, head) item, writing partial
// states that a combine kernel merges in chunk order.
template <class I>
struct ChunkList {
    long long threshold = std::numeric_limits<long long>::max();
    long long max_chunks = 0;  // the chunks found (the partial states hold that many per head)
    long long blocks = 0;      // chunk blocks at the front of the grid (set at launch)
    // Long segments in the high 32 bits, chunks in the low 32 (one counter: one atomic a warp).
    unsigned long long* counts = nullptr;
    I* long_rows = nullptr;            // long segment t, in no particular order
    long long* chunk_first = nullptr;  // long segment t's chunks are chunk_first[t] .. + chunk_count
    I* chunk_row = nullptr;            // chunk k's segment and its number within the segment
    long long* chunk_part = nullptr;
    // Forward only, on graphs too small to fill the device (fused_search::team_row_threshold): the
    // rows longer than team_threshold and not cut into chunks ("team rows", team_count of them, in
    // no particular order) take a block a (row, head), each group a span, merged in shared memory;
    // and every (chunk, head) item takes a block too (block_items). The row blocks skip rows
    // longer than team_threshold.
    bool block_items = false;
    long long team_threshold = std::numeric_limits<long long>::max();
    long long team_count = 0;
    long long team_blocks = 0;  // team-row blocks after the chunk blocks (set at launch)
    I* team_rows = nullptr;
};

// The forward pass's long rows (sum and mean without saved attention): each (chunk, head) item
// writes its online-softmax state, which combine_chunks merges.
template <class I, class S>
struct SplitArgs : ChunkList<I> {
    S* partial_max = nullptr;  // (chunk, head): the running max m (softmax only)
    S* partial_sum = nullptr;  // (chunk, head): l = sum of exp(w - m) (softmax only)
    S* partial_acc = nullptr;  // (chunk, head, dz): sum of exp(w - m) Z_j (sum of w Z_j without softmax)
};

// The backward pass's long rows and long columns. With the saved statistics every α_ij is known
// up front, so what a row or column gives is a plain sum over its entries: a chunk's state is its
// share of that sum. Under softmax the rows' chunks first give σ's shares (sigma_pass), which
// combine into σ before a second launch of the row kernel gives the dX shares (they need σ).
template <class I, class S>
struct BackwardSplit {
    ChunkList<I> rows;           // long rows of A (the row kernel)
    ChunkList<I> columns;        // long columns of A, over Aᵀ's col_ptr (the column kernel)
    bool sigma_pass = false;     // the row kernel's chunk items give σ's shares, not dX's
    S* partial_sigma = nullptr;  // (row chunk, head): Σ α dα over the chunk (softmax only)
    S* partial_dx = nullptr;     // (row chunk, head, dx_width): Σ ds Y_j (dot), ... (dX only)
    S* partial_dz = nullptr;     // (column chunk, head, dz): Σ c α dE_i (dZ only)
    S* partial_dy = nullptr;     // (column chunk, head, dx_width): Σ ds X_i, ... (dY only)
    long long dx_width = 0;      // values of dX (dY) a head: d for dot and neg_sqdist, 1 for add
};

template <class T, class I, class S>
struct ForwardKernelArgs {
    Rules rules;
    long long rows = 0;
    const I* row_ptr = nullptr;
    const I* col_idx = nullptr;
    const T* a_values = nullptr;  // read only by the value score
    const T* x = nullptr;
    long long ldx = 0;
    const T* y = nullptr;
    long long ldy = 0;
    const T* z = nullptr;
    long long ldz = 0;
    T* e = nullptr;
    long long lde = 0;
    S* row_max = nullptr;  // rows x heads, softmax only
    S* row_sum = nullptr;
    I* argmax = nullptr;  // rows x heads*dz, max aggregation only
    long long ld_argmax = 0;
    T* attention = nullptr;  // nnz x heads, save_attention only
    long long ld_attention = 0;
    SplitArgs<I, S> split;
    int team = 1;  // groups that share a row in the row blocks (core/fused_row_team.hpp); 1 under max aggregation
};

// What the row kernel stores per entry and head for the column kernel under backward_edge_terms:
// the weight of dE_i in dZ_j (c α) and the score's gradient ds.
template <class S>
struct alignas(2 * sizeof(S)) EdgeTerm {
    S weight, ds;
};

template <class T, class I, class S>
struct BackwardKernelArgs {
    Rules rules;
    bool recompute = true;   // the score is needed (backward_recomputes_score)
    bool use_saved = false;  // α comes from the saved attention
    long long rows = 0, cols = 0;
    const I* row_ptr = nullptr;
    const I* col_idx = nullptr;
    const T* a_values = nullptr;
    // Aᵀ's pattern: column j's entries are col_ptr[j] .. col_ptr[j+1]; t_row the row of each,
    // t_entry its number in A. Only the column kernel reads them.
    const I* col_ptr = nullptr;
    const I* t_row = nullptr;
    const I* t_entry = nullptr;
    const T* de = nullptr;
    long long ldde = 0;
    const T* x = nullptr;
    long long ldx = 0;
    const T* y = nullptr;
    long long ldy = 0;
    const T* z = nullptr;
    long long ldz = 0;
    const S* row_max = nullptr;
    const S* row_sum = nullptr;
    const I* argmax = nullptr;
    long long ld_argmax = 0;
    const T* attention = nullptr;
    long long ld_attention = 0;
    // σ_ih = Σ_k α_ik dα_ik (rows x heads): the row kernel writes it, the column kernel reads it;
    // sigma_given: it was computed from the forward's output beforehand, and every kernel reads it.
    S* sigma = nullptr;
    bool sigma_given = false;
    T* dx = nullptr;  // each output null when not wanted
    long long lddx = 0;
    T* dy = nullptr;
    long long lddy = 0;
    T* dz = nullptr;
    long long lddz = 0;
    T* da = nullptr;
    long long da_stride = 0;  // distance between consecutive entries of dA
    int row_heads = 1;        // heads one group of the row kernel walks (all of them for dA)
    EdgeTerm<S>* edge_terms = nullptr;  // nnz x heads (entry-major): written by the row kernel when not null
    BackwardSplit<I, S> split;
};

// One kernel shape: G lanes a group, VEC values a vector access.
struct Shape {
    int g = 32;
    int vec = 1;
};

// The backward kernels' walk over a row's (column's) entries: the general path
// (backward_kernels.cuh), or the resident one (backward_resident.cuh) for scalar scores (add,
// value) or vector scores (dot, neg_sqdist). The score kind is a template argument there so
// that the scalar kernels hold no registers for rows of X and Y. stored_columns: the column
// kernel reads the edge terms the row kernel stored (backward_stored.cuh; FusedOptions::
// backward_edge_terms) instead of recomputing them.
enum class BackwardPath { general, resident_scalar, resident_vector, stored_columns };

// What the forward kernel or a resident backward kernel knows of the rules when it is compiled:
// nothing (it reads them at run time), max aggregation (only then are winners held), or the rules
// of dot-product attention (attention_rules: every branch on them folds away; in f32 the forward's
// batch loop went from 1279 to 356 machine instructions, the backward row kernel's ds sweep from
// 706 to 349).
enum class CompiledRules { runtime, max, attention };

// Whether the rules are dot-product attention's: a dot score, a linear edge (identity or scale),
// softmax, sum or mean aggregation. Kernels compiled for them (attention_rules) fold every branch
// on the rules.
inline bool attention_rules_hold(const Rules& r) {
    const bool linear = r.edge.kind == Edge::Kind::identity || r.edge.kind == Edge::Kind::scale;
    return r.score == Score::dot && linear && r.softmax && r.aggregate != Aggregate::max;
}

}  // namespace spk::detail::cuda::fused
