// The strictly lower triangle L of an undirected graph's pattern, built on the device for
// triangle counting (the host builds the same L for the CPU backends: src/core/triangle_count.cpp).
// Vertices are ranked by decreasing degree, ties by number (a stable radix sort of the degrees),
// each off-diagonal entry (r, c) of G becomes (max(rank r, rank c), min(...)), rows are sorted and
// their repeats dropped, so L is the same whatever order G's entries come in.
// Passes: degrees (warp per row of G), ranks (radix sort), L's row counts, their scan, the scatter
// (a slot per entry from an atomic cursor per row), a segmented sort, then the repeats: counted,
// scanned into L's row_ptr, compacted. Stream-ordered, with two waits: L's size before the
// scatter, and count_triangles' total.
#include <cub/cub.cuh>

#include <bit>
#include <cstdint>
#include <limits>

#include "core/cuda_runtime.hpp"
#include "core/spgemm_kernels.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/prefix_sum.cuh"

namespace spk::detail::cuda {

namespace {

using spgemm::prefix_sum;
using spgemm::run_cub;
using spgemm::stream_of;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

unsigned warp_grid(long long rows) { return spgemm::grid_for(rows, kWarps); }  // a warp a row
unsigned thread_grid(long long items) { return spgemm::grid_for(items, kThreads); }

// Calls visit(r, c) for each off-diagonal entry (r, c) of G, a warp a row.
template <class I, class F>
__device__ __forceinline__ void for_each_off_diagonal(long long n, const I* row_ptr, const I* col, F&& visit) {
    const long long r = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    if (r >= n) return;
    for (long long q = row_ptr[r] + (threadIdx.x & 31); q < row_ptr[r + 1]; q += 32) {
        const long long c = col[q];
        if (c != r) visit(r, c);
    }
}

// Repeated edges count twice: the degree only orders the vertices.
template <class I>
__global__ void count_degrees(long long n, const I* row_ptr, const I* col, unsigned long long* degree) {
    unsigned long long own = 0;
    for_each_off_diagonal(n, row_ptr, col, [&](long long, long long c) {
        ++own;
        atomicAdd(degree + c, 1ull);
    });
    for (int o = 16; o > 0; o >>= 1) own += __shfl_xor_sync(0xffffffffu, own, o);
    const long long r = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    if ((threadIdx.x & 31) == 0 && r < n && own > 0) atomicAdd(degree + r, own);
}

template <class I>
__global__ void iota(long long n, I* out) {
    const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < n) out[k] = static_cast<I>(k);
}

template <class I>
__global__ void invert(long long n, const I* order, I* rank) {
    const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < n) rank[order[k]] = static_cast<I>(k);
}

template <class I>
__global__ void count_lower_rows(long long n, const I* row_ptr, const I* col, const I* rank, unsigned long long* count) {
    for_each_off_diagonal(n, row_ptr, col, [&](long long r, long long c) { atomicAdd(count + max(rank[r], rank[c]), 1ull); });
}

template <class I>
__global__ void scatter_lower(long long n, const I* row_ptr, const I* col, const I* rank, const long long* start,
                              unsigned long long* cursor, I* out) {
    for_each_off_diagonal(n, row_ptr, col, [&](long long r, long long c) {
        const I x = rank[r], y = rank[c];
        const I row = max(x, y);
        out[start[row] + static_cast<long long>(atomicAdd(cursor + row, 1ull))] = min(x, y);
    });
}

// Distinct columns of each sorted row, a warp a row.
template <class I>
__global__ void count_distinct(long long n, const long long* start, const I* sorted, unsigned long long* distinct) {
    const long long r = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    if (r >= n) return;
    unsigned long long own = 0;
    for (long long q = start[r] + (threadIdx.x & 31); q < start[r + 1]; q += 32) own += q == start[r] || sorted[q] != sorted[q - 1];
    for (int o = 16; o > 0; o >>= 1) own += __shfl_xor_sync(0xffffffffu, own, o);
    if ((threadIdx.x & 31) == 0) distinct[r] = own;
}

// Each row's distinct columns, in order, at L's row_ptr: a ballot a round of 32 entries.
template <class I>
__global__ void compact_distinct(long long n, const long long* start, const I* sorted, const I* lower_ptr, I* lower_col) {
    const long long r = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    if (r >= n) return;
    const int lane = static_cast<int>(threadIdx.x & 31);
    long long at = lower_ptr[r];
    for (long long q0 = start[r]; q0 < start[r + 1]; q0 += 32) {
        const long long q = q0 + lane;
        const bool keep = q < start[r + 1] && (q == start[r] || sorted[q] != sorted[q - 1]);
        const unsigned ballot = __ballot_sync(0xffffffffu, keep);
        if (keep) lower_col[at + __popc(ballot & ((1u << lane) - 1u))] = sorted[q];
        at += __popc(ballot);
    }
}

}  // namespace

template <class I>
std::uint64_t count_graph_triangles(const Executor& exec, index_t n, index_t nnz, const I* row_ptr, const I* col_idx) {
    const DeviceScope device_scope(exec.device());  // kernels launch on the current device
    if (n == 0 || nnz == 0) return 0;
    if (n > std::numeric_limits<int>::max() || nnz > std::numeric_limits<int>::max())
        unsupported("triangle_count on CUDA: more than 2^31 - 1 vertices or entries (the device's segmented sort takes int counts)");
    const cudaStream_t stream = stream_of(exec);

    // Ranks by (decreasing degree, vertex): the radix sort is stable and the vertices start in order.
    Workspace<unsigned long long> degree(exec, static_cast<std::size_t>(n)), sorted_degree(exec, static_cast<std::size_t>(n));
    SPK_CUDA_CHECK(cudaMemsetAsync(degree.data(), 0, sizeof(unsigned long long) * static_cast<std::size_t>(n), stream));
    count_degrees<I><<<warp_grid(n), kThreads, 0, stream>>>(n, row_ptr, col_idx, degree.data());
    SPK_CUDA_CHECK_LAUNCH();
    Workspace<I> vertices(exec, static_cast<std::size_t>(n)), order(exec, static_cast<std::size_t>(n)), rank(exec, static_cast<std::size_t>(n));
    iota<I><<<thread_grid(n), kThreads, 0, stream>>>(n, vertices.data());
    SPK_CUDA_CHECK_LAUNCH();
    const int degree_bits = std::bit_width(2 * static_cast<unsigned long long>(nnz));  // degrees are at most 2 nnz
    run_cub(exec, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, degree.data(), sorted_degree.data(), vertices.data(), order.data(),
                                               static_cast<int>(n), 0, degree_bits, stream);
    });
    invert<I><<<thread_grid(n), kThreads, 0, stream>>>(n, order.data(), rank.data());
    SPK_CUDA_CHECK_LAUNCH();

    // Each entry once in its row of L (repeats included), then each row sorted.
    Workspace<unsigned long long> counts(exec, static_cast<std::size_t>(n));
    SPK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, sizeof(unsigned long long) * static_cast<std::size_t>(n), stream));
    count_lower_rows<I><<<warp_grid(n), kThreads, 0, stream>>>(n, row_ptr, col_idx, rank.data(), counts.data());
    SPK_CUDA_CHECK_LAUNCH();
    Workspace<long long> start(exec, static_cast<std::size_t>(n) + 1);
    prefix_sum(exec, counts.data(), n, start.data());
    const long long total = spgemm::read_back(exec, start.data() + n, 1)[0];  // nnz less the diagonal's entries
    if (total == 0) return 0;
    SPK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, sizeof(unsigned long long) * static_cast<std::size_t>(n), stream));  // the cursors
    Workspace<I> entries(exec, static_cast<std::size_t>(total)), sorted(exec, static_cast<std::size_t>(total));
    scatter_lower<I><<<warp_grid(n), kThreads, 0, stream>>>(n, row_ptr, col_idx, rank.data(), start.data(), counts.data(), entries.data());
    SPK_CUDA_CHECK_LAUNCH();
    run_cub(exec, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceSegmentedSort::SortKeys(temp, bytes, entries.data(), sorted.data(), static_cast<int>(total), static_cast<int>(n),
                                                  start.data(), start.data() + 1, stream);
    });

    // Repeats dropped: L's row_ptr from the distinct counts, then its columns.
    count_distinct<I><<<warp_grid(n), kThreads, 0, stream>>>(n, start.data(), sorted.data(), counts.data());
    SPK_CUDA_CHECK_LAUNCH();
    Workspace<I> lower_ptr(exec, static_cast<std::size_t>(n) + 1), lower_col(exec, static_cast<std::size_t>(total));
    prefix_sum(exec, counts.data(), n, lower_ptr.data());
    compact_distinct<I><<<warp_grid(n), kThreads, 0, stream>>>(n, start.data(), sorted.data(), lower_ptr.data(), lower_col.data());
    SPK_CUDA_CHECK_LAUNCH();
    return count_triangles(exec, n, lower_ptr.data(), lower_col.data());
}

template std::uint64_t count_graph_triangles(const Executor&, index_t, index_t, const std::int32_t*, const std::int32_t*);
template std::uint64_t count_graph_triangles(const Executor&, index_t, index_t, const std::int64_t*, const std::int64_t*);

}  // namespace spk::detail::cuda
