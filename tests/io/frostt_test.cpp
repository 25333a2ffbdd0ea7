// FROSTT .tns reading: small files with known contents, dims comments, bad lines, and the two
// shared tensors with the counts their README states.
#include <numeric>

#include "io/io_test_files.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

template <class V, class I>
std::vector<std::array<index_t, 4>> entries_of(const CooTensor3<V, I>& t) {
    std::vector<std::array<index_t, 4>> out;
    for (index_t p = 0; p < t.nnz(); ++p)
        out.push_back({t.idx[0][p], t.idx[1][p], t.idx[2][p], static_cast<index_t>(value_cast<double>(t.values[p]) * 10)});
    return out;
}

TEST(Frostt, DimsFromTheLargestIndexPerMode) {
    TempDir dir;
    const auto t = read_frostt<double, std::int32_t>(dir.write("t.tns", "# a comment\n1 2 3 1.5\n\n4\t1\t2\t-2\r\n  2 5 1 0.5  \n"));
    EXPECT_EQ(t.dims, (std::array<index_t, 3>{4, 5, 3}));
    EXPECT_EQ(t.nnz(), 3);
    EXPECT_EQ(entries_of(t), (std::vector<std::array<index_t, 4>>{{0, 1, 2, 15}, {3, 0, 1, -20}, {1, 4, 0, 5}}));
}

TEST(Frostt, DimsCommentFixesTheDims) {
    TempDir dir;
    for (const std::string comment :
         {"# dims 10 x 20 x 30", "# dims: 10 20 30", "#dims=10x20x30", "# dims 10 x 20 x 30; ids sorted -> 1..N"}) {
        SCOPED_TRACE(comment);
        const auto t = read_frostt<float, std::int64_t>(dir.write("d.tns", comment + "\n1 1 1 1\n"));
        EXPECT_EQ(t.dims, (std::array<index_t, 3>{10, 20, 30}));
        EXPECT_EQ(t.nnz(), 1);
    }
    // A comment that merely starts with other words is not a dims comment.
    const auto t = read_frostt<float, std::int32_t>(dir.write("o.tns", "# dimensions are inferred\n# relations: 1=a 2=b\n2 3 4 1\n"));
    EXPECT_EQ(t.dims, (std::array<index_t, 3>{2, 3, 4}));
}

TEST(Frostt, GzipEmptyAndWideIndices) {
    TempDir dir;
    const auto g = read_frostt<double, std::int64_t>(dir.write("t.tns.gz", "1 1 3000000000 2\n"));
    EXPECT_EQ(g.dims, (std::array<index_t, 3>{1, 1, 3000000000LL}));
    EXPECT_EQ(g.idx[2][0], 2999999999LL);
    const std::string wide = dir.file("t.tns.gz");
    EXPECT_TRUE(throws_error([&] { read_frostt<double, std::int32_t>(wide); }, ErrorKind::InvalidArgument, {wide + ":1:", "int64"}));
    // An empty tensor says its dims; a file with neither entries nor dims (empty, or cut before
    // its first entry) is not read as one.
    const auto e = read_frostt<float, std::int32_t>(dir.write("e.tns", "# nothing here\n# dims 4 x 5 x 6\n"));
    EXPECT_EQ(e.nnz(), 0);
    EXPECT_EQ(e.dims, (std::array<index_t, 3>{4, 5, 6}));
    for (const std::string text : {"", "# nothing here\n"}) {
        const std::string path = dir.write("n.tns", text);
        EXPECT_TRUE(throws_error([&] { read_frostt<float, std::int32_t>(path); }, ErrorKind::Format, {path, "no entries and no dims comment"}));
    }
    // Declared dims must fit the index type; "dims" in any case.
    const std::string big = dir.write("big.tns", "# dims 3000000000 x 1 x 1\n1 1 1 2\n");
    EXPECT_TRUE(throws_error([&] { read_frostt<float, std::int32_t>(big); }, ErrorKind::InvalidArgument,
                             {big + ":1:", "declared dim 3000000000 does not fit i32 indices"}));
    const std::array<index_t, 3> big_dims{3000000000LL, 1, 1}, small_dims{3, 4, 5};
    EXPECT_EQ((read_frostt<float, std::int64_t>(big).dims), big_dims);
    EXPECT_EQ((read_frostt<float, std::int32_t>(dir.write("c.tns", "# Dims 3 4 5\n1 1 1 2\n")).dims), small_dims);
}

TEST(Frostt, SixteenBitValuesGoThroughFloat) {
    TempDir dir;
    const std::string path = dir.write("h.tns", "1 1 1 0.1\n1 1 2 3\n");
    const auto h = read_frostt<f16, std::int32_t>(path);
    EXPECT_EQ(h.values[0].bits, f16(0.1f).bits);
    EXPECT_EQ(static_cast<float>(h.values[1]), 3.0f);
    const auto b = read_frostt<bf16, std::int64_t>(path);
    EXPECT_EQ(b.values[0].bits, bf16(0.1f).bits);
}

TEST(Frostt, BadLinesNamePathLineAndReason) {
    struct Bad {
        const char* name;
        std::string text;
        int line;
        std::vector<std::string> reason;
    };
    const std::vector<Bad> cases = {
        {"three_fields", "1 1 1 1\n1 2 3\n", 2, {"expected 4 fields", "found 3"}},
        {"five_fields", "1 1 1 1 1\n", 1, {"expected 4 fields", "found 5"}},
        {"two_fields", "# c\n1 2\n", 2, {"expected 4 fields", "found 2"}},
        {"non_numeric_index", "1 x 1 1\n", 1, {"non-numeric mode-2 index 'x'"}},
        {"non_numeric_value", "1 1 1 one\n", 1, {"non-numeric value 'one'"}},
        {"zero_index", "1 1 0 1\n", 1, {"mode-3 index 0 is < 1"}},
        {"negative_index", "-1 1 1 1\n", 1, {"mode-1 index '-1' is negative"}},
        {"fractional_index", "1.5 1 1 1\n", 1, {"non-numeric mode-1 index '1.5'"}},
        {"index_above_dims", "# dims 2 x 2 x 2\n1 1 1 1\n1 3 1 1\n", 3, {"mode-2 index 3 exceeds the dim 2", "line 1"}},
        {"dims_with_two_numbers", "# dims 4 x 3\n1 1 1 1\n", 1, {"gives 2 dims", "needs 3"}},
        {"dims_not_numbers", "# dims: a b c\n", 1, {"malformed dims comment"}},
        {"dims_after_entries", "1 1 1 1\n# dims 2 2 2\n", 2, {"dims comment after the first entry"}},
        {"two_dims_comments", "# dims 2 2 2\n# dims 3 3 3\n", 2, {"second dims comment", "line 1"}},
        {"binary_garbage", std::string("\x01\x02\x00 1 1 1\n", 10), 1, {"non-numeric mode-1 index"}},
    };
    TempDir dir;
    for (const auto& bad : cases) {
        SCOPED_TRACE(bad.name);
        const std::string path = dir.write(std::string(bad.name) + ".tns", bad.text);
        std::vector<std::string> parts = bad.reason;
        parts.push_back(path + ":" + std::to_string(bad.line) + ": ");
        EXPECT_TRUE(throws_error([&] { read_frostt<double, std::int32_t>(path); }, ErrorKind::Format, parts));
    }
    const std::string missing = dir.file("missing.tns");
    EXPECT_TRUE(throws_error([&] { read_frostt<double, std::int32_t>(missing); }, ErrorKind::InvalidArgument,
                             {missing, "No such file or directory"}));
}

template <class V, class I>
double value_sum(const CooTensor3<V, I>& t) {
    return std::accumulate(t.values.begin(), t.values.end(), 0.0, [](double s, V v) { return s + value_cast<double>(v); });
}

TEST(Frostt, SharedTensorsHaveTheirStatedCounts) {
    const std::string college = matrix_dir() + "/collegemsg.tns";
    const std::string wn18rr = matrix_dir() + "/wn18rr.tns.gz";
    if (!std::filesystem::exists(college) || !std::filesystem::exists(wn18rr))
        GTEST_SKIP() << "shared tensors not found in " << matrix_dir();

    const auto c = read_frostt<double, std::int32_t>(college);
    EXPECT_EQ(c.dims, (std::array<index_t, 3>{1899, 1899, 194}));
    EXPECT_EQ(c.nnz(), 33837);
    EXPECT_EQ(value_sum(c), 59835.0);
    const auto c64 = read_frostt<float, std::int64_t>(college);
    EXPECT_EQ(c64.nnz(), 33837);
    EXPECT_EQ(value_sum(c64), 59835.0);

    const auto w = read_frostt<float, std::int32_t>(wn18rr);
    EXPECT_EQ(w.dims, (std::array<index_t, 3>{40943, 11, 40943}));
    EXPECT_EQ(w.nnz(), 93003);
    EXPECT_EQ(value_sum(w), 93003.0);
    // Every index lies inside the dims, 0-based.
    for (int m = 0; m < 3; ++m) {
        const auto [lo, hi] = std::minmax_element(w.idx[m].begin(), w.idx[m].end());
        EXPECT_GE(*lo, 0);
        EXPECT_LT(*hi, w.dims[m]);
    }
}

}  // namespace
}  // namespace spk::test
