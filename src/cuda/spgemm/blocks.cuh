#pragma once
// The symbolic side of block products (BlockProduct in state.hpp): whether A and B consist of
// dense blocks, their block patterns, and C's row_ptr from its block row_ptr. The numeric side is
// block_numeric.cuh.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "core/block_sizes.hpp"
#include "core/spgemm_kernels.hpp"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/state.hpp"

namespace spk::detail::cuda::spgemm {

// The block sizes tried, bit i of a size mask standing for block_size_at(i). A block product pays
// for its detection and a symbolic phase of its own, so it takes at least kMinBlockProducts
// scalar products a block product.
// block_size_at spells kDenseBlockSizes out for device code, which cannot index a host array.
inline constexpr int kBlockSizeCount = static_cast<int>(kDenseBlockSizes.size());
__host__ __device__ constexpr int block_size_at(int i) { return i < 3 ? i + 2 : 6; }  // 2, 3, 4, 6
static_assert(kBlockSizeCount == 4 && block_size_at(0) == kDenseBlockSizes[0] && block_size_at(1) == kDenseBlockSizes[1] &&
              block_size_at(2) == kDenseBlockSizes[2] && block_size_at(3) == kDenseBlockSizes[3]);
inline constexpr int kMaxBlockSize = kDenseBlockSizes.back();
inline constexpr int kMinBlockProducts = 8;
// A warp holds a block row of C in shared memory (values and block columns), four warps a thread
// block up to kBlockRowBytes a warp; past that a warp a thread block (fewer rows in flight: an AMG
// R·A's block rows of 343 blocks of 6 x 3 take 51 KB in f64), and past kLargeBlockRowBytes the
// product stays scalar.
inline constexpr long long kBlockRowBytes = 24 * 1024;
inline constexpr long long kLargeBlockRowBytes = 64 * 1024;
// Block places (BlockProduct::places) are 16-bit: a block row of C holds fewer blocks than that
// (its smallest blocks, 2 x 2 in f32 with a 32-bit column, take 20 bytes).
static_assert(kLargeBlockRowBytes / (4 * sizeof(float) + sizeof(std::int32_t)) < 65536);

// The largest size in mask (1 for none).
inline int largest_block_size(unsigned mask) {
    int size = 1;
    for (int i = 0; i < kBlockSizeCount; ++i)
        if (mask >> i & 1u) size = std::max(size, block_size_at(i));
    return size;
}

// A warp a row of M (lanes over its entries) marks dead, in dead[0], the sizes s of group_bits for
// which the row differs from the first row of its group of s (in length or any column), and in
// dead[1] those of run_bits for which its columns are not runs of s consecutive columns, each
// starting at a multiple of s and after the run before. A lane marks a size as soon as it finds it
// wrong, and every warp stops once no size is left: a matrix without blocks (most of them) costs
// a few rows, not a pass. dead: two zeroed words.
template <class I>
__global__ void check_block_sizes(const I* ptr, const I* col, long long rows, unsigned group_bits, unsigned run_bits, unsigned* dead) {
    const volatile unsigned* seen = dead;
    unsigned groups = group_bits, runs = run_bits;
    const int lane = static_cast<int>(threadIdx.x & 31);
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
    for (long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; row < rows; row += warps) {
        groups &= ~seen[0];
        runs &= ~seen[1];
        if ((groups | runs) == 0) break;
        const unsigned groups_before = groups, runs_before = runs;
        const long long begin = ptr[row], len = ptr[row + 1] - begin;
        long long first_begin[kBlockSizeCount];
        for (int i = 0; i < kBlockSizeCount; ++i) {
            const int s = block_size_at(i);
            const long long first = row - row % s;
            first_begin[i] = ptr[first];
            if (ptr[first + 1] - first_begin[i] != len) groups &= ~(1u << i);
            if (len % s != 0) runs &= ~(1u << i);
        }
        for (long long q = lane; q < len && (groups | runs); q += 32) {
            const long long c = col[begin + q], before = q > 0 ? static_cast<long long>(col[begin + q - 1]) : -1;
            for (int i = 0; i < kBlockSizeCount; ++i) {
                const int s = block_size_at(i);
                if ((groups >> i & 1u) && col[first_begin[i] + q] != c) groups &= ~(1u << i);
                const bool run_ok = q % s == 0 ? c % s == 0 && c > before : c == before + 1;
                if (!run_ok) runs &= ~(1u << i);
            }
        }
        if (groups != groups_before) atomicOr(&dead[0], groups_before & ~groups);
        if (runs != runs_before) atomicOr(&dead[1], runs_before & ~runs);
    }
}

// The sizes that divide count.
inline unsigned dividing_sizes(long long count) {
    unsigned bits = 0;
    for (int i = 0; i < kBlockSizeCount; ++i)
        if (count % block_size_at(i) == 0) bits |= 1u << i;
    return bits;
}

// The block shape of A·B, or none (a mask, empty operands, no sizes that fit, or fewer than
// kMinBlockProducts scalar products a block product). One small kernel a matrix and one
// synchronisation.
template <class V, class I>
std::optional<BlockShape> detect_block_shape(const Executor& exec, const SpgemmProblem<V, I>& p) {
    if (!p.detect_blocks || p.mask || p.a.nnz == 0 || p.b.nnz == 0) return std::nullopt;
    const unsigned a_groups = dividing_sizes(p.a.rows);
    const unsigned inner = dividing_sizes(p.a.cols) & dividing_sizes(p.a.nnz) & dividing_sizes(p.b.nnz);
    const unsigned b_runs = dividing_sizes(p.b.cols) & dividing_sizes(p.b.nnz);
    if (largest_block_size(a_groups) * largest_block_size(inner) * largest_block_size(b_runs) < kMinBlockProducts) return std::nullopt;
    // dead sizes: A's groups, A's runs, B's groups, B's runs (A·A: one pass over A for all four)
    const bool same = p.a.row_ptr == p.b.row_ptr && p.a.col_idx == p.b.col_idx;
    Workspace<unsigned> dead(exec, 4);
    const cudaStream_t stream = stream_of(exec);
    SPK_CUDA_CHECK(cudaMemsetAsync(dead.data(), 0, 4 * sizeof(unsigned), stream));
    constexpr int threads = 256;
    const auto grid = [](long long rows) { return std::min(grid_for(rows, threads / 32), 8192u); };  // a warp a row
    check_block_sizes<<<grid(p.a.rows), threads, 0, stream>>>(p.a.row_ptr, p.a.col_idx, p.a.rows, same ? a_groups | inner : a_groups,
                                                               same ? inner | b_runs : inner, dead.data());
    SPK_CUDA_CHECK_LAUNCH();
    if (!same) {
        check_block_sizes<<<grid(p.b.rows), threads, 0, stream>>>(p.b.row_ptr, p.b.col_idx, p.b.rows, inner, b_runs, dead.data() + 2);
        SPK_CUDA_CHECK_LAUNCH();
    }
    const std::vector<unsigned> out = read_back(exec, dead.data(), 4);
    const unsigned a_rows_ok = ~out[0], a_cols_ok = ~out[1], b_rows_ok = same ? a_rows_ok : ~out[2], b_cols_ok = same ? a_cols_ok : ~out[3];
    const std::vector<unsigned> found{a_groups & a_rows_ok, inner & a_cols_ok, inner & b_rows_ok, b_runs & b_cols_ok};
    BlockShape shape{largest_block_size(found[0]), largest_block_size(found[1] & found[2]), largest_block_size(found[3])};
    if (shape.br * shape.bk * shape.bc < kMinBlockProducts) return std::nullopt;
    return shape;
}

// M's block pattern (rows in groups of g, columns in runs of s): a thread a block row.
template <class I>
__global__ void gather_block_pattern(const I* ptr, const I* col, long long block_rows, int g, int s, I* block_ptr, I* block_col) {
    const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= block_rows) return;
    const long long begin = ptr[row * g], blocks = (ptr[row * g + 1] - begin) / s, out = begin / (static_cast<long long>(g) * s);
    block_ptr[row] = static_cast<I>(out);
    if (row == block_rows - 1) block_ptr[block_rows] = static_cast<I>(out + blocks);
    for (long long j = 0; j < blocks; ++j) block_col[out + j] = static_cast<I>(col[begin + j * s] / s);
}

// C's row_ptr from its block row_ptr: row br I + r starts after the blocks of the block rows
// before I and r of I's rows.
template <class I>
__global__ void expand_row_ptr(const I* block_ptr, long long rows, int br, int bc, I* row_ptr) {
    const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row > rows) return;
    const long long block_row = row / br, r = row % br, cells = static_cast<long long>(br) * bc;
    const long long begin = block_ptr[block_row];
    row_ptr[row] = static_cast<I>(row == rows ? cells * begin
                                              : cells * begin + r * bc * (static_cast<long long>(block_ptr[block_row + 1]) - begin));
}

// M's block pattern into ptr and col (allocated here).
template <class V, class I>
void block_pattern(const Executor& exec, const CsrView<const V, I>& m, int g, int s, Workspace<I>& ptr, Workspace<I>& col) {
    const long long block_rows = m.rows / g;
    ptr = Workspace<I>(exec, static_cast<std::size_t>(block_rows) + 1);
    col = Workspace<I>(exec, static_cast<std::size_t>(m.nnz / (static_cast<long long>(g) * s)));
    constexpr int threads = 256;
    gather_block_pattern<<<grid_for(block_rows, threads), threads, 0, stream_of(exec)>>>(m.row_ptr, m.col_idx, block_rows, g, s, ptr.data(),
                                                                                          col.data());
    SPK_CUDA_CHECK_LAUNCH();
}

// The product of A's and B's block patterns, as the scalar kernels take it: plus_pair over the
// patterns (A's and B's values stand in for the patterns' values: read, never used), sorted.
template <class V, class I>
SpgemmProblem<V, I> block_pattern_problem(const SpgemmProblem<V, I>& p, const BlockProduct<I>& blocks) {
    const BlockShape& s = blocks.shape;
    SpgemmProblem<V, I> q{};
    q.a = CsrView<const V, I>{blocks.block_rows, p.a.cols / s.bk, blocks.a_nnz, blocks.a_ptr.data(), blocks.a_col.data(), p.a.values, p.a.space, true};
    q.b = CsrView<const V, I>{blocks.b_block_rows, blocks.b_block_cols, blocks.b_nnz, blocks.b_ptr.data(), blocks.b_col.data(), p.b.values, p.b.space,
                              true};
    q.semiring = Semiring::plus_pair;
    q.complement_mask = false;
    q.sorted = true;
    q.reuse = SpgemmReuse::search;
    q.detect_blocks = false;
    return q;
}

// The symbolic phase of A·B on blocks of `shape`, or none where a block row of C would not fit
// a warp's share of shared memory (the caller then goes on with the scalar product).
template <class V, class I>
std::optional<SpgemmAnalysis> block_symbolic(const Executor& exec, const SpgemmProblem<V, I>& p, const BlockShape& shape) {
    auto blocks = std::make_unique<BlockProduct<I>>();
    blocks->shape = shape;
    blocks->block_rows = p.a.rows / shape.br;
    blocks->a_nnz = p.a.nnz / (static_cast<long long>(shape.br) * shape.bk);
    blocks->b_block_rows = p.b.rows / shape.bk;
    blocks->b_block_cols = p.b.cols / shape.bc;
    blocks->b_nnz = p.b.nnz / (static_cast<long long>(shape.bk) * shape.bc);
    block_pattern(exec, p.a, shape.br, shape.bk, blocks->a_ptr, blocks->a_col);
    block_pattern(exec, p.b, shape.bk, shape.bc, blocks->b_ptr, blocks->b_col);
    blocks->pattern = ::spk::detail::cuda::spgemm_symbolic(exec, block_pattern_problem(p, *blocks));
    const DeviceState<I>& pattern = device_state<I>(blocks->pattern);
    const long long cells = shape.cells(), max_blocks = pattern.numeric.max_need;
    if (max_blocks * (cells * static_cast<long long>(sizeof(V)) + static_cast<long long>(sizeof(I))) > kLargeBlockRowBytes) return std::nullopt;
    blocks->max_row_blocks = static_cast<int>(max_blocks);
    SpgemmAnalysis s;
    s.nnz = cells * blocks->pattern.nnz;
    s.config = "blocks " + std::to_string(shape.br) + "x" + std::to_string(shape.bk) + "x" + std::to_string(shape.bc);
    auto state = std::make_shared<DeviceState<I>>();
    if (s.nnz <= static_cast<index_t>(std::numeric_limits<I>::max())) {  // else the plan rejects C
        state->row_ptr = Workspace<I>(exec, static_cast<std::size_t>(p.a.rows) + 1);
        constexpr int threads = 256;
        expand_row_ptr<<<grid_for(p.a.rows + 1, threads), threads, 0, stream_of(exec)>>>(pattern.row_ptr.data(), p.a.rows, shape.br, shape.bc,
                                                                                          state->row_ptr.data());
        SPK_CUDA_CHECK_LAUNCH();
    }
    state->blocks = std::move(blocks);
    s.device = std::move(state);
    return s;
}

}  // namespace spk::detail::cuda::spgemm
