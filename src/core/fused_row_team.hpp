#pragma once
// Row teams of the CUDA FusedMM forward (cuda/fusedmm/forward_kernel.cuh), host side and plain C++
// so that the rule is tested without a device. A team is `team` groups of G lanes that share one
// row, each walking an equal contiguous span of its entries; their softmax states (max, sum,
// accumulator) then merge by shuffles, as combine_chunks merges a long row's chunks, but inside
// one warp and without a second kernel.
//
// Why: on a graph whose rows cannot fill the device (a few thousand rows of 30-100 entries, FEM
// meshes, small citation graphs) the time is the longest row's walk, and ncu shows that walk is
// issue-bound (on bcsstk13, ~300 instructions a batch of 4 entries at ~5 cycles each), so only
// more warps on the row shorten it. Teams use the lanes those graphs leave idle.
#include <string>

#include "spk/error.hpp"

namespace spk::detail::cuda::fused_team {

constexpr int kMaxTeam = 8;  // the warps of the forward's 256-thread block

// The largest team for groups of `lanes` lanes: narrower groups stay inside one warp.
constexpr int widest_team(int lanes) { return lanes < 32 ? 32 / lanes : kMaxTeam; }
// Mean row length below which teams are not formed: a span then holds less than two batches of
// the forward's 4 entries, and the merge costs more than the walk it saves.
constexpr long long kMinMeanRow = 8;
// Except on a graph so small that even its widest teams take at most 1/kIdleShare of the device's
// lanes: the device idles whatever the choice, the time is the longest row's walk, and teams
// shorten it however short the mean row (H200, karate: 34 rows of mean 4.6 and longest 17, one
// head: 6.2 -> 4.4 us at k = 32 with teams of 4, 6.1 -> 4.9 us at k = 128 with teams of 8).
constexpr long long kIdleShare = 8;

// The forward's configuration: the row teams' size (0: the rule below decides) and where team rows
// begin (fused::ChunkList::team_threshold; -1: the rule decides, 0: none).
struct ForwardConfig {
    int team = 0;
    long long rows_from = -1;
};

// The forward's configuration string: "auto", or "team<P>" with P in {1, 2, 4, 8} (capped where
// groups narrower than a warp would not fit one), "rows<T>" (rows longer than about T entries walked
// by a block each; rows0: none), or both as "team<P>.rows<T>".
inline ForwardConfig parse_forward_config(const std::string& config) {
    const auto bad = [&]() {
        invalid_argument("FusedOptions.config '" + config +
                         "': expected 'auto', team1, team2, team4 or team8 (groups of lanes that share a row), rows<T> (rows longer"
                         " than T entries walked by a block each; rows0: none), or team<P>.rows<T>");
    };
    ForwardConfig c;
    if (config == "auto") return c;
    if (config.empty()) bad();
    std::string rest = config;
    if (rest.rfind("team", 0) == 0) {
        const std::size_t dot = rest.find('.');
        const std::string team = rest.substr(0, dot);
        for (int p = 1; p <= kMaxTeam; p *= 2)
            if (team == "team" + std::to_string(p)) c.team = p;
        if (c.team == 0) bad();
        rest = dot == std::string::npos ? std::string() : rest.substr(dot + 1);
        if (dot != std::string::npos && rest.empty()) bad();
    }
    if (rest.empty()) return c;
    if (rest.rfind("rows", 0) != 0 || rest.size() == 4 || rest.size() > 13) bad();
    c.rows_from = 0;
    for (std::size_t i = 4; i < rest.size(); ++i) {
        if (rest[i] < '0' || rest[i] > '9') bad();
        c.rows_from = c.rows_from * 10 + (rest[i] - '0');
    }
    return c;
}

// The team size for `rows` rows of mean length nnz / rows, `heads` heads and `tiles` tiles, in
// groups of `lanes` lanes, on a device that holds `resident_lanes` threads of the forward at once:
// `requested` when given (capped at widest_team), else the widest on graphs that leave the device
// idle, else the largest power of two up to it whose teams still fit the device in one wave, and
// at least pairs where the rows alone fit one wave; 1 where the rows are too short to share.
// Pairs past one wave: rows that fill part of one wave leave the rest of the device idle, and
// pairs use it even where they spill into a second (H200, one head of 128, rows alone / pairs in
// waves: chameleon 0.54 / 1.08, 18.9 -> 15.0 us; zenios 0.68 / 1.36, 11.9 -> 10.3 us;
// facebook_combined 0.96 / 1.91, 41.2 -> 40.1 us; one head of 32: bcsstk33 0.52 / 1.03, 31.6 ->
// 30.9 us). Teams of 4 there lose (chameleon 16.1, zenios 14.6 us), as do pairs where the rows
// alone pass one wave (bcsstk16 1.16 waves: 35.7 -> 34.7 us, but ca-HepPh 2.84: 55.4 -> 60.3).
inline int choose(long long rows, long long nnz, int heads, long long tiles, int lanes, long long resident_lanes, int requested) {
    const int widest = widest_team(lanes);
    if (requested > 0) return requested < widest ? requested : widest;
    if (rows <= 0) return 1;
    const long long alone = rows * heads * tiles * lanes;  // the lanes without teams
    if (alone * widest * kIdleShare <= resident_lanes) return widest;
    if (nnz < kMinMeanRow * rows || alone > resident_lanes) return 1;
    int team = widest >= 2 ? 2 : 1;
    while (team * 2 <= widest && alone * team * 2 <= resident_lanes) team *= 2;
    return team;
}

}  // namespace spk::detail::cuda::fused_team
