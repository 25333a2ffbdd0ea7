// CUDA FusedMM, host side: stage column-major operands through row-major workspaces, pick the
// kernel shape from the widths, fill the kernel arguments and launch.
//   forward:  one kernel, or, under sum and mean without saved attention, count_chunks and
//             find_long_rows, the forward kernel with its chunk blocks, and combine_chunks.
//   backward: Aᵀ's pattern (when dY or dZ is wanted), count_chunks and find_long_rows over A's
//             row_ptr and over Aᵀ's col_ptr, then the row kernel (under softmax with long rows: a
//             sigma pass, combine_sums into σ, the row kernel again on the chunks alone),
//             combine_sums into dX, the column kernel, combine_sums into dZ and dY: at most 10
//             kernels besides Aᵀ's (4 for the searches, 4 on the rows, 2 on the columns); 4 when
//             nothing is long.
// The splits learn their long rows (columns) on the device (long_segments.cuh) and wait once for
// the chunk counts of a few candidate thresholds (under 400 bytes a pointer array, read back
// together): the shortest threshold whose chunks fit the chunk budget is taken, and its counts
// size the lists and the chunks' partial states exactly. A FusedPlan keeps the result, so only
// its first pass of each kind (and width) searches and waits.
// Peak device memory of a forward pass with row-major operands, besides its inputs, E and the
// saved statistics (2 x rows x heads values of S): the chunk budget, max(nnz x sizeof(S) / 2,
// 64 KiB) (chunk_budget; a small graph's optional cuts below the preferred threshold get half an
// array strictly), plus a few hundred bytes of counters. The unfused pipeline holds at
// least nnz x 4 bytes of scores (f32), so from 32 Ki entries on the split holds at most half of
// that, and with the statistics the forward's peak stays below the pipeline's whenever the mean
// row exceeds 4 x heads entries (4 heads of 128, H200, predicted from the rows' lengths: R-MAT 18
// 13.3 MiB against the pipeline's 15.1 to 15.7, soc-Slashdot0902 2.9 against 3.6 to 3.8). A
// backward pass holds one budget for its long rows and one for its long columns.
// Aᵀ's pattern comes from the FusedPlan (built at its first backward call that needs dY or dZ, or
// the caller's own: FusedPlan::use_transposed_pattern).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "core/cuda_runtime.hpp"
#include "core/fused_row_team.hpp"
#include "core/fusedmm_kernels.hpp"
#include "core/fusedmm_math.hpp"
#include "core/instantiate.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/transpose.cuh"
#include "core/transposed_pattern.hpp"
#include "cuda/common/values.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/common/zero_fill.cuh"
#include "cuda/fusedmm/long_segments.cuh"
#include "cuda/fusedmm/split.cuh"

namespace spk::detail::cuda {

namespace fused {

template <class T, class I>
void launch_forward(const Shape&, bool, const ForwardKernelArgs<T, I, accum_t<T>>&, long long, cudaStream_t);
template <class T, class I>
void launch_combine_chunks(const ForwardKernelArgs<T, I, accum_t<T>>&, long long, cudaStream_t);
template <class T, class I>
void launch_backward_rows(const Shape&, const BackwardKernelArgs<T, I, accum_t<T>>&, bool, long long, BackwardPath, cudaStream_t);
template <class T, class I>
void launch_backward_columns(const Shape&, const BackwardKernelArgs<T, I, accum_t<T>>&, long long, BackwardPath, cudaStream_t);

}  // namespace fused

namespace {

using namespace fused_search;

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

// A dense input as the kernels read it: row-major, through a transposed copy when column-major.
template <class V>
class StagedInput {
public:
    using T = device_t<V>;
    StagedInput(const Executor& exec, DenseView<const V> v) {
        if (v.empty()) return;
        if (v.layout == Layout::row_major) {
            data_ = reinterpret_cast<const T*>(v.data);
            ld_ = v.ld;
            return;
        }
        copy_ = Array<V>(exec, static_cast<std::size_t>(v.rows * v.cols));
        transpose<T>(reinterpret_cast<const T*>(v.data), v.cols, v.rows, v.ld, reinterpret_cast<T*>(copy_.data()), v.cols, stream_of(exec));
        data_ = reinterpret_cast<const T*>(copy_.data());
        ld_ = v.cols;
    }
    const T* data() const { return data_; }
    long long ld() const { return ld_; }
    bool staged() const { return !copy_.empty(); }

private:
    Array<V> copy_;
    const T* data_ = nullptr;
    long long ld_ = 0;
};

// A dense output: computed row-major, in a workspace copied back when the target is column-major.
template <class V>
class StagedOutput {
public:
    using T = device_t<V>;
    StagedOutput(const Executor& exec, DenseView<V> v, bool wanted) : target_(v) {
        if (!wanted || v.empty()) return;
        if (v.layout == Layout::row_major) {
            data_ = reinterpret_cast<T*>(v.data);
            ld_ = v.ld;
            return;
        }
        copy_ = Array<V>(exec, static_cast<std::size_t>(v.rows * v.cols));
        data_ = reinterpret_cast<T*>(copy_.data());
        ld_ = v.cols;
    }
    T* data() const { return data_; }
    long long ld() const { return ld_; }
    bool staged() const { return !copy_.empty(); }
    void write_back(cudaStream_t stream) const {
        if (staged())
            transpose<T>(reinterpret_cast<const T*>(copy_.data()), target_.rows, target_.cols, target_.cols,
                         reinterpret_cast<T*>(target_.data), target_.ld, stream);
    }

private:
    DenseView<V> target_;
    Array<V> copy_;
    T* data_ = nullptr;
    long long ld_ = 0;
};

template <class S>
S* saved_data(DenseView<S> v, const char* name) {
    if (v.empty()) return nullptr;
    if (v.layout != Layout::row_major) unsupported(std::string("fusedmm on CUDA: ") + name + " must be row-major");
    return v.data;
}

// What the forward and the backward kernels' arguments share: A, the staged X, Y and Z, and the
// saved statistics (written by the forward pass, read by the backward one).
template <class K, class Args, class V>
void fill_operands(K& k, const Args& args, const StagedInput<V>& x, const StagedInput<V>& y, const StagedInput<V>& z) {
    using T = device_t<V>;
    k.rows = args.a.rows;
    k.row_ptr = args.a.row_ptr;
    k.col_idx = args.a.col_idx;
    k.a_values = reinterpret_cast<const T*>(args.a.values);
    k.x = x.data();
    k.ldx = x.ld();
    k.y = y.data();
    k.ldy = y.ld();
    k.z = z.data();
    k.ldz = z.ld();
    check_gather_stride("fusedmm", "x", k.ldx, sizeof(T));
    check_gather_stride("fusedmm", "y", k.ldy, sizeof(T));
    check_gather_stride("fusedmm", "z", k.ldz, sizeof(T));
    k.row_max = saved_data(args.row_max, "saved.row_max");
    k.row_sum = saved_data(args.row_sum, "saved.row_sum");
    k.argmax = saved_data(args.argmax, "saved.argmax");
    k.ld_argmax = args.argmax.ld;
    k.attention = reinterpret_cast<decltype(k.attention)>(saved_data(args.attention, "saved.attention"));
    k.ld_attention = args.attention.ld;
}

fused::Rules rules_of(const FusedOptions& o, index_t d, index_t dz) {
    return {o.score, o.edge, o.normalize == Normalize::softmax, o.aggregate, o.heads, d, dz};
}

// One group of G lanes a row and head: 4 or 8 lanes when every lane's share of the widest row is
// one vector, else a warp. Vectors of 16 bytes when every row the kernels touch allows them. (On
// the H200, GAT's second layer, 1 head of 16 f32 values on R-MAT 20, took the backward from 8.0
// to 5.4 ms and the forward from 1.45 to 1.24 ms with groups of 4 over 8, half of them idle.)
template <class T>
class ShapeChooser {
public:
    ShapeChooser(const FusedOptions& o, index_t d, index_t dz) : vector_score_(fused::vector_score(o.score)), d_(d), dz_(dz) {
        ok_ = dz % wide == 0 && (!vector_score_ || d % wide == 0);
    }
    // Every pointer read or written with vector accesses (null: unused).
    void require(const void* p, long long ld) {
        if (p == nullptr) return;
        if (reinterpret_cast<std::uintptr_t>(p) % (wide * sizeof(T)) != 0 || ld % wide != 0) ok_ = false;
    }
    fused::Shape shape() const {
        const int vec = ok_ ? wide : 1;
        const long long width = std::max<long long>(vector_score_ ? d_ : 0, dz_);
        if (vec > 1 && width <= 4LL * vec) return {4, vec};
        return {width <= 8LL * vec ? 8 : 32, vec};
    }
    // Tiles needed to cover `width` values a row with register accumulators, `lane` values a lane.
    static long long tiles(const fused::Shape& s, long long width, int lane = fused::kLaneElements) {
        const long long tile = static_cast<long long>(s.g) * lane;
        return std::max<long long>(1, (width + tile - 1) / tile);
    }

private:
    static constexpr int wide = 16 / static_cast<int>(sizeof(T));
    bool vector_score_;
    long long d_, dz_;
    bool ok_ = true;
};

// The workspaces of a split forward pass; freed on the stream after the kernels that use them.
struct SplitWorkspace {
    SearchWorkspace search;        // the counters and the long rows' and chunks' lists
    Workspace<std::byte> states;   // the chunks' partial states, sized by the chunks found
    long long combine_blocks = 0;  // 0: nothing is split
};

// Sets up the long-row split (split.cuh) of a forward pass: finds the long rows at a threshold whose
// chunks' states and lists fit chunk_budget (each (chunk, head) holds dz values, and the max and
// the sum under softmax), then sizes the states by the chunks found and fills `split`. Leaves
// `split` as it was (nothing split) when no row exceeds the threshold.
// With `cache` (a plan's), the search runs once for each chunk state size and later calls reuse
// its result: no launch and no wait.
// team_from: team rows from the smallest candidate of at least that many entries, -1: where
// auto_team_rows takes them, 0: none. Groups of whole warps only: a block of narrower groups would
// be a team of 16 or 32 groups, too many for rows of tens of entries, and their kernels spilled
// more with the block-wide merge compiled in (one head of 32: citeseer and cora 10.9 -> 13.3 us).
template <class I, class S>
SplitWorkspace prepare_split(const Executor& exec, const I* row_ptr, long long rows, long long nnz, const fused::Rules& r, int lanes,
                             long long team_from, fused::SplitArgs<I, S>& split, FusedSplitCache* cache) {
    SplitWorkspace w;
    const DeviceProperties& device = device_properties(exec.device());
    const long long state_bytes = r.heads * (r.dz + (r.softmax ? 2 : 0)) * static_cast<long long>(sizeof(S));
    if (lanes != 32) team_from = 0;
    Segments<I> row_segments{
        row_ptr, rows, nnz, split_threshold(rows, nnz, r.heads, device), first_split_threshold(nnz, r.heads, device), state_bytes};
    row_segments.team_from = team_from;
    const long long groups = fused::kBlockThreads / lanes;
    row_segments.row_blocks = (rows + groups - 1) / groups * r.heads;
    // The forward holds about half an SM's threads (64 registers).
    row_segments.resident_blocks = static_cast<long long>(device.sm_count) * device.max_threads_per_sm / (2 * fused::kBlockThreads);
    row_segments.heads = r.heads;
    const auto search = [&] { return find_long_segments<I, 1>(exec, {row_segments}, chunk_budget(nnz, sizeof(S)), {&split}, w.search)[0]; };
    Found found;
    if (cache == nullptr) {
        found = search();
    } else {
        const std::lock_guard<std::mutex> lock(cache->mutex);
        const std::pair<long long, long long> key{state_bytes, team_from};
        const auto kept = cache->forward.find(key);
        if (kept != cache->forward.end()) {
            found = restore_search(kept->second, split);
        } else {
            found = search();
            found = restore_search(cache->forward.emplace(key, keep_search(exec, split, found, w.search)).first->second, split);
        }
    }
    if (found.segments == 0) return w;

    Carver states;
    const long long count = found.chunks * r.heads, stat_count = r.softmax ? count : 0;
    const std::size_t at_max = states.reserve(stat_count, sizeof(S)), at_sum = states.reserve(stat_count, sizeof(S)),
                      at_acc = states.reserve(count * r.dz, sizeof(S));
    w.states = Workspace<std::byte>(exec, states.bytes());
    std::byte* state_base = w.states.data();
    split.partial_max = r.softmax ? reinterpret_cast<S*>(state_base + at_max) : nullptr;
    split.partial_sum = r.softmax ? reinterpret_cast<S*>(state_base + at_sum) : nullptr;
    split.partial_acc = reinterpret_cast<S*>(state_base + at_acc);
    w.combine_blocks = combine_blocks(found.segments * r.heads, device);
    return w;
}

// Adds the chunks' shares of the long segments in `list` into one or two outputs (combine_sums).
template <class I, class S, class Out>
void launch_combine_sums(const fused::ChunkList<I>& list, const I* ptr, int heads, long long items_blocks,
                         const fused::SumTarget<S, Out>& one, const fused::SumTarget<S, Out>& two, cudaStream_t stream) {
    fused::combine_sums<I, S, Out><<<static_cast<unsigned>(items_blocks), fused::kCombineThreads, 0, stream>>>(list, ptr, heads, one, two);
    SPK_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class V, class I>
void fusedmm_forward(const Executor& exec, const FusedForwardArgs<V, I>& args, const std::string& config) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    using T = device_t<V>;
    using S = accum_t<T>;
    const fused_team::ForwardConfig requested = fused_team::parse_forward_config(config);
    const auto& a = args.a;
    const FusedOptions& o = args.options;
    if (a.rows == 0) return;
    const cudaStream_t stream = stream_of(exec);
    const bool uses_xy = o.score != Score::value;
    const StagedInput<V> x(exec, uses_xy ? args.x : DenseView<const V>{}), y(exec, uses_xy ? args.y : DenseView<const V>{});
    const StagedInput<V> z(exec, args.z);
    const StagedOutput<V> e(exec, args.e, true);

    fused::ForwardKernelArgs<T, I, S> k;
    k.rules = rules_of(o, args.d, args.dz);
    fill_operands(k, args, x, y, z);
    k.e = e.data();
    k.lde = e.ld();

    ShapeChooser<T> chooser(o, args.d, args.dz);
    if (fused::vector_score(o.score)) {
        chooser.require(k.x, k.ldx);
        chooser.require(k.y, k.ldy);
    }
    chooser.require(k.z, k.ldz);
    chooser.require(k.e, k.lde);
    const fused::Shape shape = chooser.shape();
    // Max aggregation and the saved attention keep whole rows: their winners and α need the row's final state.
    SplitWorkspace split;
    if (o.aggregate != Aggregate::max && args.attention.empty())
        split = prepare_split<I, S>(exec, a.row_ptr, a.rows, a.nnz, k.rules, shape.g, requested.rows_from, k.split, args.kept_split);
    const long long tiles = ShapeChooser<T>::tiles(shape, args.dz, fused::forward_lane_elements(shape.vec));
    // Teams fill the lanes a graph of few rows leaves idle: the forward holds about half an SM's threads (64 registers).
    const DeviceProperties& device = device_properties(exec.device());
    const long long resident_lanes = static_cast<long long>(device.sm_count) * device.max_threads_per_sm / 2;
    k.team = o.aggregate == Aggregate::max ? 1 : fused_team::choose(a.rows, a.nnz, o.heads, tiles, shape.g, resident_lanes, requested.team);
    fused::launch_forward<T, I>(shape, o.aggregate == Aggregate::max, k, tiles, stream);
    if (split.combine_blocks > 0) fused::launch_combine_chunks<T, I>(k, split.combine_blocks, stream);
    e.write_back(stream);
    // Workspaces are freed on return: wait for the kernels that read them.
    if (x.staged() || y.staged() || z.staged() || e.staged()) SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// σ_ih = <dE_i, E_i> over head h's dz columns, a group of kSigmaLanes lanes a (row, head): under
// softmax this is Σ_j α_ij dα_ij for every aggregation (sum and mean: E_i = c Σ_j α_ij Z_j; max:
// each E_ik is the winner's α Z), so the row kernel needs no pass to find it. (A warp a (row,
// head) read 1.3 TB/s for heads of 32 values: most of its lanes waited.)
constexpr int kSigmaLanes = 8;

template <class T, class S>
__global__ void sigma_from_output_kernel(const T* de, long long ldde, const T* e, long long lde, long long rows, int heads, long long dz,
                                         S* sigma) {
    const long long groups = static_cast<long long>(gridDim.x) * (blockDim.x / kSigmaLanes);
    const int lane = group_lane<kSigmaLanes>();
    const unsigned mask = group_mask<kSigmaLanes>();
    for (long long w = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kSigmaLanes; w < rows * heads; w += groups) {
        const long long i = w / heads, h = w % heads;
        S sum = 0;
        for (long long k = h * dz + lane; k < (h + 1) * dz; k += kSigmaLanes) sum += to_accum(de[i * ldde + k]) * to_accum(e[i * lde + k]);
        sum = group_sum<kSigmaLanes>(sum, mask);
        if (lane == 0) sigma[w] = sum;
    }
}

template <class V, class I>
void fusedmm_backward(const Executor& exec, const FusedBackwardArgs<V, I>& args, const std::string& config) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    using T = device_t<V>;
    using S = accum_t<T>;
    fused_team::parse_forward_config(config);  // the forward's configuration: checked, nothing in it concerns the backward
    const auto& a = args.a;
    const FusedOptions& o = args.options;
    const cudaStream_t stream = stream_of(exec);
    const bool uses_xy = o.score != Score::value, vector_score = fused::vector_score(o.score);
    // The outputs an option does not differentiate are zeros.
    if (!uses_xy) {  // X and Y do not enter E
        zero_fill(args.dx, stream);
        zero_fill(args.dy, stream);
    } else {  // only the value score reads A's values
        zero_fill(args.da, stream);
    }
    const bool want_dx = uses_xy && !args.dx.empty(), want_dy = uses_xy && !args.dy.empty(), want_dz = !args.dz.empty();
    const bool want_da = !uses_xy && !args.da.empty();
    if (!want_dx && !want_dy && !want_dz && !want_da) return;

    const StagedInput<V> de(exec, args.de), z(exec, args.z);
    const StagedInput<V> x(exec, uses_xy ? args.x : DenseView<const V>{}), y(exec, uses_xy ? args.y : DenseView<const V>{});
    const StagedOutput<V> dx(exec, args.dx, want_dx), dy(exec, args.dy, want_dy), dz(exec, args.dz, want_dz);
    const bool softmax = o.normalize == Normalize::softmax;
    // σ from the forward's output when the caller gave it (16-bit E would round it: those recompute).
    const bool sigma_given = softmax && !args.e.empty() && sizeof(T) >= 4;
    // The row kernel gives dX, dA and σ (which dY needs under softmax); the column kernel dY and dZ.
    const bool want_ds = want_dx || want_da;
    const bool run_rows = want_ds || (softmax && want_dy && !sigma_given), run_columns = want_dy || want_dz;

    fused::BackwardKernelArgs<T, I, S> k;
    k.rules = rules_of(o, args.d, args.dz_width);
    k.recompute = backward_recomputes_score(o);
    k.use_saved = o.save_attention;
    fill_operands(k, args, x, y, z);
    k.cols = a.cols;
    k.de = de.data();
    k.ldde = de.ld();
    check_gather_stride("fusedmm", "de", k.ldde, sizeof(T));
    k.dx = dx.data();
    k.lddx = dx.ld();
    k.dy = dy.data();
    k.lddy = dy.ld();
    k.dz = dz.data();
    k.lddz = dz.ld();
    k.da = want_da ? reinterpret_cast<T*>(args.da.data) : nullptr;
    k.da_stride = args.da.layout == Layout::row_major ? args.da.ld : 1;
    k.row_heads = uses_xy ? 1 : o.heads;  // dA sums over the heads: one group walks them all

    ShapeChooser<T> chooser(o, args.d, args.dz_width);
    if (vector_score) {
        for (const auto* p : {&x, &y}) chooser.require(p->data(), p->ld());
        chooser.require(k.dx, k.lddx);
        chooser.require(k.dy, k.lddy);
    }
    chooser.require(k.de, k.ldde);
    chooser.require(k.z, k.ldz);
    chooser.require(k.dz, k.lddz);
    const fused::Shape shape = chooser.shape();
    // The resident path (backward_resident.cuh) when one chunk of the shape covers a head's widths.
    const bool resident = std::max<long long>(vector_score ? args.d : 0, args.dz_width) <= static_cast<long long>(shape.g) * shape.vec;
    const fused::BackwardPath path = !resident      ? fused::BackwardPath::general
                                     : vector_score ? fused::BackwardPath::resident_vector
                                                    : fused::BackwardPath::resident_scalar;
    // backward_edge_terms: the resident row kernel, which computes every entry's c α and ds anyway when
    // dX or dA is wanted, stores them, and the column kernel reads them (backward_stored.cuh).
    const bool edge_terms =
        o.backward_edge_terms && resident && o.aggregate != Aggregate::max && want_ds && run_columns && a.nnz > 0;
    Workspace<fused::EdgeTerm<S>> terms;
    if (edge_terms) {
        terms = Workspace<fused::EdgeTerm<S>>(exec, static_cast<std::size_t>(a.nnz) * static_cast<std::size_t>(o.heads));
        k.edge_terms = terms.data();
    }

    // Aᵀ's pattern, for the column kernel: the plan's (built once per plan) or its caller's.
    if (run_columns) {
        if (!args.at.col_ptr) invalid_argument("fusedmm backward: no pattern of Aᵀ for the column gradients (FusedPlan gives one)");
        k.col_ptr = args.at.col_ptr;
        k.t_row = args.at.row_idx;
        k.t_entry = args.at.entry;
    }

    // Long rows and long columns (split.cuh): found together, with one wait for their counts. Each
    // side's chunks hold their shares of the sums it gives (a value a head for σ, dx_width for dX
    // or dY, dz for dZ) within its own chunk budget.
    fused::BackwardSplit<I, S>& split = k.split;
    split.dx_width = o.score == Score::add ? 1 : args.d;
    const long long row_share = (softmax ? 1 : 0) + (want_dx ? split.dx_width : 0);
    const long long column_share = (want_dz ? args.dz_width : 0) + (want_dy ? split.dx_width : 0);
    const auto state_bytes = [&](long long values) { return o.heads * values * static_cast<long long>(sizeof(S)); };
    const DeviceProperties& device = device_properties(exec.device());
    const std::array<Segments<I>, 2> arrays{
        Segments<I>{run_rows ? a.row_ptr : nullptr, a.rows, a.nnz, a.rows > 0 ? split_threshold(a.rows, a.nnz, o.heads, device) : 0,
                    first_split_threshold(a.nnz, o.heads, device), state_bytes(row_share)},
        Segments<I>{run_columns ? k.col_ptr : nullptr, a.cols, a.nnz, a.cols > 0 ? split_threshold(a.cols, a.nnz, o.heads, device) : 0,
                    first_split_threshold(a.nnz, o.heads, device), state_bytes(column_share)}};
    SearchWorkspace search;
    const std::array<fused::ChunkList<I>*, 2> lists{&k.split.rows, &k.split.columns};
    const auto search_both = [&] { return find_long_segments<I, 2>(exec, arrays, chunk_budget(a.nnz, sizeof(S)), lists, search); };
    std::array<Found, 2> found{};
    if (args.kept_split == nullptr) {
        found = search_both();
    } else {  // as prepare_split: once per pair of state sizes (-1: a side not searched)
        FusedSplitCache& cache = *args.kept_split;
        const std::lock_guard<std::mutex> lock(cache.mutex);
        const std::pair<long long, long long> key{run_rows ? arrays[0].state_bytes : -1, run_columns ? arrays[1].state_bytes : -1};
        auto kept = cache.backward.find(key);
        if (kept == cache.backward.end()) {
            found = search_both();
            kept = cache.backward.emplace(key, std::array<KeptSplit, 2>{keep_search(exec, *lists[0], found[0], search),
                                                                          keep_search(exec, *lists[1], found[1], search)}).first;
        }
        for (std::size_t n = 0; n < 2; ++n) found[n] = restore_search(kept->second[n], *lists[n]);
    }
    const long long row_chunks = found[0].chunks, column_chunks = found[1].chunks;

    // The chunks' shares of the sums, sized by the chunks found.
    const long long row_items = row_chunks * o.heads, column_items = column_chunks * o.heads;
    Carver carver;
    const std::size_t at_sigma = carver.reserve(softmax ? row_items : 0, sizeof(S)),
                      at_dx = carver.reserve(want_dx ? row_items * split.dx_width : 0, sizeof(S)),
                      at_dz = carver.reserve(want_dz ? column_items * args.dz_width : 0, sizeof(S)),
                      at_dy = carver.reserve(want_dy ? column_items * split.dx_width : 0, sizeof(S));
    const Workspace<std::byte> shares(exec, carver.bytes());
    const auto share = [&](bool wanted, long long items, std::size_t place) {
        return wanted && items > 0 ? reinterpret_cast<S*>(shares.data() + place) : nullptr;
    };
    split.partial_sigma = share(softmax, row_items, at_sigma);
    split.partial_dx = share(want_dx, row_items, at_dx);
    split.partial_dz = share(want_dz, column_items, at_dz);
    split.partial_dy = share(want_dy, column_items, at_dy);

    // σ_i (rows x heads): the column kernel reads it for dY, the long rows' chunks for ds; from E when given.
    Workspace<S> sigma;
    if (sigma_given || (softmax && run_rows && (want_dy || row_chunks > 0)))
        sigma = Workspace<S>(exec, static_cast<std::size_t>(a.rows * o.heads));
    k.sigma = sigma.data();
    k.sigma_given = sigma_given;
    if (sigma_given && a.rows > 0) {
        const StagedInput<V> e(exec, args.e);
        const long long items = a.rows * o.heads, per_block = 256 / kSigmaLanes;
        const auto blocks = static_cast<unsigned>(std::min<long long>((items + per_block - 1) / per_block, 1 << 20));
        sigma_from_output_kernel<T, S><<<blocks, 256, 0, stream>>>(de.data(), de.ld(), e.data(), e.ld(), a.rows, o.heads, args.dz_width,
                                                                   sigma.data());
        SPK_CUDA_CHECK_LAUNCH();
        if (e.staged()) SPK_CUDA_CHECK(cudaStreamSynchronize(stream));  // the staged copy is freed on return
    }

    if (run_rows) {
        const long long tiles = want_dx && vector_score ? ShapeChooser<T>::tiles(shape, args.d) : 1;
        const long long blocks = combine_blocks(found[0].segments * o.heads, device);
        // Under softmax the long rows' chunks give σ's shares first; dX's need the whole σ.
        split.sigma_pass = softmax && row_chunks > 0 && !sigma_given;
        fused::launch_backward_rows<T, I>(shape, k, false, tiles, path, stream);
        if (split.sigma_pass) {
            launch_combine_sums<I, S, S>(split.rows, a.row_ptr, o.heads, blocks, {split.partial_sigma, 1, k.sigma, o.heads}, {}, stream);
            split.sigma_pass = false;
            if (want_ds) fused::launch_backward_rows<T, I>(shape, k, true, tiles, path, stream);
        }
        if (want_dx && row_chunks > 0)
            launch_combine_sums<I, S, T>(split.rows, a.row_ptr, o.heads, blocks, {split.partial_dx, split.dx_width, k.dx, k.lddx}, {},
                                         stream);
    }
    if (run_columns) {
        const long long tiles = std::max(want_dz ? ShapeChooser<T>::tiles(shape, args.dz_width) : 1,
                                         want_dy && vector_score ? ShapeChooser<T>::tiles(shape, args.d) : 1);
        fused::launch_backward_columns<T, I>(shape, k, tiles, edge_terms ? fused::BackwardPath::stored_columns : path, stream);
        if (column_chunks > 0)
            launch_combine_sums<I, S, T>(split.columns, k.col_ptr, o.heads, combine_blocks(found[1].segments * o.heads, device),
                                         {split.partial_dz, args.dz_width, k.dz, k.lddz}, {split.partial_dy, split.dx_width, k.dy, k.lddy},
                                         stream);
    }
    dx.write_back(stream);
    dy.write_back(stream);
    dz.write_back(stream);
    // Staged copies (column-major operands) are freed on return: wait for the kernels that read them. The workspaces
    // are stream-ordered, so without staging the call returns while its kernels run, as the forward pass does.
    if (de.staged() || z.staged() || x.staged() || y.staged() || dx.staged() || dy.staged() || dz.staged())
        SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
}

#define SPK_INSTANTIATE(V, I)                                                                          \
    template void fusedmm_forward(const Executor&, const FusedForwardArgs<V, I>&, const std::string&); \
    template void fusedmm_backward(const Executor&, const FusedBackwardArgs<V, I>&, const std::string&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
