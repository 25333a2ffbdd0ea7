// CUDA SpMM: plan-time analysis (features, configuration, row bins) and the run, which routes
// column-major operands through transposed workspaces and launches one kernel per row bin.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/transpose.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/spmm/analysis.cuh"
#include "cuda/spmm/rb_kernel.cuh"
#include "cuda/spmm/state.hpp"

namespace spk::detail::cuda {

template <class T, class I>
void launch_rb(const RbShape& s, Fold fold, const SpmmKernelArgs<T, I>& args, cudaStream_t stream);
template <class T, class I>
void launch_rb_split(const RbShape& s, const SpmmKernelArgs<T, I>& args, cudaStream_t stream);

namespace {

cudaStream_t stream_of(const Executor& exec) { return static_cast<cudaStream_t>(exec.stream()); }

template <class I>
SpmmFeatures measure_features(const Executor& exec, const I* row_ptr, index_t rows) {
    SpmmFeatures f;
    Array<unsigned long long> counters(exec, length_buckets + 1);
    SPK_CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, sizeof(unsigned long long) * (length_buckets + 1), stream_of(exec)));
    if (rows > 0) {
        const long long blocks = std::min<long long>((rows + 255) / 256, 4096);
        row_length_histogram<I>
            <<<static_cast<unsigned>(blocks), 256, 0, stream_of(exec)>>>(row_ptr, rows, counters.data(), counters.data() + length_buckets);
        SPK_CUDA_CHECK_LAUNCH();
    }
    unsigned long long host[length_buckets + 1];
    SPK_CUDA_CHECK(cudaMemcpyAsync(host, counters.data(), sizeof(host), cudaMemcpyDeviceToHost, stream_of(exec)));
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    for (int k = 0; k < length_buckets; ++k) f.log2_histogram[k] = static_cast<index_t>(host[k]);
    f.max_row = static_cast<index_t>(host[length_buckets]);
    return f;
}

template <class I>
void bin_rows(const Executor& exec, const I* row_ptr, index_t rows, SpmmState& state) {
    state.short_rows = Array<std::byte>(exec, sizeof(I) * static_cast<std::size_t>(rows));
    state.long_rows = Array<std::byte>(exec, sizeof(I) * static_cast<std::size_t>(rows));
    Array<unsigned long long> counters(exec, 2);
    SPK_CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, 2 * sizeof(unsigned long long), stream_of(exec)));
    split_rows<I><<<static_cast<unsigned>((rows + 255) / 256), 256, 0, stream_of(exec)>>>(
        row_ptr, rows, state.config.long_threshold, reinterpret_cast<I*>(state.short_rows.data()),
        reinterpret_cast<I*>(state.long_rows.data()), counters.data());
    SPK_CUDA_CHECK_LAUNCH();
    unsigned long long host[2];
    SPK_CUDA_CHECK(cudaMemcpyAsync(host, counters.data(), sizeof(host), cudaMemcpyDeviceToHost, stream_of(exec)));
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    state.num_short = static_cast<index_t>(host[0]);
    state.num_long = static_cast<index_t>(host[1]);
}

// Cuts each long row into chunks of config.long_threshold non-zeros. Long rows are few (at most
// nnz / threshold), so their ranges come to the host and the chunk list goes back.
template <class I>
void chunk_long_rows(const Executor& exec, const I* row_ptr, SpmmState& state) {
    const index_t count = state.num_long;
    Array<long long> begin(exec, static_cast<std::size_t>(count)), end(exec, static_cast<std::size_t>(count));
    if (count > 0) {
        gather_row_ranges<I><<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream_of(exec)>>>(
            row_ptr, reinterpret_cast<const I*>(state.long_rows.data()), count, begin.data(), end.data());
        SPK_CUDA_CHECK_LAUNCH();
    }
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream_of(exec)));
    const std::vector<long long> b = begin.to_vector(), e = end.to_vector();
    std::vector<I> rows;
    std::vector<I> long_rows(static_cast<std::size_t>(count));
    copy_bytes(long_rows.data(), MemorySpace::host(), state.long_rows.data(), state.long_rows.space(), sizeof(I) * long_rows.size());
    std::vector<long long> starts;
    const long long chunk = state.config.long_threshold;
    for (index_t k = 0; k < count; ++k)
        for (long long p = b[k]; p < e[k]; p += chunk) {
            rows.push_back(long_rows[k]);
            starts.push_back(p);
        }
    state.num_chunks = static_cast<index_t>(rows.size());
    state.chunk_rows =
        Array<std::byte>(exec, std::span<const std::byte>(reinterpret_cast<const std::byte*>(rows.data()), rows.size() * sizeof(I)));
    state.chunk_begin = Array<long long>(exec, starts);
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

}  // namespace

template <class V, class I>
std::shared_ptr<const SpmmState> spmm_analyse(const Executor& exec, CsrView<const V, I> a, index_t n, const SpmmOptions& options) {
    auto state = std::make_shared<SpmmState>();
    state->features = measure_features<I>(exec, a.row_ptr, a.rows);
    state->features.rows = a.rows;
    state->features.cols = a.cols;
    state->features.nnz = a.nnz;
    state->features.n = n;
    state->features.value_bytes = static_cast<int>(sizeof(V));
    state->features.atomics_allowed =
        (options.reduce == Reduce::sum || options.reduce == Reduce::mean) && !options.deterministic && sizeof(V) >= 4;
    state->config = options.config.empty() ? select_spmm_config(state->features) : parse_spmm_config(options.config);
    if (state->config.split_long && !state->features.atomics_allowed)
        invalid_argument("spmm config '" + options.config + "': split long rows need sum or mean, f32 or f64, and deterministic = false");
    if (state->config.long_shape) bin_rows<I>(exec, a.row_ptr, a.rows, *state);
    if (state->config.split_long) chunk_long_rows<I>(exec, a.row_ptr, *state);
    return state;
}

std::string spmm_describe(const SpmmState& state) { return to_string(state.config); }
const SpmmFeatures& spmm_features(const SpmmState& state) { return state.features; }

template <class V, class I>
void spmm(const Executor& exec, const SpmmState& state, const SpmmArgs<V, I>& args) {
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
                               args.reduce == Reduce::mean};
    const Fold fold = args.reduce == Reduce::max ? Fold::max : args.reduce == Reduce::min ? Fold::min : Fold::sum;
    const bool vector_ok = aligned_for(b, ldb, state.config.shape.vec, sizeof(T)) &&
                           (!state.config.long_shape || aligned_for(b, ldb, state.config.long_shape->vec, sizeof(T)));
    const auto shape_for = [&](const RbShape& s) { return vector_ok ? s : scalar_shape(s); };
    if (!state.config.long_shape)
        launch_rb<T, I>(shape_for(state.config.shape), fold, kargs, stream);
    else {
        kargs.row_list = reinterpret_cast<const I*>(state.short_rows.data());
        kargs.num_rows = state.num_short;
        launch_rb<T, I>(shape_for(state.config.shape), fold, kargs, stream);
        if constexpr (sizeof(T) >= 4) {
            if (state.config.split_long) {
                if (state.num_long > 0) {
                    const long long total = state.num_long * n;
                    scale_rows<T><<<static_cast<unsigned>(std::min<long long>((total + 255) / 256, 65535)), 256, 0, stream>>>(
                        state.long_rows.data(), sizeof(I) == 8, state.num_long, c, ldc, n, static_cast<A>(args.beta));
                    SPK_CUDA_CHECK_LAUNCH();
                }
                kargs.row_list = reinterpret_cast<const I*>(state.chunk_rows.data());
                kargs.num_rows = state.num_chunks;
                kargs.chunk_begin = state.chunk_begin.data();
                kargs.chunk = state.config.long_threshold;
                launch_rb_split<T, I>(shape_for(*state.config.long_shape), kargs, stream);
                return finish();
            }
        }
        kargs.row_list = reinterpret_cast<const I*>(state.long_rows.data());
        kargs.num_rows = state.num_long;
        launch_rb<T, I>(shape_for(*state.config.long_shape), fold, kargs, stream);
    }
    finish();
}

#define SPK_INSTANTIATE(V, I)                                                                                                  \
    template std::shared_ptr<const SpmmState> spmm_analyse(const Executor&, CsrView<const V, I>, index_t, const SpmmOptions&); \
    template void spmm(const Executor&, const SpmmState&, const SpmmArgs<V, I>&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail::cuda
