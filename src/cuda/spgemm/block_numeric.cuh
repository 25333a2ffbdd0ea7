#pragma once
// The numeric phase of block products (BlockProduct in state.hpp, blocks.cuh): a warp a block row
// of C, its br x bc blocks accumulated in the warp's share of shared memory. A block row of B is
// stored as bk scalar rows, each holding its blocks' entries one after another (see block_values),
// so for each block of A in the row the lanes walk B's block row by entries: lane t loads entry t
// of each of the bk scalar rows (coalesced loads, each read once) and adds, for every row r of
// the block of A, their dot product with A's row r into C's entry (r, c) of the block t falls in.
// B's block columns within a block row are distinct, so no two lanes meet and plain adds do (no
// atomics); a __syncwarp after each block of A keeps the lanes apart from the next one's adds.
// The blocks of B find their place in C's block row by a binary search over its sorted block
// columns, a lane a block, shared with the entries by shuffles; a plan's first recompute keeps
// these places (BlockProduct::places) and later ones read them instead. The first call finds C's
// block columns with the scalar kernels on the block patterns.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>

#include "core/cuda_runtime.hpp"
#include "core/spgemm_kernels.hpp"
#include "core/spgemm_semiring.hpp"
#include "cuda/spgemm/blocks.cuh"
#include "cuda/spgemm/launch.cuh"
#include "cuda/spgemm/prefix_sum.cuh"
#include "cuda/spgemm/state.hpp"
#include "spk/error.hpp"

namespace spk::detail::cuda::spgemm {

template <class V, class I>
struct BlockArgs {
    int br, bk, bc;
    long long block_rows;
    const I* a_ptr;  // the block patterns
    const I* a_col;
    const I* b_ptr;
    const I* b_col;
    const I* c_ptr;  // C's block row_ptr and block columns (sorted)
    const I* c_col;
    const V* a_val;  // A's, B's and C's scalar values
    const V* b_val;
    V* c_val;
    I* c_scalar_col;  // C's columns, or null (values only)
    int max_row_blocks;
    // Block products' places in C's block rows (BlockProduct::places): read where places_in is
    // set, else searched and, where places_out is set, written.
    const long long* pair_offset;
    const std::uint16_t* places_in;
    std::uint16_t* places_out;
};

// The place of column j among cols[0, n) (sorted, holding j).
template <class I>
__device__ __forceinline__ int place_of(const I* cols, int n, I j) {
    int lo = 0;
    while (n > 1) {
        const int half = n >> 1;
        if (cols[lo + half] <= j) lo += half;
        n -= half;
    }
    return lo;
}

// The products of one entry of B's block row (in each of its BK scalar rows: b_entry[m b_stride])
// with every row of A's block (row r at a_block + r a_stride), added into C's entries slot[r bc].
// BK at compile time: its loads and products unrolled, none predicated off.
template <int BK, class Op, class V>
__device__ __forceinline__ void add_entry_products(const V* a_block, long long a_stride, const V* b_entry, long long b_stride, int br, int bc,
                                                   V* slot) {
    V b[BK];
#pragma unroll
    for (int m = 0; m < BK; ++m) b[m] = b_entry[m * b_stride];
    for (int r = 0; r < br; ++r, a_block += a_stride, slot += bc) {
        V sum = Op::multiply(a_block[0], b[0]);
#pragma unroll
        for (int m = 1; m < BK; ++m) sum = Op::add(sum, Op::multiply(a_block[m], b[m]));
        *slot = Op::add(*slot, sum);
    }
}

// A warp a block row of C (see the top). Where values sit: a block row of a matrix of g x s
// blocks, `blocks` blocks from its block row_ptr entry `begin` on, fills g scalar rows of
// blocks x s entries each; entry (r, m) of its block j is at g s begin + s j + r (blocks s) + m.
template <class Op, class V, class I, int Warps>
__global__ void __launch_bounds__(Warps * 32) block_values(BlockArgs<V, I> p) {
    extern __shared__ __align__(16) unsigned char block_smem[];
    const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
    const int cells = p.br * p.bc;
    V* acc = reinterpret_cast<V*>(block_smem) + static_cast<long long>(warp) * p.max_row_blocks * cells;
    I* cols = reinterpret_cast<I*>(reinterpret_cast<V*>(block_smem) + static_cast<long long>(Warps) * p.max_row_blocks * cells) +
              static_cast<long long>(warp) * p.max_row_blocks;
    const V identity = Op::kZeroIsIdentity ? V(0) : std::numeric_limits<V>::quiet_NaN();  // fmin and fmax ignore a NaN
    // The block of an entry of a chunk of B's blocks by a multiply: exact for the chunk's at most
    // 32 x 6 entries (and the lanes past them).
    const unsigned bc_inverse = (65536u + p.bc - 1) / p.bc;
    for (long long row = static_cast<long long>(blockIdx.x) * Warps + warp; row < p.block_rows;
         row += static_cast<long long>(gridDim.x) * Warps) {
        const long long c_begin = p.c_ptr[row];
        const int nc = static_cast<int>(p.c_ptr[row + 1] - c_begin);
        if (!p.places_in || p.c_scalar_col)
            for (int t = lane; t < nc; t += 32) cols[t] = p.c_col[c_begin + t];
        for (int t = lane; t < nc * cells; t += 32) acc[t] = identity;
        __syncwarp();
        const long long a_begin = p.a_ptr[row];
        const int na = static_cast<int>(p.a_ptr[row + 1] - a_begin);
        const long long a_first = static_cast<long long>(p.br) * p.bk * a_begin, a_stride = static_cast<long long>(na) * p.bk;
        for (int a_first_block = 0; a_first_block < na; a_first_block += 32) {
            // A's next 32 blocks: their rows of B, a lane each, so that no block waits on its loads.
            const int a_chunk = min(32, na - a_first_block);
            long long lane_b_begin = 0, lane_pair = 0;
            int lane_nb = 0;
            if (lane < a_chunk) {
                const I k = p.a_col[a_begin + a_first_block + lane];
                lane_b_begin = p.b_ptr[k];
                lane_nb = static_cast<int>(p.b_ptr[k + 1] - lane_b_begin);
                if (p.pair_offset) lane_pair = p.pair_offset[a_begin + a_first_block + lane];
            }
            for (int j = 0; j < a_chunk; ++j) {
                const int ja = a_first_block + j;
                const long long b_begin = __shfl_sync(0xffffffffu, lane_b_begin, j);
                const int nb = __shfl_sync(0xffffffffu, lane_nb, j);
                const long long pair_first = __shfl_sync(0xffffffffu, lane_pair, j);
                const long long b_stride = static_cast<long long>(nb) * p.bc;  // entries of each of B's scalar rows
                const V* a_block = p.a_val + a_first + static_cast<long long>(p.bk) * ja;  // entry (r, m) at r a_stride + m
                const V* b_rows = p.b_val + static_cast<long long>(p.bk) * p.bc * b_begin;  // row m's entry t at m b_stride + t
                for (int first = 0; first < nb; first += 32) {  // 32 blocks of B's row at a time
                    const int chunk = min(32, nb - first);
                    int place = 0;
                    if (lane < chunk) {
                        const long long pair = pair_first + first + lane;
                        if (p.places_in) {
                            place = p.places_in[pair];
                        } else {
                            place = place_of(cols, nc, p.b_col[b_begin + first + lane]);
                            if (p.places_out) p.places_out[pair] = static_cast<std::uint16_t>(place);
                        }
                    }
                    const int my_place = place * cells;
                    const int span = chunk * p.bc;
                    const V* b_chunk = b_rows + static_cast<long long>(first) * p.bc;
                    for (int t0 = 0; t0 < span; t0 += 32) {
                        const int t = t0 + lane;
                        const int jb = static_cast<int>(static_cast<unsigned>(t) * bc_inverse >> 16);
                        const int slot0 = __shfl_sync(0xffffffffu, my_place, jb & 31) + (t - jb * p.bc);
                        if (t >= span) continue;
                        // bk is the same for the whole warp (and product): no divergence.
                        const V* b_entry = b_chunk + t;
                        V* slot = acc + slot0;
                        switch (p.bk) {
                            case 2: add_entry_products<2, Op>(a_block, a_stride, b_entry, b_stride, p.br, p.bc, slot); break;
                            case 3: add_entry_products<3, Op>(a_block, a_stride, b_entry, b_stride, p.br, p.bc, slot); break;
                            case 4: add_entry_products<4, Op>(a_block, a_stride, b_entry, b_stride, p.br, p.bc, slot); break;
                            default: add_entry_products<kMaxBlockSize, Op>(a_block, a_stride, b_entry, b_stride, p.br, p.bc, slot); break;
                        }
                    }
                }
                __syncwarp();
            }
        }
        // C's row br row + r holds the block row's nc x bc entries: a pass over each. A lane's entry
        // (block jc, column c) steps by 32 entries a round, without dividing.
        const int row_len = nc * p.bc;
        const int step_blocks = 32 / p.bc, step_cols = 32 - step_blocks * p.bc;
        for (int r = 0; r < p.br; ++r) {
            V* out = p.c_val + static_cast<long long>(cells) * c_begin + static_cast<long long>(r) * row_len;
            I* out_col = p.c_scalar_col ? p.c_scalar_col + static_cast<long long>(cells) * c_begin + static_cast<long long>(r) * row_len : nullptr;
            int jc = lane / p.bc, c = lane - jc * p.bc;
            for (int t = lane; t < row_len; t += 32) {
                out[t] = acc[jc * cells + r * p.bc + c];
                if (out_col) out_col[t] = static_cast<I>(static_cast<long long>(cols[jc]) * p.bc + c);
                jc += step_blocks;
                c += step_cols;
                if (c >= p.bc) {
                    c -= p.bc;
                    ++jc;
                }
            }
        }
        __syncwarp();
    }
}

// counts[pa]: the blocks in the row of B that A's block pa meets.
template <class I>
__global__ void count_block_products_of_a(const I* a_col, long long a_blocks, const I* b_ptr, long long* counts) {
    for (long long pa = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; pa < a_blocks;
         pa += static_cast<long long>(gridDim.x) * blockDim.x) {
        const I k = a_col[pa];
        counts[pa] = static_cast<long long>(b_ptr[k + 1]) - b_ptr[k];
    }
}

// Makes room for every block product's place (BlockProduct::places and pair_offset), or returns
// false where they would take more than a quarter of the device's memory. Reads one number back.
template <class I>
bool make_room_for_block_places(const Executor& exec, const BlockProduct<I>& blocks) {
    const long long a_blocks = blocks.a_nnz;
    Array<long long> offset(exec, static_cast<std::size_t>(a_blocks) + 1);
    {
        Workspace<long long> counts(exec, static_cast<std::size_t>(a_blocks));
        if (a_blocks > 0) {
            constexpr int threads = 256;
            const unsigned grid = static_cast<unsigned>(std::min<long long>(grid_for(a_blocks, threads), 1ll << 20));
            count_block_products_of_a<I><<<grid, threads, 0, stream_of(exec)>>>(blocks.a_col.data(), a_blocks, blocks.b_ptr.data(), counts.data());
            SPK_CUDA_CHECK_LAUNCH();
        }
        prefix_sum(exec, counts.data(), a_blocks, offset.data());
    }
    const long long pairs = read_back(exec, offset.data() + a_blocks, 1).front();
    const double bytes = static_cast<double>(pairs) * sizeof(std::uint16_t) + static_cast<double>(a_blocks + 1) * sizeof(long long);
    if (bytes > static_cast<double>(device_properties(exec.device()).global_bytes) / 4) return false;
    blocks.places = Array<std::uint16_t>(exec, static_cast<std::size_t>(pairs));
    blocks.pair_offset = std::move(offset);
    return true;
}

// Launches kernel (block_values with Warps warps a thread block, row_bytes of shared memory each)
// on as many thread blocks as stay resident.
template <int Warps, class Kernel, class V, class I>
void launch_block_values(const Executor& exec, Kernel* kernel, const BlockArgs<V, I>& args, long long row_bytes) {
    const auto smem = static_cast<std::size_t>(Warps * row_bytes);
    allow_dynamic_shared_memory(kernel);
    int per_sm = 0;
    SPK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Warps * 32, smem));
    const long long resident = static_cast<long long>(std::max(per_sm, 1)) * multiprocessors(exec);
    const long long grid = std::min<long long>((args.block_rows + Warps - 1) / Warps, resident);
    kernel<<<static_cast<unsigned>(std::max<long long>(grid, 1)), Warps * 32, smem, stream_of(exec)>>>(args);
    SPK_CUDA_CHECK_LAUNCH();
}

// C's values (and columns where c_col is not null) of a block product. find_block_columns(problem,
// state, cols, values): the scalar numeric phase (numeric_hash), which the first call runs on the
// block patterns. The first values-only call keeps the block products' places (unless the problem's
// reuse is search); later ones read them.
template <class V, class I, class FindColumns>
void block_numeric(const Executor& exec, const SpgemmProblem<V, I>& p, const BlockProduct<I>& blocks, I* c_col, V* c_val,
                   FindColumns&& find_block_columns) {
    const std::lock_guard<std::mutex> lock(blocks.mutex);
    if (!blocks.ready) {
        const auto block_nnz = static_cast<std::size_t>(blocks.pattern.nnz);
        blocks.c_col = Array<I>(exec, block_nnz);
        Workspace<V> counts(exec, block_nnz);  // plus_pair's counts of the block patterns' product: unused
        find_block_columns(block_pattern_problem(p, blocks), device_state<I>(blocks.pattern), blocks.c_col.data(), counts.data());
        blocks.ready = true;
    }
    const BlockShape& s = blocks.shape;
    BlockArgs<V, I> args{};
    args.br = s.br;
    args.bk = s.bk;
    args.bc = s.bc;
    args.block_rows = blocks.block_rows;
    args.a_ptr = blocks.a_ptr.data();
    args.a_col = blocks.a_col.data();
    args.b_ptr = blocks.b_ptr.data();
    args.b_col = blocks.b_col.data();
    args.c_ptr = device_state<I>(blocks.pattern).row_ptr.data();
    args.c_col = blocks.c_col.data();
    args.a_val = p.a.values;
    args.b_val = p.b.values;
    args.c_val = c_val;
    args.c_scalar_col = c_col;
    args.max_row_blocks = std::max(blocks.max_row_blocks, 1);
    if (blocks.placed) {
        args.pair_offset = blocks.pair_offset.data();
        args.places_in = blocks.places.data();
    } else if (c_col == nullptr && p.reuse != SpgemmReuse::search && !blocks.places_tried) {
        blocks.places_tried = true;
        try {
            if (make_room_for_block_places(exec, blocks)) {
                args.pair_offset = blocks.pair_offset.data();
                args.places_out = blocks.places.data();
            }
        } catch (const Error& e) {  // no room for the places: this and later recomputes search
            if (e.kind() != ErrorKind::OutOfMemory) throw;
        }
    }
    const long long row_bytes = static_cast<long long>(args.max_row_blocks) * static_cast<long long>(s.cells() * sizeof(V) + sizeof(I));
    with_semiring(p.semiring, [&](auto op) {
        using Op = decltype(op);
        if (row_bytes <= kBlockRowBytes)
            launch_block_values<4>(exec, block_values<Op, V, I, 4>, args, row_bytes);
        else
            launch_block_values<1>(exec, block_values<Op, V, I, 1>, args, row_bytes);
    });
    if (args.places_out) blocks.placed = true;  // written by the launch, in stream order before any later call's
}

}  // namespace spk::detail::cuda::spgemm
