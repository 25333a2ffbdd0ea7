// The tuning cache file and the matrix fingerprint (host code; runs without a GPU).
#include "tune/tuning_cache.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/test_support.hpp"
#include "tune/spmm_config.hpp"

namespace spk::detail {
namespace {

std::string scratch_file(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("spk-tuning-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::filesystem::remove(path);
    return path.string();
}

TuningKey key(long long n) { return TuningKey{"NVIDIA H200", "spmm", "f32.i32", n, "sum", 0x1234abcdull}; }

TEST(TuningCache, RecordsAndReloadsEntries) {
    const std::string path = scratch_file("sub/tuning.json");  // the folder does not exist yet
    {
        TuningCache cache(path);
        EXPECT_EQ(cache.size(), 0u);
        EXPECT_FALSE(cache.find(key(32)).has_value());
        cache.record(key(32), "rb.g8.r1.v4");
        cache.record(key(128), "rb.g32.r1.v4+rb.g32.r1.v4@256:split");
        cache.record(key(32), "rb.g16.r2.v4");  // a later measurement replaces the earlier one
    }
    const TuningCache reloaded(path);
    EXPECT_EQ(reloaded.size(), 2u);
    EXPECT_EQ(reloaded.find(key(32)), "rb.g16.r2.v4");
    EXPECT_EQ(reloaded.find(key(128)), "rb.g32.r1.v4+rb.g32.r1.v4@256:split");
    EXPECT_FALSE(reloaded.find(key(64)).has_value());
    EXPECT_NE(key(32).text().find("NVIDIA H200|spmm|f32.i32|n=32|sum|000000001234abcd"), std::string::npos);
}

TEST(TuningCache, MalformedFilesNameTheLine) {
    const std::string path = scratch_file("bad.json");
    std::ofstream(path) << "{\"something\": 2}\n";
    test::expect_error([&] { TuningCache c(path); }, ErrorKind::Format, path + ":1: not an spk tuning cache");
    std::ofstream(path) << "{\"spk_tuning_cache\": 1, \"entries\": {\n  \"k\": \"v\",\n  garbage\n}}\n";
    test::expect_error([&] { TuningCache c(path); }, ErrorKind::Format, path + ":3:");
    std::ofstream(path) << "{\"spk_tuning_cache\": 1, \"entries\": {\n  \"k\": \"v\",\n";
    test::expect_error([&] { TuningCache c(path); }, ErrorKind::Format, "truncated");
}

TEST(TuningCache, RefusesKeysThatWouldBreakTheFile) {
    TuningCache cache(scratch_file("quotes.json"));
    TuningKey k = key(4);
    k.device = "bad\"name";
    test::expect_error([&] { cache.record(k, "rb.g8.r1.v4"); }, ErrorKind::InvalidArgument, "quote");
}

TEST(TuningCache, PathFollowsTheEnvironment) {
    ::setenv("SPK_TUNING_CACHE", "/tmp/somewhere/cache.json", 1);
    EXPECT_EQ(tuning_cache_path(), "/tmp/somewhere/cache.json");
    ::unsetenv("SPK_TUNING_CACHE");
    EXPECT_NE(tuning_cache_path().find("spk"), std::string::npos);
}

TEST(Fingerprint, SameFeaturesSameDigestOtherwiseDifferent) {
    SpmmFeatures f;
    f.rows = 1000;
    f.cols = 900;
    f.nnz = 5000;
    f.max_row = 40;
    f.log2_histogram[3] = 1000;
    SpmmFeatures g = f;
    EXPECT_EQ(fingerprint(f), fingerprint(g));
    g.log2_histogram[3] = 999;
    g.log2_histogram[4] = 1;
    EXPECT_NE(fingerprint(f), fingerprint(g));
    g = f;
    g.cols = 901;
    EXPECT_NE(fingerprint(f), fingerprint(g));
    g = f;
    g.n = 128;  // n is part of the key, not of the matrix's fingerprint
    EXPECT_EQ(fingerprint(f), fingerprint(g));
}

}  // namespace
}  // namespace spk::detail
