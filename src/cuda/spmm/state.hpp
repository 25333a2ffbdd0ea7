#pragma once
// What a CUDA SpMM plan keeps: the configuration and, when long rows get their own kernel, the
// two row bins on the device. It is built in two steps: spmm_analyse queues the analysis of A and
// returns without waiting for the device; the first call that needs what the analysis counted
// (the run, the configuration's name, the features) waits for the counts and completes the state
// once (ready() in spmm.cu). The arrays come from the stream-ordered pool like workspaces: a plan
// made per call (as the Python functions do) then costs no cudaMalloc, and freeing it no device-wide
// wait. They go back to the pool on the plan's stream, which must outlive the plan.
#include <cstddef>
#include <functional>
#include <mutex>

#include "core/spmm_kernels.hpp"
#include "cuda/common/count_slot.hpp"
#include "cuda/common/workspace.hpp"
#include "tune/spmm_config.hpp"

namespace spk::detail::cuda {

struct SpmmState {
    SpmmConfig config;
    SpmmFeatures features;
    bool deterministic = false;  // split rows meet through ordered partial sums, not atomics
    // The split runs in the short rows' launch (splits_in_one_launch): its work items are pieces of
    // rb_piece_warps chunks. It still falls back to the two-launch split (on the same pieces)
    // where unaligned B changes the shapes so that they no longer pair.
    bool one_launch = false;
    // What the analysis writes, in one pool allocation: the row bins and the split long rows'
    // pieces (analysis.cuh's PieceLists), the latter sized by bounds as the host does not know
    // their count when it launches the analysis.
    Workspace<std::byte> arrays;
    // The row bins in one array of the matrix's index type (raw bytes: the state is not
    // templated): num_short short rows at the front, num_long long rows at the back.
    std::byte* row_lists = nullptr;
    index_t num_short = 0, num_long = 0;
    // Split long rows: chunk k is row chunk_rows[k] (index type), non-zeros from chunk_begin[k]
    // (chunk of them, cut at the row's end); long row t's chunks are chunk_first[max_long -
    // num_long + t] onwards (long_first()).
    std::byte* chunk_rows = nullptr;
    long long *chunk_begin = nullptr, *chunk_first = nullptr;
    index_t max_long = 0, max_pieces = 0;  // the bounds the piece arrays were sized by
    index_t num_chunks = 0, chunk = 0;
    // One-launch split: per row, at its first piece, the blocks that finished it (zero between runs).
    unsigned* arrivals = nullptr;
    // The one-launch split's partial sums (num_chunks x n accumulators) where a row has several
    // pieces. Kept by the plan, like arrivals: its runs are queued on its executor's stream, and
    // each launch writes and reads them before the next launch starts (whichever thread queued
    // it), so the runs can share them, and a run queues no allocation and no free (two runtime
    // calls of host time a call). The two-launch deterministic split keeps a workspace a call.
    Workspace<std::byte> partial;
    // Merge-path configurations: each lane's first row, the crossing rows' arrivals and the blocks'
    // parts of them (mp_kernel.cuh's MergePathArgs), in one allocation. Kept by the plan like
    // `partial`: a run is one launch, which resets the arrivals it counted.
    Workspace<std::byte> merge;
    long long merge_blocks = 0;
    // The analysis's counts on their way to the host, and what completes the state from them.
    CountSlot counts;
    std::function<void(SpmmState&)> complete;
    mutable std::once_flag completed;

    template <class I>
    const I* short_rows() const {
        return reinterpret_cast<const I*>(row_lists);
    }
    template <class I>
    const I* long_rows() const {
        return reinterpret_cast<const I*>(row_lists) + (features.rows - num_long);
    }
    // Parallel to long_rows(): long row t's first chunk.
    const long long* long_first() const { return chunk_first + (max_long - num_long); }
};

}  // namespace spk::detail::cuda
