#pragma once
// Where the FusedMM passes cut long segments (rows of A; in the backward pass also A's columns)
// into chunks (cuda/fusedmm/split.cuh), host side and plain C++ so that the rules are tested
// without a device: the candidate thresholds a search counts chunks for, the budget their states
// must fit, and the choice among the candidates once their counts are known
// (cuda/fusedmm/long_segments.cuh runs the search).
#include <algorithm>
#include <cstddef>

#include "core/cuda_runtime.hpp"

namespace spk::detail::cuda {

namespace fused {

// The thresholds a search weighs, shortest first (candidates()).
constexpr int kMaxCandidates = 24;
struct Candidates {
    long long threshold[kMaxCandidates] = {};
    int count = 0;
};

}  // namespace fused

namespace fused_search {

// The preferred threshold: segments longer than this are cut into chunks of at most this many
// entries, unless their states would exceed the chunk budget (chunk_budget: then a longer
// threshold is taken):
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

// The first threshold a search weighs: the share of the work a resident warp, from 16 to
// kSplitFloor entries; it and its doublings below the preferred threshold are optional cuts, which
// choose_threshold takes only where a few segments are far longer than the rest. On a small graph
// (a share below kSplitFloor) most of the device idles and the kernel takes as long as its longest
// segment's serial steps (a few entries a step, each step dependent round trips to L2): citeseer's
// row of 99 held the forward 23 us at K = 32, 12.5 us once cut at 16. On a large one whose 16 mean
// rows exceed 128 entries, the first candidate is 128: R-MAT 20 (one head of 32) 1189 -> 1084 us
// (H200).
inline long long first_split_threshold(long long nnz, int heads, const DeviceProperties& device) {
    return std::clamp(work_share(nnz, heads, device), kSmallGraphSplitFloor, kSplitFloor);
}

// The candidates for segments of at most nnz entries: from `first` doubling while below
// `preferred`, then `preferred` and its doublings until a candidate reaches nnz (no segment is
// longer).
inline fused::Candidates candidates(long long first, long long preferred, long long nnz) {
    fused::Candidates c;
    for (long long t = first; t < preferred && t < nnz && c.count < fused::kMaxCandidates; t *= 2) c.threshold[c.count++] = t;
    for (long long t = preferred; t < nnz && c.count < fused::kMaxCandidates; t = t > nnz / 2 ? nnz : 2 * t) c.threshold[c.count++] = t;
    return c;
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
// takes 512, no slower than 256). At the preferred threshold and above, at least 64 KiB: on small
// matrices that little memory lets a huge row be cut finely (the only parallelism there is).
// Below it (a small graph's optional cuts) half an array strictly: with the 64 KiB there, the
// forward's peak on Erdos971 (2628 entries, one head of 128) was 45 KiB against the pipeline's 10.
constexpr long long kMinChunkBudget = 64 << 10;
struct ChunkBudget {
    long long preferred = 0;        // at the preferred threshold and above
    long long below_preferred = 0;  // below it
};
inline ChunkBudget chunk_budget(long long nnz, std::size_t accum_size) {
    const long long half_array = nnz * static_cast<long long>(accum_size) / 2;
    return {std::max(kMinChunkBudget, half_array), half_array};
}

// What a search found: long segments and their chunks.
struct Found {
    long long segments = 0, chunks = 0;
};

// The threshold and its count for one pointer array (choose_threshold).
struct Choice {
    long long threshold = 0;
    Found found;
};

// The threshold for one pointer array of `segments` segments, from each candidate k's counts
// (counts[2k]: long segments, counts[2k + 1]: chunks; find_long_rows packs both in 32 bits): the
// shortest candidate whose lists and `state_bytes` a chunk fit the budget; nothing split when no
// segment is longer than the first candidate (Found{}); where none fits, the coarsest at or above
// `preferred` (a few chunks a long segment rather than none, which would leave a hub row to one
// group).
// Below `preferred` (a small graph's first candidates) a candidate is taken only where it fits
// its budget, some segment is longer than the next candidate, so that the split at least halves
// the longest segment's serial steps, and few segments (at most 1 in kFewLongSegments) are long:
// what pays for the chunks' states and the combine kernel is a few segments far longer than the
// rest. Cutting many, or rows barely longer than the threshold, costs more than it saves (H200,
// one head of 32: chameleon, longest row 88, cut at 64: 19.7 -> 23.1 us; zenios, 47, at 32:
// 13.3 -> 15.6 us; bcsstk33, half its rows longer than 70, cut at 70: 35.8 -> 41.9 us).
constexpr long long kFewLongSegments = 8;
inline Choice choose_threshold(const fused::Candidates& candidates, const unsigned long long* counts, long long segments,
                               long long preferred, long long state_bytes, const ChunkBudget& budget, std::size_t index_size) {
    Choice coarsest{};
    for (int k = 0; k < candidates.count; ++k) {
        const Found f{static_cast<long long>(counts[2 * k]), static_cast<long long>(counts[2 * k + 1])};
        if (f.segments == 0) break;
        if (f.chunks >= (1LL << 32)) continue;  // find_long_rows' counter packs long segments and chunks in 32 bits each
        // Each long segment and each chunk has an index and a long long in the lists (the 256-byte
        // alignment of the arrays aside).
        const long long bytes = (f.segments + f.chunks) * static_cast<long long>(index_size + sizeof(long long)) + f.chunks * state_bytes;
        if (candidates.threshold[k] < preferred) {  // never the fallback
            const bool halves_longest = k + 1 < candidates.count && counts[2 * (k + 1)] > 0;
            const bool few = f.segments * kFewLongSegments <= segments;
            if (bytes <= budget.below_preferred && halves_longest && few) return {candidates.threshold[k], f};
            continue;
        }
        if (bytes <= budget.preferred) return {candidates.threshold[k], f};
        coarsest = {candidates.threshold[k], f};
    }
    return coarsest;
}

// The forward's team rows (fused::ChunkList::team_threshold): rows longer than the smallest
// candidate of at least `wanted` entries and not cut into chunks (at most `chunked` entries, the
// chosen threshold, which `chunked_segments` rows exceed; 0: none is cut). Their count comes from
// the same counts (counts[2k] rows exceed candidate k). None where no candidate lies below the chunk
// threshold or no row between.
struct TeamRows {
    long long threshold = 0, count = 0;
};
inline TeamRows team_rows(const fused::Candidates& candidates, const unsigned long long* counts, long long wanted, long long chunked,
                          long long chunked_segments) {
    if (wanted <= 0) return {};
    for (int k = 0; k < candidates.count; ++k) {
        const long long t = candidates.threshold[k];
        if (t < wanted) continue;
        if (chunked > 0 && t >= chunked) return {};
        const long long count = static_cast<long long>(counts[2 * k]) - chunked_segments;
        return count > 0 ? TeamRows{t, count} : TeamRows{};
    }
    return {};
}

// The forward's own choice of team rows, for groups of whole warps (a block is 8 groups): the
// smallest candidate that cuts the row blocks' longest walk (`max_row`, or the chunk threshold
// where rows are cut) at least kTeamWalkCut-fold, where at most half the rows exceed it, on a
// launch whose chunk items fit the device's resident blocks at once and whose row blocks at most
// twice. Team rows shorten the critical path of a graph the device finishes in about a wave; past
// that a team's extra blocks and merges cost more than they save. Measured on the H200 (one head
// of 128, `rows<T>` against none, 22 small graphs): email-Eu-core 32.0 -> 17.0 us, ca-GrQc 19.9 ->
// 11.7, squirrel 64.7 -> 42.2, web-spam 37.7 -> 28.7, wiki-Vote 39.4 -> 34.0 (all taken by the rule);
// bcsstk13 (95% of its rows past 16) 15.3 -> 23.1, zenios (longest row 47) at 32 9.1 -> 11.1,
// pubmed (2465 row blocks) 41.6 -> 45.9, ca-HepPh (825 chunks) 54.6 -> 67.7 at 112, soc-Slashdot0902
// 208 -> 268 (none taken). Groups of 8 lanes made teams of 32 groups, too many for rows of tens of
// entries (one head of 32: chameleon 7.8 -> 10.4 us at 16): no rule for them.
constexpr long long kTeamWalkCut = 4;
inline TeamRows auto_team_rows(const fused::Candidates& candidates, const unsigned long long* counts, long long rows, long long max_row,
                               long long chunked, long long chunked_segments, long long chunk_items, long long row_blocks,
                               long long resident_blocks) {
    if (chunk_items > resident_blocks || row_blocks > 2 * resident_blocks) return {};
    const long long walk = chunked > 0 ? std::min(max_row, chunked) : max_row;
    for (int k = 0; k < candidates.count; ++k) {
        const long long t = candidates.threshold[k];
        if (kTeamWalkCut * t > walk || (chunked > 0 && t >= chunked)) break;
        const long long count = static_cast<long long>(counts[2 * k]) - chunked_segments;
        if (count <= 0) break;
        if (2 * count <= rows) return {t, count};
    }
    return {};
}

}  // namespace fused_search

}  // namespace spk::detail::cuda
