#pragma once
// The long-segment search of the FusedMM passes (host side; the kernels are in split.cuh, the
// thresholds and budget in core/fused_split_threshold.hpp): one wait for the chunk counts of a few
// candidate thresholds, the lists carved at their exact sizes and filled on the device; and the
// copies a FusedPlan keeps of a search's result (core/fused_kept_split.hpp) so that later calls
// skip it.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <string>

#include "core/cuda_runtime.hpp"
#include "core/fused_kept_split.hpp"
#include "core/fused_split_threshold.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/fusedmm/split.cuh"
#include "spk/error.hpp"
#include "spk/executor.hpp"

namespace spk::detail::cuda::fused_search {

// Blocks of a combine kernel for `items` (long segment, head) items: no more than the device holds.
inline long long combine_blocks(long long items, const DeviceProperties& device) {
    const long long resident_blocks = static_cast<long long>(device.sm_count) * (device.max_threads_per_sm / fused::kCombineThreads);
    return std::max(1LL, std::min(items, resident_blocks));
}

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

// A pointer array to search for long segments: segment s is entries ptr[s] .. ptr[s+1].
template <class I>
struct Segments {
    const I* ptr = nullptr;  // null: not searched
    long long count = 0, nnz = 0;
    long long threshold = 0;    // the preferred threshold (split_threshold)
    long long first = 0;        // the first candidate (first_split_threshold; at most `threshold`)
    long long state_bytes = 0;  // one chunk's partial states, every head's
    // Forward: team rows from the smallest candidate of at least `team_from` entries (team_rows),
    // or, with -1, where auto_team_rows takes them for a launch of `row_blocks` row blocks and
    // `heads` heads on a device holding `resident_blocks`; 0: none.
    long long team_from = 0;
    long long row_blocks = 0, resident_blocks = 0;
    int heads = 1;
};

// The counters of a search, per pointer array: count_chunks' pair for each candidate threshold,
// find_long_rows' one, find_team_rows' one, and the longest segment.
constexpr std::size_t kCountersPerArray = 2 * fused::kMaxCandidates + 3;
constexpr std::size_t kLongRowsCounter = 2 * fused::kMaxCandidates, kTeamRowsCounter = kLongRowsCounter + 1,
                      kLongestCounter = kLongRowsCounter + 2;

// The workspaces of a search; freed on the stream after the kernels that read them.
struct SearchWorkspace {
    Workspace<unsigned long long> counters;
    Workspace<std::byte> lists;  // the long segments' and chunks' lists, sized by the chunks found
};

// Finds the long segments of each searched pointer array on the device: count_chunks counts, for
// each candidate threshold (fused_search::candidates), the long segments and chunks it would make;
// one wait reads the counts back (a few hundred bytes); the host chooses each array's threshold
// (choose_threshold: its lists and chunks' states, Segments::state_bytes a chunk, within `budget`),
// carves the lists from workspace.lists at their exact sizes, and find_long_rows fills them. Fills
// *lists[n] where array n has a threshold; leaves it as it was (nothing split) otherwise. No
// launch and no wait when no array can hold a segment longer than its first candidate.
template <class I, std::size_t N>
std::array<Found, N> find_long_segments(const Executor& exec, const std::array<Segments<I>, N>& arrays, const ChunkBudget& budget,
                                        const std::array<fused::ChunkList<I>*, N>& lists, SearchWorkspace& workspace) {
    std::array<Found, N> found{};
    std::array<fused::Candidates, N> candidates{};
    bool any = false;
    for (std::size_t n = 0; n < N; ++n) {
        const Segments<I>& s = arrays[n];
        if (s.ptr == nullptr || s.count == 0) continue;
        candidates[n] = fused_search::candidates(s.first, s.threshold, s.nnz);
        if (candidates[n].count == 0) continue;
        if ((s.count + fused::kFindThreads - 1) / fused::kFindThreads > 0x7fffffffLL)
            unsupported("fusedmm on CUDA: too many rows or columns for one launch (" + std::to_string(s.count) + ")");
        any = true;
    }
    if (!any) return found;

    const auto stream = static_cast<cudaStream_t>(exec.stream());
    workspace.counters = Workspace<unsigned long long>(exec, N * kCountersPerArray);
    unsigned long long* counters = workspace.counters.data();
    SPK_CUDA_CHECK(cudaMemsetAsync(counters, 0, N * kCountersPerArray * sizeof(unsigned long long), stream));
    for (std::size_t n = 0; n < N; ++n) {
        if (candidates[n].count == 0) continue;
        const auto blocks = static_cast<unsigned>((arrays[n].count + fused::kFindThreads - 1) / fused::kFindThreads);
        fused::count_chunks<I><<<blocks, fused::kFindThreads, 0, stream>>>(arrays[n].ptr, arrays[n].count, candidates[n],
                                                                           counters + n * kCountersPerArray,
                                                                           counters + n * kCountersPerArray + kLongestCounter);
        SPK_CUDA_CHECK_LAUNCH();
    }
    std::array<unsigned long long, N * kCountersPerArray> host{};
    SPK_CUDA_CHECK(cudaMemcpyAsync(host.data(), counters, sizeof(host), cudaMemcpyDeviceToHost, stream));
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));

    std::array<long long, N> thresholds{};
    std::array<TeamRows, N> teams{};
    Carver carver;
    std::array<std::array<std::size_t, 5>, N> at{};
    for (std::size_t n = 0; n < N; ++n) {
        if (candidates[n].count == 0) continue;
        const unsigned long long* counts = host.data() + n * kCountersPerArray;
        const Choice choice =
            choose_threshold(candidates[n], counts, arrays[n].count, arrays[n].threshold, arrays[n].state_bytes, budget, sizeof(I));
        const long long chunked = choice.found.segments > 0 ? choice.threshold : 0;
        teams[n] = arrays[n].team_from >= 0
                       ? team_rows(candidates[n], counts, arrays[n].team_from, chunked, choice.found.segments)
                       : auto_team_rows(candidates[n], counts, arrays[n].count, static_cast<long long>(counts[kLongestCounter]), chunked,
                                        choice.found.segments, choice.found.chunks * arrays[n].heads, arrays[n].row_blocks,
                                        arrays[n].resident_blocks);
        if (teams[n].count > 0) at[n][4] = carver.reserve(teams[n].count, sizeof(I));
        if (choice.found.segments == 0) continue;
        found[n] = choice.found;
        thresholds[n] = choice.threshold;
        at[n][0] = carver.reserve(found[n].segments, sizeof(I));
        at[n][1] = carver.reserve(found[n].segments, sizeof(long long));
        at[n][2] = carver.reserve(found[n].chunks, sizeof(I));
        at[n][3] = carver.reserve(found[n].chunks, sizeof(long long));
    }
    if (carver.bytes() == 0) return found;
    workspace.lists = Workspace<std::byte>(exec, carver.bytes());
    std::byte* base = workspace.lists.data();
    for (std::size_t n = 0; n < N; ++n) {
        fused::ChunkList<I>& c = *lists[n];
        const auto blocks = static_cast<unsigned>((arrays[n].count + fused::kFindThreads - 1) / fused::kFindThreads);
        if (found[n].segments > 0) {
            c.threshold = thresholds[n];
            c.max_chunks = found[n].chunks;
            c.counts = counters + n * kCountersPerArray + kLongRowsCounter;
            c.long_rows = reinterpret_cast<I*>(base + at[n][0]);
            c.chunk_first = reinterpret_cast<long long*>(base + at[n][1]);
            c.chunk_row = reinterpret_cast<I*>(base + at[n][2]);
            c.chunk_part = reinterpret_cast<long long*>(base + at[n][3]);
            fused::find_long_rows<I><<<blocks, fused::kFindThreads, 0, stream>>>(arrays[n].ptr, arrays[n].count, c.threshold, c.counts,
                                                                                 c.long_rows, c.chunk_first, c.chunk_row, c.chunk_part);
            SPK_CUDA_CHECK_LAUNCH();
        }
        if (teams[n].count > 0) {
            c.block_items = true;
            c.team_threshold = teams[n].threshold;
            c.team_count = teams[n].count;
            c.team_rows = reinterpret_cast<I*>(base + at[n][4]);
            fused::find_team_rows<I><<<blocks, fused::kFindThreads, 0, stream>>>(
                arrays[n].ptr, arrays[n].count, c.team_threshold, found[n].segments > 0 ? c.threshold : std::numeric_limits<long long>::max(),
                counters + n * kCountersPerArray + kTeamRowsCounter, c.team_rows);
            SPK_CUDA_CHECK_LAUNCH();
        }
    }
    return found;
}

// A copy of a search's result that outlives its workspace (the lists are copied into the plan's own
// workspaces on the stream, after find_long_rows fills them).
template <class I>
KeptSplit keep_search(const Executor& exec, const fused::ChunkList<I>& list, const Found& found, const SearchWorkspace& search) {
    KeptSplit kept;
    kept.segments = found.segments;
    kept.chunks = found.chunks;
    kept.team_count = list.team_count;
    if (found.segments == 0 && list.team_count == 0) return kept;
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    kept.lists = Workspace<std::byte>(exec, search.lists.size());
    SPK_CUDA_CHECK(cudaMemcpyAsync(kept.lists.data(), search.lists.data(), search.lists.size(), cudaMemcpyDeviceToDevice, stream));
    const auto offset = [&](const void* p) { return static_cast<std::size_t>(static_cast<const std::byte*>(p) - search.lists.data()); };
    if (list.team_count > 0) {
        kept.team_threshold = list.team_threshold;
        kept.offsets[4] = offset(list.team_rows);
    }
    if (found.segments == 0) return kept;
    kept.threshold = list.threshold;
    kept.counts = Workspace<unsigned long long>(exec, 1);
    SPK_CUDA_CHECK(cudaMemcpyAsync(kept.counts.data(), list.counts, sizeof(unsigned long long), cudaMemcpyDeviceToDevice, stream));
    kept.offsets[0] = offset(list.long_rows);
    kept.offsets[1] = offset(list.chunk_first);
    kept.offsets[2] = offset(list.chunk_row);
    kept.offsets[3] = offset(list.chunk_part);
    return kept;
}

// The search's result from what a plan kept.
template <class I>
Found restore_search(const KeptSplit& kept, fused::ChunkList<I>& list) {
    std::byte* base = kept.lists.data();
    if (kept.team_count > 0) {
        list.block_items = true;
        list.team_threshold = kept.team_threshold;
        list.team_count = kept.team_count;
        list.team_rows = reinterpret_cast<I*>(base + kept.offsets[4]);
    }
    if (kept.segments == 0) return {};
    list.threshold = kept.threshold;
    list.max_chunks = kept.chunks;
    list.counts = kept.counts.data();
    list.long_rows = reinterpret_cast<I*>(base + kept.offsets[0]);
    list.chunk_first = reinterpret_cast<long long*>(base + kept.offsets[1]);
    list.chunk_row = reinterpret_cast<I*>(base + kept.offsets[2]);
    list.chunk_part = reinterpret_cast<long long*>(base + kept.offsets[3]);
    return {kept.segments, kept.chunks};
}

}  // namespace spk::detail::cuda::fused_search
