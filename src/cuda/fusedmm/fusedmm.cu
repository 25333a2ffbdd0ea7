// CUDA FusedMM, host side: stage column-major operands through row-major workspaces, pick the
// kernel shape from the widths, fill the kernel arguments and launch (forward: one kernel, or,
// under sum and mean without saved attention, find_long_rows, the forward kernel with its chunk
// blocks, and combine_chunks; backward: the row kernel, then Aᵀ's pattern and the column kernel).
// The long-row split learns its rows on the device each call (no plan keeps them), and waits once
// for their number, which sizes the chunks' partial states.
// Aᵀ's pattern is built per backward call that needs dY or dZ: the kernel interface has no place
// to keep it between calls (the cpu backend's plan caches its own).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/cuda_runtime.hpp"
#include "core/fusedmm_kernels.hpp"
#include "core/fusedmm_math.hpp"
#include "core/instantiate.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/transpose.cuh"
#include "cuda/common/transposed_pattern.hpp"
#include "cuda/common/values.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/fusedmm/split.cuh"

namespace spk::detail::cuda {

namespace fused {

template <class T, class I>
void launch_forward(const Shape&, bool, const ForwardKernelArgs<T, I, accum_t<T>>&, long long, cudaStream_t);
template <class T, class I>
void launch_combine_chunks(const ForwardKernelArgs<T, I, accum_t<T>>&, long long, cudaStream_t);
template <class T, class I>
void launch_backward_rows(const Shape&, const BackwardKernelArgs<T, I, accum_t<T>>&, long long, cudaStream_t);
template <class T, class I>
void launch_backward_columns(const Shape&, const BackwardKernelArgs<T, I, accum_t<T>>&, long long, cudaStream_t);

}  // namespace fused

namespace {

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

void check_config(const std::string& config) {
    if (config != "auto") invalid_argument("fusedmm config '" + config + "': the CUDA backend accepts only 'auto'");
}

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

// The outputs an option does not differentiate are zeros.
template <class V>
void zero_fill(DenseView<V> v, cudaStream_t stream) {
    if (v.empty()) return;
    const bool rm = v.layout == Layout::row_major;
    const std::size_t width = static_cast<std::size_t>(rm ? v.cols : v.rows) * sizeof(V);
    const std::size_t height = static_cast<std::size_t>(rm ? v.rows : v.cols);
    SPK_CUDA_CHECK(cudaMemset2DAsync(v.data, static_cast<std::size_t>(v.ld) * sizeof(V), 0, width, height, stream));
}

template <class S>
S* saved_data(DenseView<S> v, const char* name) {
    if (v.empty()) return nullptr;
    if (v.layout != Layout::row_major) unsupported(std::string("fusedmm on CUDA: ") + name + " must be row-major");
    return v.data;
}

fused::Rules rules_of(const FusedOptions& o, index_t d, index_t dz) {
    return {o.score, o.edge, o.normalize == Normalize::softmax, o.aggregate, o.heads, d, dz};
}

// One group of G lanes a row and head: 8 lanes when every lane's share of the widest row is one
// vector, else a warp. Vectors of 16 bytes when every row the kernels touch allows them.
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

// Rows longer than this are cut into chunks (split.cuh) of at most this many entries:
//  - 16 times the mean row. A row block's groups (8 or 32 rows of one head) finish together, so a
//    row far above the mean holds its block, and on power-law graphs the hub rows hold the
//    kernel. The chunks (fewer than 2 nnz / threshold) then number below rows / 8: their states
//    take at most an eighth of E's size.
//  - at most an even share of the work (nnz x heads entries) among the warps the device holds at
//    once: on a small matrix with one huge row the device is otherwise idle. The (chunk, head)
//    states then number below twice those warps.
//  - at least 128 entries: a chunk's state (dz + 2 values a head) and its combine cost about 1% of
//    the chunk's own reads (128 rows of Y and of Z).
long long split_threshold(long long rows, long long nnz, int heads, const DeviceProperties& device) {
    const long long resident_warps = std::max(1LL, static_cast<long long>(device.sm_count) * device.max_threads_per_sm / 32);
    const long long mean_based = 16 * ((nnz + rows - 1) / rows);
    const long long share = nnz * heads / resident_warps;
    return std::max(128LL, std::min(mean_based, share));
}

// The workspaces of a split forward pass; freed on the stream after the kernels that use them.
struct SplitWorkspace {
    Workspace<std::byte> lists;   // the counter and the long rows' and chunks' lists, sized by bounds
    Workspace<std::byte> states;  // the chunks' partial states, sized by the chunks found
    long long combine_blocks = 0;  // 0: nothing is split
};

// Carves arrays out of one allocation, each at a 256-byte boundary.
class Carver {
public:
    std::size_t reserve(long long count, std::size_t size) {
        const std::size_t at = bytes_;
        bytes_ += (static_cast<std::size_t>(count) * size + 255) / 256 * 256;
        return at;
    }
    std::size_t bytes() const { return bytes_; }

private:
    std::size_t bytes_ = 0;
};

// Sets up the long-row split (split.cuh) of a forward pass: finds the long rows on the device
// (lists sized by what A's nnz allows: at most nnz / (threshold + 1) long rows, fewer than
// 2 nnz / threshold chunks), reads back how many chunks there are (one wait on the stream: partial
// states sized by the bound took up to an eighth of E's size on matrices with no long row at
// all), then sizes the states and fills `split`. Leaves `split` as it was (nothing split) when no
// row exceeds the threshold.
template <class I, class S>
SplitWorkspace prepare_split(const Executor& exec, const I* row_ptr, long long rows, long long nnz, const fused::Rules& r,
                             fused::SplitArgs<I, S>& split) {
    SplitWorkspace w;
    const DeviceProperties& device = device_properties(exec.device());
    const long long threshold = split_threshold(rows, nnz, r.heads, device);
    const long long max_long = std::min(rows, nnz / (threshold + 1)), max_chunks = 2 * nnz / threshold;
    // The counter packs long rows and chunks in 32 bits each.
    if (max_long == 0 || max_chunks >= (1LL << 32)) return w;
    const long long find_blocks = (rows + fused::kFindThreads - 1) / fused::kFindThreads;
    if (find_blocks > 0x7fffffffLL) unsupported("fusedmm on CUDA: too many rows for one launch (" + std::to_string(rows) + ")");

    Carver lists;
    const std::size_t at_counts = lists.reserve(1, sizeof(unsigned long long)), at_long_rows = lists.reserve(max_long, sizeof(I)),
                      at_chunk_first = lists.reserve(max_long, sizeof(long long)), at_chunk_row = lists.reserve(max_chunks, sizeof(I)),
                      at_chunk_part = lists.reserve(max_chunks, sizeof(long long));
    w.lists = Workspace<std::byte>(exec, lists.bytes());
    std::byte* base = w.lists.data();
    fused::SplitArgs<I, S> found = split;
    found.threshold = threshold;
    found.counts = reinterpret_cast<unsigned long long*>(base + at_counts);
    found.long_rows = reinterpret_cast<I*>(base + at_long_rows);
    found.chunk_first = reinterpret_cast<long long*>(base + at_chunk_first);
    found.chunk_row = reinterpret_cast<I*>(base + at_chunk_row);
    found.chunk_part = reinterpret_cast<long long*>(base + at_chunk_part);

    const cudaStream_t stream = stream_of(exec);
    SPK_CUDA_CHECK(cudaMemsetAsync(found.counts, 0, sizeof(unsigned long long), stream));
    fused::find_long_rows<I><<<static_cast<unsigned>(find_blocks), fused::kFindThreads, 0, stream>>>(
        row_ptr, rows, threshold, found.counts, found.long_rows, found.chunk_first, found.chunk_row, found.chunk_part);
    SPK_CUDA_CHECK_LAUNCH();
    unsigned long long counts = 0;
    SPK_CUDA_CHECK(cudaMemcpyAsync(&counts, found.counts, sizeof(counts), cudaMemcpyDeviceToHost, stream));
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
    const long long long_rows = static_cast<long long>(counts >> 32), chunks = static_cast<long long>(counts & 0xffffffffull);
    if (long_rows == 0) return w;

    Carver states;
    const long long count = chunks * r.heads, stat_count = r.softmax ? count : 0;
    const std::size_t at_max = states.reserve(stat_count, sizeof(S)), at_sum = states.reserve(stat_count, sizeof(S)),
                      at_acc = states.reserve(count * r.dz, sizeof(S));
    w.states = Workspace<std::byte>(exec, states.bytes());
    std::byte* state_base = w.states.data();
    found.max_chunks = chunks;
    found.partial_max = r.softmax ? reinterpret_cast<S*>(state_base + at_max) : nullptr;
    found.partial_sum = r.softmax ? reinterpret_cast<S*>(state_base + at_sum) : nullptr;
    found.partial_acc = reinterpret_cast<S*>(state_base + at_acc);
    split = found;
    const long long resident_blocks = static_cast<long long>(device.sm_count) * (device.max_threads_per_sm / fused::kCombineThreads);
    w.combine_blocks = std::max(1LL, std::min(long_rows * r.heads, resident_blocks));
    return w;
}

}  // namespace

template <class V, class I>
void fusedmm_forward(const Executor& exec, const FusedForwardArgs<V, I>& args, const std::string& config) {
    using T = device_t<V>;
    using S = accum_t<T>;
    check_config(config);
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
    k.rows = a.rows;
    k.row_ptr = a.row_ptr;
    k.col_idx = a.col_idx;
    k.a_values = reinterpret_cast<const T*>(a.values);
    k.x = x.data();
    k.ldx = x.ld();
    k.y = y.data();
    k.ldy = y.ld();
    k.z = z.data();
    k.ldz = z.ld();
    k.e = e.data();
    k.lde = e.ld();
    k.row_max = saved_data(args.row_max, "saved.row_max");
    k.row_sum = saved_data(args.row_sum, "saved.row_sum");
    k.argmax = saved_data(args.argmax, "saved.argmax");
    k.ld_argmax = args.argmax.ld;
    k.attention = reinterpret_cast<T*>(saved_data(args.attention, "saved.attention"));
    k.ld_attention = args.attention.ld;

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
        split = prepare_split<I, S>(exec, a.row_ptr, a.rows, a.nnz, k.rules, k.split);
    fused::launch_forward<T, I>(shape, o.aggregate == Aggregate::max, k,
                                ShapeChooser<T>::tiles(shape, args.dz, fused::forward_lane_elements(shape.vec)), stream);
    if (split.combine_blocks > 0) fused::launch_combine_chunks<T, I>(k, split.combine_blocks, stream);
    e.write_back(stream);
    // Workspaces are freed on return: wait for the kernels that read them.
    if (x.staged() || y.staged() || z.staged() || e.staged()) SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class V, class I>
void fusedmm_backward(const Executor& exec, const FusedBackwardArgs<V, I>& args, const std::string& config) {
    using T = device_t<V>;
    using S = accum_t<T>;
    check_config(config);
    const auto& a = args.a;
    const FusedOptions& o = args.options;
    const cudaStream_t stream = stream_of(exec);
    const bool uses_xy = o.score != Score::value, vector_score = fused::vector_score(o.score);
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
    Array<S> sigma;
    if (softmax && want_dy) sigma = Array<S>(exec, static_cast<std::size_t>(a.rows * o.heads));

    fused::BackwardKernelArgs<T, I, S> k;
    k.rules = rules_of(o, args.d, args.dz_width);
    k.recompute = backward_recomputes_score(o);
    k.use_saved = o.save_attention;
    k.rows = a.rows;
    k.cols = a.cols;
    k.row_ptr = a.row_ptr;
    k.col_idx = a.col_idx;
    k.a_values = reinterpret_cast<const T*>(a.values);
    k.de = de.data();
    k.ldde = de.ld();
    k.x = x.data();
    k.ldx = x.ld();
    k.y = y.data();
    k.ldy = y.ld();
    k.z = z.data();
    k.ldz = z.ld();
    k.row_max = saved_data(args.row_max, "saved.row_max");
    k.row_sum = saved_data(args.row_sum, "saved.row_sum");
    k.argmax = saved_data(args.argmax, "saved.argmax");
    k.ld_argmax = args.argmax.ld;
    k.attention = reinterpret_cast<const T*>(saved_data(args.attention, "saved.attention"));
    k.ld_attention = args.attention.ld;
    k.sigma = sigma.data();
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

    if (want_dx || want_da || k.sigma != nullptr)
        fused::launch_backward_rows<T, I>(shape, k, want_dx && vector_score ? ShapeChooser<T>::tiles(shape, args.d) : 1, stream);
    if (want_dy || want_dz) {
        const auto at = transposed_pattern<I>(exec, a.row_ptr, a.col_idx, a.rows, a.cols, a.nnz);
        k.col_ptr = at.col_ptr.data();
        k.t_row = at.row_idx.data();
        k.t_entry = at.entry.data();
        const long long tiles = std::max(want_dz ? ShapeChooser<T>::tiles(shape, args.dz_width) : 1,
                                         want_dy && vector_score ? ShapeChooser<T>::tiles(shape, args.d) : 1);
        fused::launch_backward_columns<T, I>(shape, k, tiles, stream);
        SPK_CUDA_CHECK(cudaStreamSynchronize(stream));  // Aᵀ's pattern is freed on return
    }
    dx.write_back(stream);
    dy.write_back(stream);
    dz.write_back(stream);
    // Workspaces are freed on return: wait for the kernels that read them.
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));
}

#define SPK_INSTANTIATE(V, I)                                                                          \
    template void fusedmm_forward(const Executor&, const FusedForwardArgs<V, I>&, const std::string&); \
    template void fusedmm_backward(const Executor&, const FusedBackwardArgs<V, I>&, const std::string&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
