#pragma once
// The long-segment search of the FusedMM passes (host side; the kernels are in split.cuh): the
// preferred threshold and the chunk budget, one wait for the chunk counts of a few candidate
// thresholds, the lists carved at their exact sizes and filled on the device; and the copies a
// FusedPlan keeps of a search's result (core/fused_kept_split.hpp) so that later calls skip it.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>

#include "core/cuda_runtime.hpp"
#include "core/fused_kept_split.hpp"
#include "cuda/common/check.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/fusedmm/split.cuh"
#include "spk/error.hpp"
#include "spk/executor.hpp"

namespace spk::detail::cuda::fused_search {

// The preferred threshold: segments (rows of A; in the backward pass also A's columns) longer than
// this are cut into chunks (split.cuh) of at most this many entries, unless their states would
// exceed the chunk budget (chunk_budget: then a longer threshold is taken):
//  - 16 times the mean segment. A block's groups (8 or 32 segments) finish together, so a segment
//    far above the mean holds its block, and on power-law graphs the hub rows (columns) hold the
//    kernel.
//  - at most an even share of the work (nnz x heads entries) among the warps the device holds at
//    once: on a small matrix with one huge row the device is otherwise idle. The (chunk, head)
//    states then number below twice those warps.
//  - at least 128 entries: a chunk's state (a few values a head) and its combine cost about 1% of
//    the chunk's own reads (128 rows of Y and of Z).
constexpr long long kSplitFloor = 128, kSmallGraphSplitFloor = 16;
inline long long work_share(long long nnz, int heads, const DeviceProperties& device) {
    const long long resident_warps = std::max(1LL, static_cast<long long>(device.sm_count) * device.max_threads_per_sm / 32);
    return nnz * heads / resident_warps;
}
inline long long split_threshold(long long segments, long long nnz, int heads, const DeviceProperties& device) {
    const long long mean_based = 16 * ((nnz + segments - 1) / segments);
    return std::max(kSplitFloor, std::min(mean_based, work_share(nnz, heads, device)));
}

// The first threshold a search weighs: on a small graph, whose share of the work a resident warp
// falls below kSplitFloor, that share (at least 16 entries), then its doublings up to the preferred
// threshold (choose_threshold takes those only where a few segments are far longer than the
// rest). There most of the device idles and the kernel takes as long as its longest segment's
// serial steps (a few entries a step, each step dependent round trips to L2): citeseer's row of
// 99 held the forward 23 us at K = 32, 12.5 us once cut at 16 (H200).
inline long long first_split_threshold(long long nnz, int heads, const DeviceProperties& device) {
    return std::clamp(work_share(nnz, heads, device), kSmallGraphSplitFloor, kSplitFloor);
}

// The most one split may hold (its chunks' partial states and the lists of its long segments and
// chunks): half of one nnz-sized array of accumulators. The unfused pipeline this pass replaces
// holds at least one nnz-sized array of scores (SDDMM's output, reused head by head), so the split
// holds at most half of that, however many heads and however wide. A chunk's state is a full row
// of heads x dz values: at the preferred threshold alone, the forward's peak with 4 heads of 128
// was 1.96x the pipeline's on R-MAT 18 and 1.5x on soc-Slashdot0902 (H200). Not less than half: a
// longer threshold leaves the rows between the two to the row blocks, where a block waits for its
// longest row; on R-MAT 18 with 4 heads of 32, thresholds of 512 and 1024 instead of 256 took the
// forward 11% and 34% longer (H200), and half an array keeps 256 there (with 4 heads of 128 it
// takes 512, no slower than 256). At least 64 KiB: on small matrices that little memory lets a
// huge row be cut finely (the only parallelism there is).
constexpr long long kMinChunkBudget = 64 << 10;
inline long long chunk_budget(long long nnz, std::size_t accum_size) {
    return std::max(kMinChunkBudget, nnz * static_cast<long long>(accum_size) / 2);
}

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
};

// What a search found: long segments and their chunks.
struct Found {
    long long segments = 0, chunks = 0;
};

// The counters of a search, per pointer array: count_chunks' pair for each candidate threshold,
// then find_long_rows' one.
constexpr std::size_t kCountersPerArray = 2 * fused::kMaxCandidates + 1;

// The workspaces of a search; freed on the stream after the kernels that read them.
struct SearchWorkspace {
    Workspace<unsigned long long> counters;
    Workspace<std::byte> lists;  // the long segments' and chunks' lists, sized by the chunks found
};

// The threshold and its count for one pointer array: the shortest candidate (the preferred
// threshold, then doublings) whose lists and `state_bytes` a chunk fit `budget`; nothing split
// when no segment is longer (Found{}) or no candidate fits (lengths beyond the last doubling).
struct Choice {
    long long threshold = 0;
    Found found;
};

// Below the preferred threshold (a small graph's first candidates) a candidate is taken only where
// it fits the budget, some segment is longer than the next candidate, so that the split at least
// halves the longest segment's serial steps, and few segments (at most 1 in kFewLongSegments) are
// long: what pays for the chunks' states and the combine kernel is a few segments far longer than
// the rest. Cutting many, or rows barely longer than the threshold, costs more than it saves (H200,
// one head of 32: chameleon, longest row 88, cut at 64: 19.7 -> 23.1 us; zenios, 47, at 32:
// 13.3 -> 15.6 us; bcsstk33, half its rows longer than 70, cut at 70: 35.8 -> 41.9 us).
constexpr long long kFewLongSegments = 8;
inline Choice choose_threshold(const fused::Candidates& candidates, const unsigned long long* counts, long long segments, long long preferred,
                               long long state_bytes, long long budget, std::size_t index_size) {
    Choice coarsest{};
    for (int k = 0; k < candidates.count; ++k) {
        const Found f{static_cast<long long>(counts[2 * k]), static_cast<long long>(counts[2 * k + 1])};
        if (f.segments == 0) break;
        if (f.chunks >= (1LL << 32)) continue;  // find_long_rows' counter packs long segments and chunks in 32 bits each
        // Each long segment and each chunk has an index and a long long in the lists (the 256-byte
        // alignment of the arrays aside).
        const long long lists = (f.segments + f.chunks) * static_cast<long long>(index_size + sizeof(long long));
        const bool fits = lists + f.chunks * state_bytes <= budget;
        if (candidates.threshold[k] < preferred) {  // never the fallback below
            const bool halves_longest = k + 1 < candidates.count && counts[2 * (k + 1)] > 0;
            const bool few = f.segments * kFewLongSegments <= segments;
            if (fits && halves_longest && few) return {candidates.threshold[k], f};
            continue;
        }
        if (fits) return {candidates.threshold[k], f};
        coarsest = {candidates.threshold[k], f};
    }
    // Nothing fits (states of tens of KiB on a small matrix): the coarsest cut, a few chunks a
    // long segment, rather than none, which would leave a hub row to one group.
    return coarsest;
}

// Finds the long segments of each searched pointer array on the device: count_chunks counts, for
// the preferred threshold and its doublings, the long segments and chunks each would make; one
// wait reads the counts back (a few hundred bytes); the host takes for each array the shortest
// threshold whose lists and chunks' states (Segments::state_bytes a chunk) fit `budget` (the
// coarsest when none does), carves the lists from workspace.lists at their exact sizes, and
// find_long_rows fills them. Fills *lists[n] where array n has a segment longer than its preferred
// threshold; leaves it as it was (nothing split) otherwise. No launch and no wait
// when no array can hold a segment longer than its preferred threshold.
template <class I, std::size_t N>
std::array<Found, N> find_long_segments(const Executor& exec, const std::array<Segments<I>, N>& arrays, long long budget,
                                        const std::array<fused::ChunkList<I>*, N>& lists, SearchWorkspace& workspace) {
    std::array<Found, N> found{};
    std::array<fused::Candidates, N> candidates{};
    bool any = false;
    for (std::size_t n = 0; n < N; ++n) {
        const Segments<I>& s = arrays[n];
        if (s.ptr == nullptr || s.count == 0) continue;
        // No segment is longer than nnz: the doublings stop there.
        fused::Candidates& c = candidates[n];
        for (long long t = s.first; t < s.threshold && t < s.nnz && c.count < fused::kMaxCandidates; t *= 2) c.threshold[c.count++] = t;
        for (long long t = s.threshold; t < s.nnz && c.count < fused::kMaxCandidates; t = t > s.nnz / 2 ? s.nnz : 2 * t)
            c.threshold[c.count++] = t;
        if (c.count == 0) continue;
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
                                                                           counters + n * kCountersPerArray);
        SPK_CUDA_CHECK_LAUNCH();
    }
    std::array<unsigned long long, N * kCountersPerArray> host{};
    SPK_CUDA_CHECK(cudaMemcpyAsync(host.data(), counters, sizeof(host), cudaMemcpyDeviceToHost, stream));
    SPK_CUDA_CHECK(cudaStreamSynchronize(stream));

    std::array<long long, N> thresholds{};
    Carver carver;
    std::array<std::array<std::size_t, 4>, N> at{};
    for (std::size_t n = 0; n < N; ++n) {
        if (candidates[n].count == 0) continue;
        const Choice choice =
            choose_threshold(candidates[n], host.data() + n * kCountersPerArray, arrays[n].count, arrays[n].threshold, arrays[n].state_bytes,
                             budget, sizeof(I));
        if (choice.found.segments == 0) continue;
        found[n] = choice.found;
        thresholds[n] = choice.threshold;
        at[n] = {carver.reserve(found[n].segments, sizeof(I)), carver.reserve(found[n].segments, sizeof(long long)),
                 carver.reserve(found[n].chunks, sizeof(I)), carver.reserve(found[n].chunks, sizeof(long long))};
    }
    if (carver.bytes() == 0) return found;
    workspace.lists = Workspace<std::byte>(exec, carver.bytes());
    std::byte* base = workspace.lists.data();
    for (std::size_t n = 0; n < N; ++n) {
        if (found[n].segments == 0) continue;
        fused::ChunkList<I>& c = *lists[n];
        c.threshold = thresholds[n];
        c.max_chunks = found[n].chunks;
        c.counts = counters + n * kCountersPerArray + 2 * fused::kMaxCandidates;
        c.long_rows = reinterpret_cast<I*>(base + at[n][0]);
        c.chunk_first = reinterpret_cast<long long*>(base + at[n][1]);
        c.chunk_row = reinterpret_cast<I*>(base + at[n][2]);
        c.chunk_part = reinterpret_cast<long long*>(base + at[n][3]);
        const auto blocks = static_cast<unsigned>((arrays[n].count + fused::kFindThreads - 1) / fused::kFindThreads);
        fused::find_long_rows<I><<<blocks, fused::kFindThreads, 0, stream>>>(arrays[n].ptr, arrays[n].count, c.threshold, c.counts,
                                                                             c.long_rows, c.chunk_first, c.chunk_row, c.chunk_part);
        SPK_CUDA_CHECK_LAUNCH();
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
    if (found.segments == 0) return kept;
    const auto stream = static_cast<cudaStream_t>(exec.stream());
    kept.threshold = list.threshold;
    kept.counts = Workspace<unsigned long long>(exec, 1);
    SPK_CUDA_CHECK(cudaMemcpyAsync(kept.counts.data(), list.counts, sizeof(unsigned long long), cudaMemcpyDeviceToDevice, stream));
    kept.lists = Workspace<std::byte>(exec, search.lists.size());
    SPK_CUDA_CHECK(cudaMemcpyAsync(kept.lists.data(), search.lists.data(), search.lists.size(), cudaMemcpyDeviceToDevice, stream));
    const auto offset = [&](const void* p) { return static_cast<std::size_t>(static_cast<const std::byte*>(p) - search.lists.data()); };
    kept.offsets = {offset(list.long_rows), offset(list.chunk_first), offset(list.chunk_row), offset(list.chunk_part)};
    return kept;
}

// The search's result from what a plan kept.
template <class I>
Found restore_search(const KeptSplit& kept, fused::ChunkList<I>& list) {
    if (kept.segments == 0) return {};
    std::byte* base = kept.lists.data();
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
