#pragma once
// What the CUDA SpGEMM symbolic phase leaves on the device for the numeric phase (kept in
// SpgemmAnalysis::device): C's row_ptr, C's rows grouped by bin, a sorted copy of the mask; and
// C's columns and the products' places, which the plan's first recompute adds for the
// numeric-reuse path.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/spgemm_kernels.hpp"
#include "cuda/common/workspace.hpp"
#include "spk/array.hpp"
#include "spk/error.hpp"

namespace spk::detail::cuda::spgemm {

// Rows go to bins by the size their accumulator needs (distinct column blocks in the symbolic
// phase, C's row length in the numeric phase); every table keeps its load at 1/2 or less, and
// capacities double from bin to bin so that no row clears and scans far more slots than it fills.
// Bin 0: nothing to do. 1-4: one warp per row, tables in shared memory. 5-7: one block per row,
// tables in shared memory. 8: one block per row, in shared memory or a global-memory pool (see
// numeric_kernels.cuh and symbolic_kernels.cuh). From bin 5 a table per warp would bound the
// warps an SM holds (f64: four 12 KiB tables a block of 4 warps, 16 warps an SM); a block's
// warps share one table instead, and take the row's entries of A in turn. On the H200 (f64,
// elasticity 40^3, rows of C of 375 entries) that cut the numeric phase from 31 to 17 ms; bin 4
// (uniform random's rows of 256) stays with warps, where plain adds replace the atomics.
inline constexpr int kBins = 9;
inline constexpr int kGlobalBin = kBins - 1;

// numeric_spare: the numeric phase's tables have 2^numeric_spare times the bin's slots (bin 5:
// load at most 1/4 instead of 1/2). A warp's lanes probe in lockstep, so each of its rounds costs
// the longest probe of 32 hashed columns, several slots at load 1/2 (H200, f64, elasticity 40^3's
// rows of 375 in 2048 slots instead of 1024: numeric phase 15.5 -> 13.9 ms, elasticity 30^3
// 6.7 -> 5.9). The warp bins keep load 1/2: twice their tables halve the warps an SM holds
// (uniform random's rows of 256 in bin 4: 17.3 -> 20.5 ms), as does a spare of 2 for bin 5
// (elasticity 40^3: 19.4 ms); bins 6 and 7 already hold their SM's shared memory in few blocks.
struct BinShape {
    bool warp;          // one warp per row (else one block per row)
    int threads;        // per block
    int log2_capacity;  // table entries per row (log2); 0: the global bin
    int numeric_spare = 0;
    // The numeric tables' hash keeps runs of 2^bits consecutive columns in runs of slots
    // (claim_slot): bin 5, where a mesh row's runs of columns met on the same banks and probed
    // past each other (scripts/spgemm-hash-sim.py, elasticity's rows of 375: the longest probe a
    // warp round 1.85 -> 1.00 slots, the value loads' wavefronts 3.2 -> 2.0). Small tables keep 0:
    // a stencil's rows of 25, runs of 5 columns in strides of the grid, collide in blocks.
    int numeric_hash_block_bits = 0;
};
inline constexpr BinShape kBinShapes[kBins] = {{true, 128, 0},   {true, 128, 6},    {true, 128, 7},
                                               {true, 128, 8},   {true, 128, 9},    {false, 256, 10, 1, 5},
                                               {false, 256, 12}, {false, 1024, 13}, {false, 512, 0}};
// Words of a block row's span order (SpanOrder in device_table.cuh): block rows whose columns
// span up to 32 x 1024 leave the numeric phase in column order without a sort, for 6 KiB of
// shared memory a block (a bitmap word and a 16-bit count a word).
inline constexpr long long kSpanOrderWords = 1024;
inline constexpr std::size_t kSpanOrderBytes = kSpanOrderWords * (sizeof(unsigned) + sizeof(unsigned short));
// A block's numeric tables (16-byte entries at most: int64 keys, f64 values), with a block row's
// span order, fit the shared memory an H100/H200 block may opt into (227 KiB).
static_assert([] {
    for (int bin = 1; bin < kBins - 1; ++bin) {
        const BinShape& s = kBinShapes[bin];
        const long long groups = s.warp ? s.threads / 32 : 1;
        const long long extra = s.warp ? 0 : static_cast<long long>(kSpanOrderBytes);
        if (groups * (16ll << (s.log2_capacity + s.numeric_spare)) + extra > 227ll * 1024) return false;
    }
    return true;
}());

// Rows grouped by bin (the row ids themselves live in an array of the caller's).
struct BinLayout {
    std::array<index_t, kBins + 1> start{};  // bin b holds ids[start[b], start[b + 1])
    index_t max_need = 0;                   // over all rows: sizes the global pool's slots
    index_t total_need = 0;                 // over all rows (numeric phase: nnz(C))
    index_t count(int bin) const { return start[bin + 1] - start[bin]; }
};

// Where A's entries come in dense br x bk blocks and B's in bk x bc blocks (the rows of each group
// of br share their columns, which come in aligned runs of bk), C's do in br x bc blocks, and the
// product runs on the blocks (blocks.cuh): the symbolic phase on the block patterns, the numeric
// phase a block at a time (block_numeric.cuh). An elasticity matrix (3 unknowns a node) squared
// has 27 scalar products a block product, so the index work a scalar product falls 27-fold.
struct BlockShape {
    int br = 1, bk = 1, bc = 1;
    int cells() const { return br * bc; }  // entries of a block of C
};

// What a block product keeps: A's and B's block patterns (columns in blocks), the symbolic
// result of their product (C's block row_ptr, its rows binned), and C's block columns, which the
// first numeric call finds (the plan's one state that changes after the symbolic phase, under
// the mutex, as DeviceState::ReuseColumns).
template <class I>
struct BlockProduct {
    BlockShape shape;
    long long block_rows = 0;             // of A and C
    Workspace<I> a_ptr, a_col, b_ptr, b_col;  // the block patterns
    long long a_nnz = 0, b_nnz = 0;       // blocks of A and B
    long long b_block_rows = 0, b_block_cols = 0;
    SpgemmAnalysis pattern;               // of A's block pattern times B's
    int max_row_blocks = 0;               // the longest block row of C
    mutable std::mutex mutex;
    mutable Array<I> c_col;  // C's block columns, sorted within each block row
    mutable bool ready = false;
    // Unless SpgemmProblem::reuse is search, the first recompute (values only) keeps each block
    // product's place in its block row of C: A's block pa times the q-th block of its row of B at
    // places[pair_offset[pa] + q]. Later recomputes read it instead of searching C's block columns.
    mutable Array<std::uint16_t> places;
    mutable Array<long long> pair_offset;  // A's blocks + 1
    mutable bool placed = false;        // places holds every block product's place
    mutable bool places_tried = false;  // the places were asked for once (they may not fit)
};

// The symbolic phase's arrays (row_ptr, numeric_rows, mask_cols) come from the stream-ordered
// pool (a cudaMalloc and a cudaFree each would synchronise the device, in every one-shot
// product): the plan gives them back on its executor's stream, so that stream must outlive the plan.
template <class I>
struct DeviceState {
    Workspace<I> row_ptr;       // C's row_ptr (rows + 1); empty when nnz(C) does not fit I (the plan rejects it)
    Workspace<I> numeric_rows;  // C's rows grouped by length, laid out by `numeric`
    BinLayout numeric;
    Workspace<I> mask_cols;  // the mask's columns sorted per row (empty: already sorted)
    // B's columns strictly increase in every row that A reaches (owns_distinct_slots)
    bool b_rows_increasing = false;
    // C's sorted columns (nnz(C) entries), for the numeric-reuse path: recompute receives only
    // C's values, and copying the columns in compute() would cost every one-shot product (spgemm()
    // is a plan and one compute) their time and memory. So the first recompute runs the hash
    // numeric phase, writing the columns here, and later ones reuse them. The plan's one piece of
    // state that changes after the symbolic phase (hence mutable, under a mutex).
    // Unless SpgemmProblem::reuse is search, the first recompute also finds each product's place in
    // its row of C (reuse_places_kernels.cuh): the products of A's entry pa start at places[entry_offset[pa]]
    // (rows of bins 1 to 7) or global_places[global_entry_offset[pa]] (the global bin's rows).
    struct ReuseColumns {
        std::mutex mutex;
        Array<I> cols;
        bool ready = false;
        Array<std::uint16_t> places;
        Array<long long> entry_offset;  // nnz(A) + 1
        Array<std::uint32_t> global_places;
        Array<long long> global_entry_offset;  // nnz(A) + 1
        bool placed = false;
        // SpgemmReuse::entries (replay_entries_kernels.cuh): the products of rows of bins 1 to
        // entry_max_bin (0: none) grouped by their entry of C, and where each tile of entries
        // starts among them. Where they cover every row with places, places and entry_offset are dropped.
        Array<std::uint64_t> entry_records;
        Array<unsigned> entry_tile_start;
        int entry_max_bin = 0;
    };
    mutable ReuseColumns reuse;
    // Set where the product runs on blocks: then row_ptr is C's and nothing else above is used.
    std::unique_ptr<BlockProduct<I>> blocks;
};

template <class I>
const DeviceState<I>& device_state(const SpgemmAnalysis& s) {
    if (!s.device) invalid_argument("spgemm on CUDA: the plan's symbolic phase did not run on the CUDA backend");
    return *static_cast<const DeviceState<I>*>(s.device.get());
}

}  // namespace spk::detail::cuda::spgemm
