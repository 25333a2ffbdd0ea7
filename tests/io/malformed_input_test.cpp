// Malformed Matrix Market input: each case throws Error(Format) whose message holds path:line and
// the reason, from the CSR reader, the dense reader and (for header faults) the header reader.
// Missing files and broken gzip streams are checked too. Nothing may crash or allocate wildly.
#include "io/io_test_files.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

struct BadFile {
    const char* name;
    std::string text;
    int line;  // where the fault is
    std::vector<std::string> reason;
    bool header_fault = false;  // also caught by read_matrix_market_header
};

const std::string kReal = "%%MatrixMarket matrix coordinate real general\n";
const std::string kInteger = "%%MatrixMarket matrix coordinate integer general\n";
const std::string kPattern = "%%MatrixMarket matrix coordinate pattern general\n";
const std::string kArray = "%%MatrixMarket matrix array real general\n";

std::vector<BadFile> bad_files() {
    return {
        // Banner.
        {"empty_file", "", 1, {"empty file"}, true},
        {"single_percent_banner", "%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, {"bad banner"}, true},
        {"no_banner", "3 3 1\n1 1 1\n", 1, {"bad banner"}, true},
        {"banner_missing_word", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, {"bad banner", "found 4"}, true},
        {"banner_extra_word", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, {"bad banner", "found 6"}, true},
        {"unknown_object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, {"unknown object 'vector'"}, true},
        {"unknown_format", "%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, {"unknown format 'sparse'"}, true},
        {"unknown_field", "%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1, {"unknown field 'float'"}, true},
        {"unknown_symmetry", "%%MatrixMarket matrix coordinate real lower\n1 1 0\n", 1, {"unknown symmetry 'lower'"}, true},
        {"complex_field", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, {"complex", "unsupported"}, true},
        {"hermitian_symmetry", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1, {"hermitian", "unsupported"}, true},
        {"array_pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", 1, {"pattern", "coordinate"}, true},
        {"pattern_skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n", 1, {"pattern", "skew-symmetric"}, true},
        {"binary_garbage", std::string("\x1f\x00\xff\xfe garbage\n", 13), 1, {"bad banner"}, true},
        // Size line.
        {"missing_size_line", kReal + "% only comments\n", 3, {"missing size line"}, true},
        {"size_line_too_short", kReal + "3 3\n1 1 1\n", 2, {"malformed size line", "rows cols entries"}, true},
        {"size_line_extra_token", kArray + "3 3 9\n", 2, {"malformed size line", "extra token '9'"}, true},
        {"size_line_non_numeric", kReal + "3 x 1\n", 2, {"malformed size line", "non-numeric column count 'x'"}, true},
        {"size_line_negative", kReal + "-3 3 1\n1 1 1\n", 2, {"malformed size line", "row count '-3' is negative"}, true},
        {"size_line_overflow", kReal + "99999999999999999999 3 1\n", 2, {"malformed size line", "too large"}, true},
        {"size_line_fraction", kReal + "3 3 1.5\n", 2, {"malformed size line", "non-numeric entry count '1.5'"}, true},
        {"more_entries_than_cells", kReal + "2 2 5\n", 2, {"5 entries do not fit a 2 x 2 general matrix"}, true},
        {"symmetric_not_square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", 2, {"must be square", "2 x 3"}, true},
        {"more_entries_than_triangle",
         "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n",
         2,
         {"4 entries do not fit", "at most 3"},
         true},
        {"array_too_large", kArray + "9999999999 9999999999\n1\n", 2, {"too many entries"}, true},
        // Entry count.
        {"truncated_coordinate", kReal + "3 3 3\n1 1 1\n2 2 2\n", 5, {"truncated file", "declares 3 entries", "ends after 2"}},
        {"truncated_mid_comment", kReal + "3 3 2\n1 1 1\n% the end", 4, {"truncated file"}},
        {"too_many_entries", kReal + "3 3 1\n1 1 1\n2 2 2\n", 4, {"too many entries", "declares 1"}},
        {"truncated_array", kArray + "2 2\n1\n2\n3\n", 6, {"truncated file", "declares 4"}},
        {"too_many_array_values", kArray + "1 1\n1\n2\n", 4, {"too many entries"}},
        // Sizes that would overflow or make a reader allocate absurd amounts: the file is short.
        {"huge_declared_count", kReal + "2000000000 2000000000 4000000000000000000\n1 1 1\n", 4, {"truncated file"}},
        // Entries.
        {"row_out_of_range", kReal + "3 3 1\n4 1 1\n", 3, {"row index 4 is out of range [1, 3]"}},
        {"column_zero", kReal + "3 3 1\n1 0 1\n", 3, {"column index 0 is out of range [1, 3]"}},
        {"column_out_of_range", kPattern + "3 2 2\n1 1\n2 3\n", 4, {"column index 3 is out of range [1, 2]"}},
        {"negative_index", kReal + "3 3 1\n-1 1 1\n", 3, {"row index '-1' is negative"}},
        {"index_too_large", kReal + "3 3 1\n99999999999999999999 1 1\n", 3, {"row index", "too large"}},
        {"non_numeric_index", kReal + "3 3 1\n1 a 1\n", 3, {"non-numeric column index 'a'"}},
        {"index_with_junk", kReal + "3 3 1\n1x 1 1\n", 3, {"non-numeric row index '1x'"}},
        {"fractional_index", kReal + "3 3 1\n1.0 1 1\n", 3, {"non-numeric row index '1.0'"}},
        {"non_numeric_value", kReal + "3 3 2\n1 1 1\n2 2 x2.5\n", 4, {"non-numeric real value 'x2.5'"}},
        {"value_with_junk", kReal + "3 3 1\n1 1 2.5q\n", 3, {"non-numeric real value '2.5q'"}},
        {"control_bytes_in_value",
         kReal + "3 3 1\n1 1 " + std::string("\x01\x02", 2) + "\n",
         3,
         {"non-numeric real value '?\?'"}},  // control bytes shown as '?'
        {"plus_minus_value", kReal + "3 3 1\n1 1 +-1\n", 3, {"non-numeric real value '+-1'"}},
        {"plus_minus_integer", kInteger + "3 3 1\n1 1 +-1\n", 3, {"non-numeric integer value '+-1'"}},
        {"lone_sign", kReal + "3 3 1\n1 1 +\n", 3, {"non-numeric real value '+'"}},
        {"incomplete_exponent", kReal + "3 3 1\n1 1 1.5e\n", 3, {"non-numeric real value '1.5e'"}},
        {"missing_real_value", kReal + "3 3 1\n1 1\n", 3, {"missing real value"}},
        {"missing_integer_value", kInteger + "3 3 1\n1 1   \n", 3, {"missing integer value"}},
        {"missing_column", kPattern + "3 3 1\n1\n", 3, {"missing column index"}},
        {"fractional_integer_value", kInteger + "3 3 1\n1 1 1.5\n", 3, {"non-numeric integer value '1.5'", "expected an integer"}},
        {"integer_value_overflow", kInteger + "3 3 1\n1 1 99999999999999999999\n", 3, {"integer value", "does not fit"}},
        {"extra_token", kReal + "3 3 1\n1 1 1 7\n", 3, {"extra token '7'"}},
        {"pattern_with_value", kPattern + "3 3 1\n1 1 1\n", 3, {"extra token '1'"}},
        {"skew_diagonal",
         "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n",
         3,
         {"diagonal entry (2, 2)", "skew-symmetric"}},
        {"array_two_values_a_line", kArray + "2 1\n1 2\n", 3, {"extra token '2'"}},
        {"array_non_numeric", kArray + "2 1\n1\nabc\n", 4, {"non-numeric real value 'abc'"}},
    };
}

TEST(MalformedInput, EveryCaseNamesPathLineAndReason) {
    TempDir dir;
    for (const auto& bad : bad_files()) {
        SCOPED_TRACE(bad.name);
        for (const std::string ext : {".mtx", ".mtx.gz"}) {
            const std::string path = dir.write(std::string(bad.name) + ext, bad.text);
            std::vector<std::string> parts = bad.reason;
            parts.push_back(path + ":" + std::to_string(bad.line) + ": ");
            EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(path); }, ErrorKind::Format, parts));
            EXPECT_TRUE(throws_error([&] { read_matrix_market<f16, std::int64_t>(path, Duplicates::reject); }, ErrorKind::Format, parts));
            if (bad.header_fault) {
                EXPECT_TRUE(throws_error([&] { read_matrix_market_header(path); }, ErrorKind::Format, parts));
            } else {
                EXPECT_NO_THROW(read_matrix_market_header(path));
            }
        }
    }
}

// Random edits of a valid file: a reader either succeeds or throws spk::Error, nothing else.
std::string damage(std::string text, std::size_t from, std::mt19937_64& rng) {
    static constexpr char kBytes[] = "0123456789  --++..eE\n\n\r\t%%x#\x00\xff";
    const int edits = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int k = 0; k < edits && text.size() > from; ++k) {
        const std::size_t at = std::uniform_int_distribution<std::size_t>(from, text.size() - 1)(rng);
        const char c = kBytes[std::uniform_int_distribution<std::size_t>(0, sizeof kBytes - 2)(rng)];
        switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
            case 0:
                text[at] = c;
                break;
            case 1:
                text.insert(at, 1, c);
                break;
            default:
                text.erase(at, 1);
                break;
        }
    }
    if (std::uniform_int_distribution<int>(0, 9)(rng) == 0)
        text.resize(std::uniform_int_distribution<std::size_t>(from, text.size())(rng));  // cut short
    return text;
}

TEST(MalformedInput, RandomlyDamagedFilesNeverCrash) {
    std::mt19937_64 rng(seed("damaged_files"));
    const std::string header = "%%MatrixMarket matrix coordinate real symmetric\n% comment\n5 5 6\n";
    const std::string good = header + "1 1 1.5\n2 1 -2\n3 3 4e-3\n5 2 7\n5 5 1\n4 3 .25\n";
    const std::string array = "%%MatrixMarket matrix array integer general\n2 3\n1\n-2\n3\n0\n5\n6\n";
    TempDir dir;
    const std::string path = dir.file("damaged.mtx");
    const auto survives = [&](const std::function<void()>& read, const std::string& text) {
        try {
            read();
        } catch (const Error&) {
        } catch (const std::exception& e) {
            ADD_FAILURE() << "non-spk exception " << e.what() << " for:\n" << text;
        }
    };
    for (int iter = 0; iter < 1500; ++iter) {
        // The header reader sees damage anywhere; the full readers keep the size line intact
        // so that damage cannot ask for a legitimately huge matrix.
        const std::string any = damage(iter % 2 ? good : array, 0, rng);
        write_bytes(path, any);
        survives([&] { read_matrix_market_header(path); }, any);
        const std::string body = iter % 2 ? damage(good, header.size(), rng) : damage(array, array.find("2 3\n") + 4, rng);
        write_bytes(path, body);
        survives([&] { read_matrix_market<double, std::int32_t>(path, Duplicates::reject); }, body);
        survives([&] { read_matrix_market_dense<float>(path); }, body);
        write_bytes(path, damage("# dims 3 x 3 x 3\n1 2 3 4.5\n3 3 3 -1\n", 0, rng));
        survives([&] { read_frostt<double, std::int64_t>(path); }, read_bytes(path));
    }
}

TEST(MalformedInput, DenseReaderRejectsTheSameFaults) {
    TempDir dir;
    for (const auto& bad : bad_files()) {
        if (std::string(bad.name) == "huge_declared_count") continue;  // its shape cannot be held densely (see below)
        SCOPED_TRACE(bad.name);
        const std::string path = dir.write(std::string(bad.name) + ".mtx", bad.text);
        std::vector<std::string> parts = bad.reason;
        parts.push_back(path + ":" + std::to_string(bad.line) + ": ");
        EXPECT_TRUE(throws_error([&] { read_matrix_market_dense<float>(path); }, ErrorKind::Format, parts));
    }
}

TEST(MalformedInput, DenseReaderRefusesShapesThatOverflow) {
    TempDir dir;
    const std::string path = dir.write("huge.mtx", kReal + "3037000500 3037000500 1\n1 1 1\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market_dense<double>(path); }, ErrorKind::InvalidArgument, {path, "too large"}));
    const std::string big = dir.write("big.mtx", kReal + "2000000000 2000000000 1\n1 1 1\n");  // 4e18 cells: no memory holds them
    EXPECT_TRUE(throws_error([&] { read_matrix_market_dense<double>(big); }, ErrorKind::OutOfMemory, {big, "2000000000 x 2000000000"}));
}

TEST(MalformedInput, MissingFileOrDirectoryNamesTheOsReason) {
    TempDir dir;
    const std::string missing = dir.file("missing.mtx");
    EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(missing); }, ErrorKind::InvalidArgument,
                             {missing, "No such file or directory"}));
    EXPECT_TRUE(
        throws_error([&] { read_matrix_market_header(missing); }, ErrorKind::InvalidArgument, {missing, "No such file or directory"}));
    EXPECT_TRUE(throws_error([&] { read_matrix_market_dense<float>(missing); }, ErrorKind::InvalidArgument,
                             {missing, "No such file or directory"}));
    const std::string folder = dir.file("");
    EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(folder); }, ErrorKind::InvalidArgument, {"is a directory"}));
}

TEST(MalformedInput, BrokenGzipStreams) {
    TempDir dir;
    std::string text = kReal + "100 100 1000\n";
    for (int k = 0; k < 1000; ++k)
        text += std::to_string(k % 100 + 1) + " " + std::to_string(k / 10 + 1) + " " + std::to_string(k * 0.37) + "\n";
    const std::string good = dir.write("good.mtx.gz", text);
    const std::string bytes = read_bytes(good);
    const std::string cut = dir.file("cut.mtx.gz");
    write_bytes(cut, bytes.substr(0, bytes.size() / 2));
    EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(cut); }, ErrorKind::Format, {cut, "truncated"}));
    std::string damaged = bytes;
    for (std::size_t i = 20; i < damaged.size() - 20; i += 7) damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
    const std::string corrupt = dir.file("corrupt.mtx.gz");
    write_bytes(corrupt, damaged);
    EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(corrupt); }, ErrorKind::Format, {corrupt}));
}

}  // namespace
}  // namespace spk::test
