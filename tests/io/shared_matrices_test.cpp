// Every shared real matrix parses with the rows, cols and nnz_full that MANIFEST.tsv lists, and
// round-trips exactly through the Matrix Market writer and through the binary cache.
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "io/io_test_files.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

// MANIFEST.tsv as name -> (column -> text); the columns are named in its first line.
using Manifest = std::map<std::string, std::map<std::string, std::string>>;

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) out.push_back(field);
    return out;
}

const Manifest& manifest() {
    static const Manifest m = [] {
        Manifest out;
        std::ifstream in(matrix_dir() + "/MANIFEST.tsv");
        std::string line;
        if (!std::getline(in, line)) return out;
        const auto names = split_tabs(line);
        while (std::getline(in, line)) {
            const auto fields = split_tabs(line);
            if (fields.empty()) continue;
            auto& row = out[fields[0]];
            for (std::size_t k = 0; k < names.size() && k < fields.size(); ++k) row[names[k]] = fields[k];
        }
        return out;
    }();
    return m;
}

index_t manifest_number(const std::string& file, const std::string& column) {
    const auto row = manifest().find(file);
    if (row == manifest().end())
        ADD_FAILURE() << file << " is not in MANIFEST.tsv";
    else if (auto it = row->second.find(column); it != row->second.end() && !it->second.empty())
        return std::stoll(it->second);
    else
        ADD_FAILURE() << "MANIFEST.tsv has no " << column << " for " << file;
    return -1;
}

class SharedMatrix : public ::testing::TestWithParam<std::string> {
protected:
    std::string file_name() const { return std::filesystem::path(GetParam()).filename().string(); }
};

TEST_P(SharedMatrix, ParsesWithTheManifestCounts) {
    const std::string name = file_name();
    const auto h = read_matrix_market_header(GetParam());
    EXPECT_EQ(h.rows, manifest_number(name, "rows"));
    EXPECT_EQ(h.cols, manifest_number(name, "cols"));
    EXPECT_EQ(h.entries, manifest_number(name, "nnz"));

    const auto a = read_matrix_market<double, std::int32_t>(GetParam());
    EXPECT_EQ(a.rows(), manifest_number(name, "rows"));
    EXPECT_EQ(a.cols(), manifest_number(name, "cols"));
    EXPECT_EQ(a.nnz(), manifest_number(name, "nnz_full"));
    EXPECT_NO_THROW(validate(a.view()));

    // Other index and value types give the same pattern, and values rounded from the same text.
    const auto b = read_matrix_market<float, std::int64_t>(GetParam());
    ASSERT_EQ(b.nnz(), a.nnz());
    for (index_t i = 0; i <= a.rows(); ++i) ASSERT_EQ(b.row_ptr()[i], a.row_ptr()[i]);
    for (index_t p = 0; p < a.nnz(); ++p) {
        ASSERT_EQ(b.col_idx()[p], a.col_idx()[p]);
        ASSERT_EQ(b.values()[p], static_cast<float>(a.values()[p])) << "entry " << p;
    }
}

TEST_P(SharedMatrix, RoundTripsThroughTheWriterAndTheBinaryCache) {
    const auto a = read_matrix_market<double, std::int32_t>(GetParam());
    TempDir dir;
    write_matrix_market(dir.file("a.mtx"), a.view());
    EXPECT_TRUE(csr_identical(read_matrix_market<double, std::int32_t>(dir.file("a.mtx")), a));
    write_binary(dir.file("a.spkb"), a.view());
    EXPECT_TRUE(csr_identical(read_binary<double, std::int32_t>(dir.file("a.spkb")), a));

    const auto f = read_matrix_market<float, std::int64_t>(GetParam());
    write_matrix_market(dir.file("f.mtx.gz"), f.view());
    EXPECT_TRUE(csr_identical(read_matrix_market<float, std::int64_t>(dir.file("f.mtx.gz")), f));
    write_binary(dir.file("f.spkb"), f.view());
    EXPECT_TRUE(csr_identical(load_matrix<float, std::int64_t>(dir.file("f.spkb")), f));
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string s = std::filesystem::path(info.param).filename().string();
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

INSTANTIATE_TEST_SUITE_P(Files, SharedMatrix, ::testing::ValuesIn(shared_matrix_files()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SharedMatrix);

TEST(SharedMatrices, TheFolderAndItsManifestArePresent) {
    if (!std::filesystem::exists(matrix_dir())) GTEST_SKIP() << "no shared matrices at " << matrix_dir();
    EXPECT_FALSE(manifest().empty()) << "cannot read " << matrix_dir() << "/MANIFEST.tsv";
    EXPECT_GE(shared_matrix_files().size(), 30u);
}

}  // namespace
}  // namespace spk::test
