// Where the FusedMM passes cut long segments into chunks (core/fused_split_threshold.hpp): the
// candidate thresholds, the budget and the choice among the candidates from their counts, with the
// H200's 132 multiprocessors of 2048 threads (8448 resident warps). Plain C++: no device needed.
#include <gtest/gtest.h>

#include <vector>

#include "core/fused_split_threshold.hpp"

namespace spk::detail::cuda::fused_search {
namespace {

DeviceProperties h200() {
    DeviceProperties d;
    d.sm_count = 132;
    d.max_threads_per_sm = 2048;
    return d;
}

std::vector<long long> thresholds(const fused::Candidates& c) { return {c.threshold, c.threshold + c.count}; }

// Counts for candidates whose k-th has long[k] long segments, each cut into `per` chunks.
std::vector<unsigned long long> counts_of(const std::vector<unsigned long long>& long_segments, unsigned long long per = 2) {
    std::vector<unsigned long long> counts;
    for (const unsigned long long n : long_segments) {
        counts.push_back(n);
        counts.push_back(n * per);
    }
    return counts;
}

TEST(FusedSplitThreshold, PreferredAndFirstThresholds) {
    const DeviceProperties d = h200();
    // R-MAT 20: 16 mean rows of 16 entries; a share of 1904 entries a warp.
    EXPECT_EQ(split_threshold(1 << 20, 16'000'000, 1, d), 256);
    EXPECT_EQ(first_split_threshold(16'000'000, 1, d), 128);
    // citeseer: 3327 rows, 9228 entries: the share (1) is below the small-graph floor.
    EXPECT_EQ(split_threshold(3327, 9228, 1, d), 128);
    EXPECT_EQ(first_split_threshold(9228, 1, d), 16);
    // squirrel with four heads: a share of 102 entries.
    EXPECT_EQ(first_split_threshold(217073, 4, d), 102);
}

TEST(FusedSplitThreshold, CandidatesDoubleBelowAndFromThePreferred) {
    EXPECT_EQ(thresholds(candidates(16, 128, 9228)), (std::vector<long long>{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}));
    EXPECT_EQ(thresholds(candidates(25, 128, 1000)), (std::vector<long long>{25, 50, 100, 128, 256, 512}));
    EXPECT_EQ(thresholds(candidates(128, 128, 300)), (std::vector<long long>{128, 256}));
    EXPECT_EQ(candidates(128, 128, 100).count, 0);  // no segment can be longer than 100
    EXPECT_EQ(candidates(16, 128, 1LL << 40).count, fused::kMaxCandidates);
}

TEST(FusedSplitThreshold, BudgetIsHalfAnArrayWithAFloorFromThePreferredOn) {
    const ChunkBudget small = chunk_budget(2628, 4);
    EXPECT_EQ(small.preferred, kMinChunkBudget);
    EXPECT_EQ(small.below_preferred, 5256);
    const ChunkBudget large = chunk_budget(16'000'000, 4);
    EXPECT_EQ(large.preferred, 32'000'000);
    EXPECT_EQ(large.below_preferred, 32'000'000);
}

// Below the preferred threshold a candidate must fit the strict budget, leave few long segments
// (at most 1 in 8) and have a segment longer than the next candidate.
TEST(FusedSplitThreshold, OptionalCutsNeedFewFarLongerSegments) {
    const fused::Candidates c = candidates(16, 128, 100000);  // 16, 32, 64, 128, 256, ...
    const ChunkBudget roomy{1 << 30, 1 << 30};
    // 23 of 3327 rows longer than 16, 4 longer than 32: cut at 16.
    auto counts = counts_of({23, 4, 1, 0});
    EXPECT_EQ(choose_threshold(c, counts.data(), 3327, 128, 100, roomy, 4).threshold, 16);
    // Half the rows longer than 16, 32 and 64 (a mesh's even rows), none longer than 128: no cut.
    counts = counts_of({1500, 1400, 1300, 0});
    EXPECT_EQ(choose_threshold(c, counts.data(), 3000, 128, 100, roomy, 4).found.segments, 0);
    // Few rows longer than 64 but none longer than 128 (the next candidate): no cut at 64.
    counts = counts_of({900, 900, 20, 0});
    EXPECT_EQ(choose_threshold(c, counts.data(), 3000, 128, 100, roomy, 4).found.segments, 0);
    // Many rows longer than 16 and 32, few longer than 64 and some far longer: cut at 32.
    counts = counts_of({900, 300, 20, 5, 0});
    EXPECT_EQ(choose_threshold(c, counts.data(), 3000, 128, 100, roomy, 4).threshold, 32);
    // Many rows longer than every optional cut: the preferred threshold, as on a large graph.
    counts = counts_of({900, 900, 900, 5, 0});
    EXPECT_EQ(choose_threshold(c, counts.data(), 3000, 128, 100, roomy, 4).threshold, 128);
}

// The strict budget below the preferred threshold, the floored one from it on, and the coarsest
// fallback only from it on.
TEST(FusedSplitThreshold, BudgetsAndFallback) {
    const fused::Candidates c = candidates(16, 128, 100000);
    // 10 long rows of 2 chunks: (10 + 20) x 12 bytes of lists and 20 x 100 bytes of states.
    const long long bytes = 30 * 12 + 20 * 100;
    auto counts = counts_of({10, 10, 10, 10, 10, 0});
    EXPECT_EQ(choose_threshold(c, counts.data(), 1000, 128, 100, {bytes, bytes}, 4).threshold, 16);
    EXPECT_EQ(choose_threshold(c, counts.data(), 1000, 128, 100, {bytes, bytes - 1}, 4).threshold, 128);
    // Nothing fits anywhere: the coarsest candidate at or above 128 (256), never one below.
    const Choice none = choose_threshold(c, counts.data(), 1000, 128, 100, {bytes - 1, bytes - 1}, 4);
    EXPECT_EQ(none.threshold, 256);
    EXPECT_EQ(none.found.chunks, 20);
    // A graph whose first candidate has no long segment splits nothing.
    counts = counts_of({0});
    EXPECT_EQ(choose_threshold(c, counts.data(), 1000, 128, 100, {bytes, bytes}, 4).found.segments, 0);
}

// Team rows: from the smallest candidate of at least the wanted length up to the chunk threshold,
// counted from the same counts.
TEST(FusedSplitThreshold, TeamRowsLieBetweenTheirThresholdAndTheChunks) {
    const fused::Candidates c = candidates(16, 128, 100000);  // 16, 32, 64, 128, 256, ...
    const auto counts = counts_of({900, 300, 120, 40, 10, 0});
    // Wanted 20: from 32 (300 rows), 40 of them cut into chunks at 128.
    TeamRows t = team_rows(c, counts.data(), 20, 128, 40);
    EXPECT_EQ(t.threshold, 32);
    EXPECT_EQ(t.count, 260);
    // Nothing cut: every row past the team threshold.
    t = team_rows(c, counts.data(), 64, 0, 0);
    EXPECT_EQ(t.threshold, 64);
    EXPECT_EQ(t.count, 120);
    // No candidate below the chunk threshold, none wanted, or no row between: none.
    EXPECT_EQ(team_rows(c, counts.data(), 128, 128, 40).count, 0);
    EXPECT_EQ(team_rows(c, counts.data(), 0, 128, 40).count, 0);
    EXPECT_EQ(team_rows(c, counts.data(), 64, 128, 120).count, 0);
    EXPECT_EQ(team_rows(c, counts.data(), 1 << 20, 0, 0).count, 0);
}

// The forward's own team rows: the smallest candidate that cuts the longest walk four-fold with at
// most half the rows past it, on launches of about a wave (counts of the H200's small graphs).
TEST(FusedSplitThreshold, AutoTeamRowsOnGraphsOfAboutAWave) {
    const long long resident = 528;  // 132 multiprocessors x 4 blocks of 256
    // squirrel, one head of 128: rows past 25, 50, 100, 128 and 256 (28 rows cut into 56 chunks).
    const fused::Candidates c = candidates(25, 128, 217073);  // 25, 50, 100, 128, 256, ...
    const auto counts = counts_of({1585, 1153, 1028, 811, 28, 0});
    TeamRows t = auto_team_rows(c, counts.data(), 5201, 264, 256, 28, 56, 651, resident);
    EXPECT_EQ(t.threshold, 25);
    EXPECT_EQ(t.count, 1557);
    // The same with the chunk items or the row blocks past what the device holds: none.
    EXPECT_EQ(auto_team_rows(c, counts.data(), 5201, 264, 256, 28, resident + 1, 651, resident).count, 0);
    EXPECT_EQ(auto_team_rows(c, counts.data(), 5201, 264, 256, 28, 56, 2 * resident + 1, resident).count, 0);
    // Even rows (bcsstk13: 95% of the rows past 16, the longest 95): past 16 most rows, and 32 does not cut 95 four-fold.
    const fused::Candidates even = candidates(16, 128, 83883);
    const auto even_counts = counts_of({1905, 1099, 347, 0});
    EXPECT_EQ(auto_team_rows(even, even_counts.data(), 2003, 95, 0, 0, 0, 251, resident).count, 0);
    // A longest row of 47 (zenios): no candidate cuts it four-fold.
    EXPECT_EQ(auto_team_rows(even, counts_of({682, 149, 0}).data(), 2873, 47, 0, 0, 0, 360, resident).count, 0);
    // Past the first candidate most rows, past the second few: the second (email-Eu-core with 1005 rows would take 16).
    t = auto_team_rows(even, counts_of({800, 275, 101, 16, 1, 0}).data(), 1005, 334, 128, 16, 33, 126, resident);
    EXPECT_EQ(t.threshold, 32);
    EXPECT_EQ(t.count, 259);
}

}  // namespace
}  // namespace spk::detail::cuda::fused_search
