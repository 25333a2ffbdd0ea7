// CUDA SpMM: plan-time analysis (features, configuration, row bins: one launch the plan does not
// wait for, completed on first use) and the run, which routes
// column-major operands through transposed workspaces and launches one kernel per row bin, or one
// for both bins when the long rows are split in the short rows' launch.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>

#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/gather.cuh"
#include "cuda/common/transpose.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/spmm/analysis.cuh"
#include "cuda/spmm/mp_kernel.cuh"
#include "cuda/spmm/rb_fused_kernel.cuh"
#include "cuda/spmm/rb_kernel.cuh"
#include "cuda/spmm/state.hpp"

namespace spk::detail::cuda {

template <class T, class I>
void launch_rb(const RbShape& s, Fold fold, const SpmmKernelArgs<T, I>& args, cudaStream_t stream);
template <class T, class I>
void launch_rb_split(const RbShape& s, const SpmmKernelArgs<T, I>& args, cudaStream_t stream);
template <class T, class I>
void launch_rb_fused(const RbShape& s, const SpmmKernelArgs<T, I>& args, const RbPieces<T, I>& pieces, cudaStream_t stream);
template <class T, class I>
void launch_eb(const RbShape& s, const SpmmKernelArgs<T, I>& args, long long rows, long long nnz, cudaStream_t stream);
template <class T, class I>
void launch_merge(int vec, int items, const SpmmKernelArgs<T, I>& args, const MergePathArgs<accum_t<T>, I>& m, long long rows,
                  long long nnz, cudaStream_t stream);
template <class I>
void launch_merge_lane_rows(const I* row_ptr, long long rows, long long nnz, long long items_per_lane, long long lanes, I* lane_rows,
                            cudaStream_t stream);

namespace {

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

unsigned blocks_for(long long work, int threads = 256) { return static_cast<unsigned>((work + threads - 1) / threads); }

// The arrays an analysis writes, in one pool allocation: the row bins, and the long rows' pieces
// sized by bounds the host knows before the launch: rows longer than threshold number at most
// nnz / (threshold + 1), and their pieces at most nnz / size + one a row.
template <class I>
PieceLists<I> place_arrays(const Executor& exec, index_t nnz, index_t rows, index_t threshold, index_t size, SpmmState& state) {
    PieceLists<I> p;
    p.size = size;
    p.max_long = size > 0 ? std::min<index_t>(rows, nnz / (threshold + 1)) : 0;
    p.max_pieces = size > 0 ? nnz / size + p.max_long : 0;
    const auto max_pieces = static_cast<std::size_t>(p.max_pieces);
    // The 8-byte arrays first, then the index arrays (8 or 4 bytes), then the 4-byte counts.
    const std::size_t first_at = sizeof(long long) * max_pieces;
    const std::size_t lists_at = first_at + sizeof(long long) * static_cast<std::size_t>(p.max_long);
    const std::size_t rows_at = lists_at + sizeof(I) * static_cast<std::size_t>(rows);
    const std::size_t arrivals_at = rows_at + sizeof(I) * max_pieces;
    state.arrays = Workspace<std::byte>(exec, arrivals_at + sizeof(unsigned) * max_pieces);
    std::byte* base = state.arrays.data();
    p.begin = reinterpret_cast<long long*>(base);
    p.first = reinterpret_cast<long long*>(base + first_at);
    p.rows = reinterpret_cast<I*>(base + rows_at);
    p.arrivals = reinterpret_cast<unsigned*>(base + arrivals_at);
    state.row_lists = base + lists_at;
    state.chunk_rows = reinterpret_cast<std::byte*>(p.rows);
    state.chunk_begin = p.begin;
    state.chunk_first = p.first;
    state.arrivals = p.arrivals;
    state.max_long = p.max_long;
    state.max_pieces = p.max_pieces;
    state.chunk = size;
    return p;
}

// One launch over row_ptr: the features, the row bins at `threshold` and, when piece_size > 0,
// the long rows cut into pieces of that many non-zeros. Nothing else is queued: the counts reach
// the host through state.counts, which read_counts waits for.
template <class I>
void launch_analysis(const Executor& exec, const I* row_ptr, index_t rows, index_t nnz, index_t threshold, index_t piece_size,
                     SpmmState& state) {
    static_assert(AnalysisSlots::blocks_done < CountSlot::capacity, "the analysis's counters fit in a count slot");
    const cudaStream_t stream = stream_of(exec);
    const PieceLists<I> pieces = place_arrays<I>(exec, nnz, rows, threshold, piece_size, state);
    if (rows == 0) {
        state.counts.clear();
        return;
    }
    analyse_rows<I><<<blocks_for(rows), 256, 0, stream>>>(row_ptr, rows, threshold, state.counts.device_counters(),
                                                          state.counts.host_counts_for_device(),
                                                          reinterpret_cast<I*>(state.row_lists), pieces);
    // Recorded before the launch check: a check that throws (a stale error of an earlier call)
    // leaves a queued kernel the slot must still wait for before it goes back to the free list.
    state.counts.record(stream);
    SPK_CUDA_CHECK_LAUNCH();
}

void read_counts(SpmmState& state) {
    const unsigned long long* host = state.counts.wait();
    for (int k = 0; k < length_buckets; ++k) state.features.log2_histogram[k] = static_cast<index_t>(host[AnalysisSlots::histogram + k]);
    state.features.max_row = static_cast<index_t>(host[AnalysisSlots::max_row]);
    state.num_short = static_cast<index_t>(host[AnalysisSlots::num_short]);
    state.num_long = static_cast<index_t>(host[AnalysisSlots::num_long]);
    state.num_chunks = static_cast<index_t>(host[AnalysisSlots::num_pieces]);
    // The arrays were sized by bounds that hold for a valid row pointer (row lengths adding up to
    // nnz); the kernel writes nothing past them, and counts past them mean A's row_ptr is not one.
    if (state.num_short + state.num_long != state.features.rows || (state.chunk > 0 && state.num_long > state.max_long) ||
        state.num_chunks > state.max_pieces)
        invalid_argument("spmm: A's row_ptr is not a valid CSR row pointer (row lengths do not add up to nnz = " +
                         std::to_string(state.features.nnz) + ")");
}

// The non-zeros a work item of a split takes: pieces of rb_piece_warps chunks of the threshold
// for the one-launch split (a block's work, a warp's the two-launch split's chunk), else a chunk.
index_t split_piece_size(const SpmmConfig& c) {
    if (!c.split_long) return 0;
    return c.long_threshold * (splits_in_one_launch(c) ? rb_piece_warps : 1);
}

// The state once its analysis has come back: the first caller waits for the counts and completes
// it, the others (any thread) wait for that caller. spmm_analyse made the state non-const, and
// after call_once nothing changes it: the cast only finishes building it.
const SpmmState& ready(const SpmmState& state) {
    std::call_once(state.completed, [&] {
        auto& building = const_cast<SpmmState&>(state);
        building.complete(building);
    });
    return state;
}

// Sum launches of at most this many warps take the wide kernels (rb_kernel.cuh): those that fit
// the device at once, and at n = 128 to 511 four times as many. Measured on the H200 at n = 128
// (stop 31, limits interleaved A/B/A/B/A/B, the fastest of three runs; 16896 warps over 4224):
// p2p-Gnutella08 0.82, ca-GrQc 0.84, rajat01 0.86, bcsstk33 0.86, chameleon 0.88, ca-HepTh 0.88,
// web-spam 0.95, bcsstk16 1.15, cora 1.14, geomean 0.96 over 18 small and mid-size matrices whose
// launches it moves or could (three tiny ones, wide either way, left out). At n = 32 no net gain
// (geomean 1.00: pubmed 0.92, wiki-Vote 0.90, ca-HepPh 0.92; squirrel 1.11, Slashdot 1.04). At
// n = 256 geomean 0.98 (cora 0.85, p2p-Gnutella08 0.91, ca-GrQc 0.92; bcsstk16 1.05); n = 512 not measured. SPK_SPMM_WIDE_WARPS overrides it (0: never), for A/B runs of the rule.
long long wide_warp_limit(const Executor& exec, index_t n) {
    static const long long forced = [] {
        const char* v = std::getenv("SPK_SPMM_WIDE_WARPS");
        return v ? std::atoll(v) : -1LL;
    }();
    if (forced >= 0) return forced;
    const long long fit = static_cast<long long>(device_properties(exec.device()).sm_count) * rb_wide_resident_warps;
    return n >= 128 && n < 512 ? 4 * fit : fit;
}

bool aligned_for(const void* p, index_t ld, int vec, std::size_t elem) {
    return reinterpret_cast<std::uintptr_t>(p) % (static_cast<std::size_t>(vec) * elem) == 0 && ld % vec == 0;
}

// The same column lanes and reduction group without vector loads (for misaligned B).
RbShape scalar_shape(const RbShape& s) {
    for (const auto& c : compiled_rb_shapes())
        if (c.vec == 1 && c.g == s.g && c.r == s.r) return c;
    return s.r > 1 ? RbShape{32, 32, 1} : RbShape{32, 1, 1};
}

// The merge-path arrays in state.merge: lane_rows (one a lane of every block, and one more, of
// the index type), then the slots (2 x blocks x n accumulators, value_bytes each: merge paths are
// f32 or f64), then the arrivals (blocks x tiles, sized for tiles of one column: unaligned B runs
// the scalar form).
struct MergeLayout {
    std::size_t slots_at, arrivals_at, bytes;
};
MergeLayout merge_layout(const SpmmState& s, std::size_t index_bytes) {
    const auto blocks = static_cast<std::size_t>(s.merge_blocks), n = static_cast<std::size_t>(s.features.n);
    const std::size_t slots_at = (index_bytes * (merge_block_lanes * blocks + 1) + 15) / 16 * 16;
    const std::size_t arrivals_at = slots_at + 2 * blocks * n * static_cast<std::size_t>(s.features.value_bytes);
    return {slots_at, arrivals_at, arrivals_at + sizeof(unsigned) * blocks * n};
}

// Queues what a merge-path plan keeps: each lane's first row (a search a lane) and zeroed arrivals.
template <class I>
void prepare_merge(const Executor& exec, const I* row_ptr, SpmmState& s) {
    const long long items_per_lane = s.config.chunk, items_per_block = merge_block_lanes * items_per_lane;
    s.merge_blocks = (s.features.rows + s.features.nnz + items_per_block - 1) / items_per_block;
    const MergeLayout layout = merge_layout(s, sizeof(I));
    s.merge = Workspace<std::byte>(exec, layout.bytes);
    const cudaStream_t stream = stream_of(exec);
    SPK_CUDA_CHECK(cudaMemsetAsync(s.merge.data() + layout.arrivals_at, 0, layout.bytes - layout.arrivals_at, stream));
    launch_merge_lane_rows<I>(row_ptr, s.features.rows, s.features.nnz, items_per_lane, merge_block_lanes * s.merge_blocks,
                              reinterpret_cast<I*>(s.merge.data()), stream);
}

template <class T, class I>
void run_merge(const Executor& exec, const SpmmState& state, const SpmmKernelArgs<T, I>& kargs, bool vector_ok) {
    using A = accum_t<T>;
    const int vec = vector_ok ? state.config.shape.vec : 1;
    const MergeLayout layout = merge_layout(state, sizeof(I));
    std::byte* base = state.merge.data();  // the run's scratch, owned by the plan
    const auto blocks = static_cast<std::size_t>(state.merge_blocks), n = static_cast<std::size_t>(state.features.n);
    const MergePathArgs<A, I> m{reinterpret_cast<const I*>(base),
                                state.merge_blocks,
                                (kargs.n + vec - 1) / vec,
                                reinterpret_cast<A*>(base + layout.slots_at),
                                reinterpret_cast<A*>(base + layout.slots_at) + blocks * n,
                                reinterpret_cast<unsigned*>(base + layout.arrivals_at)};
    launch_merge<T, I>(vec, static_cast<int>(state.config.chunk), kargs, m, state.features.rows, state.features.nnz, stream_of(exec));
}

// Long rows cut into chunks: the chunks' parts meet in C through atomic adds after C's long rows
// are scaled by beta, or, when the plan is deterministic, through partial sums that
// combine_chunks adds in chunk order.
template <class T, class I>
void run_split(const Executor& exec, const SpmmState& state, SpmmKernelArgs<T, I> kargs, const RbShape& shape) {
    const cudaStream_t stream = stream_of(exec);
    const long long n = kargs.n;
    const auto grid = [](long long work) { return static_cast<unsigned>(std::min<long long>((work + 255) / 256, 65535)); };
    // A workspace of the call's own, unlike the one-launch split's: the split kernel writes it and
    // combine_chunks reads it, and another thread's run of the plan may queue its kernels between.
    Workspace<accum_t<T>> partial;
    if (state.deterministic) {
        partial = Workspace<accum_t<T>>(exec, static_cast<std::size_t>(state.num_chunks * n));
        kargs.partial = partial.data();
    } else if (state.num_long > 0) {
        scale_rows<T, I><<<grid(state.num_long * n), 256, 0, stream>>>(state.long_rows<I>(), state.num_long, kargs.c, kargs.ldc, n,
                                                                       kargs.beta);
        SPK_CUDA_CHECK_LAUNCH();
    }
    kargs.row_list = reinterpret_cast<const I*>(state.chunk_rows);
    kargs.num_rows = state.num_chunks;
    kargs.chunk_begin = state.chunk_begin;
    kargs.chunk = state.chunk;
    launch_rb_split<T, I>(shape, kargs, stream);
    if (state.deterministic && state.num_long > 0) {
        combine_chunks<T, I><<<grid(state.num_long * n), 256, 0, stream>>>(kargs.row_ptr, state.long_rows<I>(), state.num_long,
                                                                           state.long_first(), state.chunk, partial.data(), kargs.c,
                                                                           kargs.ldc, n, kargs.beta);
        SPK_CUDA_CHECK_LAUNCH();
    }
}

// Short rows and pieces of long rows in one launch: no scaling of C, no atomics on C, and no
// order that depends on timing. Rows of more than one piece meet in partial sums.
template <class T, class I>
void run_one_launch(const Executor& exec, const SpmmState& state, SpmmKernelArgs<T, I> kargs, const RbShape& shape) {
    kargs.row_list = state.short_rows<I>();
    kargs.num_rows = state.num_short;
    const RbPieces<T, I> pieces{reinterpret_cast<const I*>(state.chunk_rows), state.chunk_begin, state.num_chunks, state.chunk,
                                reinterpret_cast<accum_t<T>*>(state.partial.data()), state.arrivals};
    launch_rb_fused<T, I>(shape, kargs, pieces, stream_of(exec));
}

}  // namespace

template <class V, class I>
std::shared_ptr<const SpmmState> spmm_analyse(const Executor& exec, CsrView<const V, I> a, index_t n, const SpmmOptions& options) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    auto state = std::make_shared<SpmmState>();
    SpmmFeatures& f = state->features;
    f.rows = a.rows;
    f.cols = a.cols;
    f.nnz = a.nnz;
    f.n = n;
    f.value_bytes = static_cast<int>(sizeof(V));
    f.split_allowed = (options.reduce == Reduce::sum || options.reduce == Reduce::mean) && sizeof(V) >= 4;
    state->deterministic = options.deterministic;
    // An explicit configuration is known before the analysis and cuts the bins at its own
    // threshold. Otherwise the bins are cut where the selector will cut them (the threshold
    // depends on rows and nnz only), with the pieces of the split the selector picks where the
    // reduction allows one (a full warp over the short rows' tile: one launch), so that one pass
    // serves both. The selector needs the counts, so it runs on first use (complete, below); a
    // pick that differs re-cuts there, waiting once more.
    if (!options.config.empty()) {
        state->config = parse_spmm_config(options.config);
        if (state->config.split_long && !f.split_allowed)
            invalid_argument("spmm config '" + options.config + "': split long rows need sum or mean in f32 or f64");
        if (state->config.edge_based && (!f.split_allowed || options.deterministic))
            invalid_argument("spmm config '" + options.config +
                             "': edge-based kernels add rows across chunks atomically: they need sum or mean in f32 or f64, and deterministic = false");
        if (state->config.merge_path && !f.split_allowed)
            invalid_argument("spmm config '" + options.config + "': merge-path kernels need sum or mean in f32 or f64");
    }
    const bool selects = options.config.empty();
    const index_t threshold = !selects && state->config.long_shape ? state->config.long_threshold : long_row_threshold(f);
    const index_t piece_size = selects ? (f.split_allowed ? threshold * rb_piece_warps : 0) : split_piece_size(state->config);
    state->counts = CountSlot(exec.device(), stream_of(exec));
    launch_analysis<I>(exec, a.row_ptr, a.rows, a.nnz, threshold, piece_size, *state);
    state->complete = [exec, a, threshold, piece_size, selects](SpmmState& s) {
        const DeviceScope device_scope(exec.device());  // it may launch the analysis again
        read_counts(s);
        if (selects) {
            s.config = select_spmm_config(s.features);
            const SpmmConfig& c = s.config;
            if (c.long_shape && (c.long_threshold != threshold || (c.split_long && split_piece_size(c) != piece_size))) {
                launch_analysis<I>(exec, a.row_ptr, a.rows, a.nnz, c.long_threshold, split_piece_size(c), s);
                read_counts(s);
            }
        }
        s.one_launch = splits_in_one_launch(s.config);
        if (s.config.merge_path) prepare_merge<I>(exec, a.row_ptr, s);
        // The one-launch split's partial sums: value_bytes is the accumulator's size, splits being f32 or f64.
        if (s.one_launch && s.num_chunks > s.num_long)
            s.partial = Workspace<std::byte>(exec, static_cast<std::size_t>(s.num_chunks * s.features.n * s.features.value_bytes));
    };
    return state;
}

std::string spmm_describe(const SpmmState& state) { return to_string(ready(state).config); }
const SpmmFeatures& spmm_features(const SpmmState& state) { return ready(state).features; }

template <class V, class I>
void spmm(const Executor& exec, const SpmmState& plan, const SpmmArgs<V, I>& args) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    const SpmmState& state = ready(plan);
    using T = device_t<V>;
    using A = accum_t<T>;
    const cudaStream_t stream = stream_of(exec);
    const index_t rows = args.a.rows, k = args.a.cols, n = args.c.cols;
    if (rows == 0 || n == 0) return;

    // Column-major operands go through row-major workspaces.
    const T* b = reinterpret_cast<const T*>(args.b.data);
    index_t ldb = args.b.ld;
    Workspace<T> b_rm, c_rm;
    if (args.b.layout == Layout::col_major && k > 0) {
        b_rm = Workspace<T>(exec, static_cast<std::size_t>(k * n));
        transpose<T>(b, n, k, args.b.ld, b_rm.data(), n, stream);
        b = b_rm.data();
        ldb = n;
    }
    check_gather_stride("spmm", "b", ldb, sizeof(T));  // the row kernels gather B's rows (cuda/common/gather.cuh)
    if (state.features.max_row > std::numeric_limits<int>::max())  // and count a row's non-zeros in 32 bits
        unsupported("spmm on CUDA: a row of A holds " + std::to_string(state.features.max_row) +
                    " non-zeros; the kernels take rows of at most 2^31 - 1");
    T* c = reinterpret_cast<T*>(args.c.data);
    index_t ldc = args.c.ld;
    const bool c_transposed = args.c.layout == Layout::col_major;
    if (c_transposed) {
        c_rm = Workspace<T>(exec, static_cast<std::size_t>(rows * n));
        if (args.beta != 0.0) transpose<T>(c, n, rows, args.c.ld, c_rm.data(), n, stream);
        c = c_rm.data();
        ldc = n;
    }

    I* arg = args.arg.data;
    index_t ldarg = args.arg.ld;
    Workspace<I> arg_rm;
    if (arg && args.arg.layout == Layout::col_major) {
        arg_rm = Workspace<I>(exec, static_cast<std::size_t>(rows * n));
        arg = arg_rm.data();
        ldarg = n;
    }

    const auto finish = [&] {
        if (c_transposed) transpose<T>(c, rows, n, n, reinterpret_cast<T*>(args.c.data), args.c.ld, stream);
        if (!arg_rm.empty()) transpose<I>(arg, rows, n, n, args.arg.data, args.arg.ld, stream);
        // The workspaces go back to the pool on this stream, after these kernels: no wait.
    };
    SpmmKernelArgs<T, I> kargs{args.a.row_ptr,
                               args.a.col_idx,
                               reinterpret_cast<const T*>(args.a.values),
                               b,
                               ldb,
                               c,
                               ldc,
                               arg,
                               ldarg,
                               nullptr,
                               rows,
                               nullptr,
                               0,
                               n,
                               static_cast<A>(args.alpha),
                               static_cast<A>(args.beta),
                               args.reduce == Reduce::mean,
                               nullptr,
                               wide_warp_limit(exec, n)};
    const Fold fold = args.reduce == Reduce::max ? Fold::max : args.reduce == Reduce::min ? Fold::min : Fold::sum;
    const bool vector_ok = aligned_for(b, ldb, state.config.shape.vec, sizeof(T)) &&
                           (!state.config.long_shape || aligned_for(b, ldb, state.config.long_shape->vec, sizeof(T)));
    const auto shape_for = [&](const RbShape& s) { return vector_ok ? s : scalar_shape(s); };
    if constexpr (sizeof(T) >= 4) {
        if (state.config.merge_path) {
            run_merge<T, I>(exec, state, kargs, vector_ok);
            return finish();
        }
        if (state.config.edge_based) {
            const RbShape& s = state.config.shape;
            // Unaligned B: the scalar shape of the same kind (EB+PR keeps its group; EB+SR one as wide).
            const RbShape eb = vector_ok ? s : s.r > 1 ? RbShape{s.g, s.r, 1} : RbShape{s.g * s.vec <= 8 ? 8 : 32, 1, 1};
            kargs.chunk = state.config.chunk;
            kargs.num_rows = (args.a.nnz + kargs.chunk - 1) / kargs.chunk;
            launch_eb<T, I>(eb, kargs, rows, args.a.nnz, stream);
            return finish();
        }
    }
    if (!state.config.long_shape) {
        launch_rb<T, I>(shape_for(state.config.shape), fold, kargs, stream);
        return finish();
    }
    if constexpr (sizeof(T) >= 4) {
        if (state.one_launch) {
            const RbShape s = shape_for(state.config.shape);
            if (shape_for(*state.config.long_shape) == one_launch_long_shape(s)) {
                run_one_launch(exec, state, kargs, s);
                return finish();
            }
        }
    }
    kargs.row_list = state.short_rows<I>();
    kargs.num_rows = state.num_short;
    launch_rb<T, I>(shape_for(state.config.shape), fold, kargs, stream);
    if constexpr (sizeof(T) >= 4) {
        if (state.config.split_long) {
            run_split(exec, state, kargs, shape_for(*state.config.long_shape));
            return finish();
        }
    }
    kargs.row_list = state.long_rows<I>();
    kargs.num_rows = state.num_long;
    launch_rb<T, I>(shape_for(*state.config.long_shape), fold, kargs, stream);
    finish();
}

#define SPK_INSTANTIATE(V, I)                                                                                                  \
    template std::shared_ptr<const SpmmState> spmm_analyse(const Executor&, CsrView<const V, I>, index_t, const SpmmOptions&); \
    template void spmm(const Executor&, const SpmmState&, const SpmmArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
