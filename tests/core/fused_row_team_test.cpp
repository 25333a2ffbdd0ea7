// The CUDA FusedMM forward's row teams (core/fused_row_team.hpp): the configuration string and
// the team size, on the H200's 132 multiprocessors (the forward holds half of their 2048 threads:
// 135 168 resident lanes). Plain C++: no device needed.
#include <gtest/gtest.h>

#include "core/fused_row_team.hpp"
#include "spk/error.hpp"

namespace spk::detail::cuda::fused_team {
namespace {

constexpr long long kH200Lanes = 132LL * 2048 / 2;

// The team for one head and one tile unless given, on the H200.
int team(long long rows, long long nnz, int lanes, int heads = 1, long long tiles = 1, int requested = 0) {
    return choose(rows, nnz, heads, tiles, lanes, kH200Lanes, requested);
}

TEST(FusedRowTeam, ConfigStrings) {
    EXPECT_EQ(parse_forward_config("auto").team, 0);
    EXPECT_EQ(parse_forward_config("auto").rows_from, -1);
    EXPECT_EQ(parse_forward_config("team1").team, 1);
    EXPECT_EQ(parse_forward_config("team2").team, 2);
    EXPECT_EQ(parse_forward_config("team4").team, 4);
    EXPECT_EQ(parse_forward_config("team8").team, 8);
    EXPECT_EQ(parse_forward_config("team8").rows_from, -1);
    EXPECT_EQ(parse_forward_config("rows64").team, 0);
    EXPECT_EQ(parse_forward_config("rows64").rows_from, 64);
    EXPECT_EQ(parse_forward_config("rows0").rows_from, 0);
    EXPECT_EQ(parse_forward_config("team2.rows32").team, 2);
    EXPECT_EQ(parse_forward_config("team2.rows32").rows_from, 32);
    for (const char* bad : {"", "team", "team0", "team3", "team16", "rows", "auto ", "rows-1", "rows1x", "team2.", "team2.team4",
                            "rows32.team2", "team2rows32", "rows12345678901"})
        EXPECT_THROW(parse_forward_config(bad), Error) << bad;
}

TEST(FusedRowTeam, SmallGraphsOfLongRowsShareEachRow) {
    // bcsstk13 (2003 rows, mean 42), one head, k = 32 in groups of 8 lanes: 16 024 lanes alone,
    // so teams of 4 (a warp a row) still fit in one wave.
    EXPECT_EQ(team(2003, 83883, 8), 4);
    // Groups of 4 lanes (narrow heads) go up to teams of 8.
    EXPECT_EQ(team(2003, 83883, 4), 8);
    // Groups of a warp (k = 128) take 64 096 lanes alone: pairs of warps a row fill one wave.
    EXPECT_EQ(team(2003, 83883, 32), 2);
    // Fewer rows team up across more of a block's 8 warps, never beyond them.
    EXPECT_EQ(team(500, 20000, 32), 8);
}

TEST(FusedRowTeam, TeamsStopWhereTheDeviceIsFull) {
    // 20 000 rows of mean 8 in groups of 8: 160 000 lanes alone, more than one wave.
    EXPECT_EQ(team(20000, 160000, 8), 1);
    // Four heads take four times the lanes: bcsstk13 then only pairs its groups.
    EXPECT_EQ(team(2003, 83883, 8, 4), 2);
    // Tiles count like heads.
    EXPECT_EQ(team(2003, 83883, 8, 1, 4), 2);
    // A large graph never forms teams.
    EXPECT_EQ(team(1'000'000, 16'000'000, 8), 1);
}

TEST(FusedRowTeam, RowsThatFillPartOfOneWaveTakePairs) {
    // 10 240 rows of mean 8 in groups of 8: 81 920 lanes alone, pairs take 1.2 waves.
    EXPECT_EQ(team(10240, 81920, 8), 2);
    // chameleon (2277 rows, mean 16) and facebook_combined (4039, mean 44) at k = 128: 0.54 and
    // 0.96 waves alone.
    EXPECT_EQ(team(2277, 36101, 32), 2);
    EXPECT_EQ(team(4039, 176468, 32), 2);
    // bcsstk16 (4884 rows) at k = 128 passes one wave alone: no teams.
    EXPECT_EQ(team(4884, 290378, 32), 1);
    // One wave alone exactly still pairs.
    EXPECT_EQ(team(4224, 4224 * 8, 32), 2);
    EXPECT_EQ(team(4225, 4225 * 8, 32), 1);
}

TEST(FusedRowTeam, ShortRowsAreNotShared) {
    EXPECT_EQ(team(2708, 10556, 8), 1);    // cora: mean 3.9
    EXPECT_EQ(team(1000, 7999, 8), 1);     // mean just under 8
    EXPECT_EQ(team(1000, 8000, 8), 4);
    EXPECT_EQ(team(0, 0, 8), 1);
}

TEST(FusedRowTeam, GraphsThatLeaveTheDeviceIdleTakeTheWidestTeams) {
    // karate (34 rows, mean 4.6): its widest teams take 1088 lanes in groups of 8 (k = 32) and
    // 8704 in groups of 32 (k = 128), under an eighth of the device's 135 168.
    EXPECT_EQ(team(34, 156, 8), 4);
    EXPECT_EQ(team(34, 156, 32), 8);
    // An eighth exactly still counts; one row more does not, and the mean rule decides again.
    EXPECT_EQ(team(528, 528, 8), 4);   // 528 x 8 x 4 x 8 = 135 168
    EXPECT_EQ(team(529, 529, 8), 1);
    // Heads and tiles count: four heads of karate at k = 128 fill more than an eighth.
    EXPECT_EQ(team(34, 156, 32, 4), 1);
}

TEST(FusedRowTeam, RequestedTeamsAreCappedAtAWarpOrABlock) {
    // Groups narrower than a warp team up inside one; whole warps across a block's 8.
    EXPECT_EQ(team(2003, 83883, 8, 1, 1, 8), 4);
    EXPECT_EQ(team(2003, 83883, 8, 1, 1, 2), 2);
    EXPECT_EQ(team(2003, 83883, 32, 1, 1, 4), 4);
    EXPECT_EQ(team(2003, 83883, 32, 1, 1, 8), 8);
    // Requested teams hold even where the rule would form none.
    EXPECT_EQ(team(10, 10, 4, 1, 1, 8), 8);
}

}  // namespace
}  // namespace spk::detail::cuda::fused_team
