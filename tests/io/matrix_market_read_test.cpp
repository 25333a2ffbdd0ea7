// Reading Matrix Market files with known contents: every format x field x symmetry combination,
// every value and index type, gzip, the header alone, duplicates, and lexical variations.
#include <cmath>
#include <limits>

#include "io/io_test_files.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

struct KnownFile {
    const char* name;
    const char* text;
    index_t rows, cols;
    std::vector<double> dense;  // row-major expected values
};

// Every legal combination, each with a small matrix written out by hand.
const std::vector<KnownFile>& known_files() {
    static const std::vector<KnownFile> files = {
        {"coordinate_real_general",
         "%%MatrixMarket matrix coordinate real general\n% a comment\n4 5 5\n1 1 1.5\n4 2 -2\n2 5 3e2\n1 3 0.25\n2 1 -0.5\n",
         4,
         5,
         {1.5, 0, 0.25, 0, 0, -0.5, 0, 0, 0, 300, 0, 0, 0, 0, 0, 0, -2, 0, 0, 0}},
        {"coordinate_real_symmetric",
         "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 4\n3 3 5\n",
         3,
         3,
         {2, -1, 0, -1, 0, 4, 0, 4, 5}},
        {"coordinate_real_skew",
         "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -1.5\n",
         3,
         3,
         {0, -3, 1.5, 3, 0, 0, -1.5, 0, 0}},
        {"coordinate_integer_general",
         "%%MatrixMarket matrix coordinate integer general\n2 3 3\n1 2 7\n2 1 -4\n2 3 +12\n",
         2,
         3,
         {0, 7, 0, -4, 0, 12}},
        {"coordinate_integer_symmetric",
         "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 3\n2 1 -8\n",
         2,
         2,
         {3, -8, -8, 0}},
        {"coordinate_integer_skew",
         "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n3 2 6\n",
         3,
         3,
         {0, 0, 0, 0, 0, -6, 0, 6, 0}},
        {"coordinate_pattern_general",
         "%%MatrixMarket matrix coordinate pattern general\n3 2 3\n1 2\n3 1\n3 2\n",
         3,
         2,
         {0, 1, 0, 0, 1, 1}},
        {"coordinate_pattern_symmetric",
         "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n",
         3,
         3,
         {1, 0, 1, 0, 0, 1, 1, 1, 0}},
        {"array_real_general", "%%MatrixMarket matrix array real general\n2 3\n1\n4\n0\n5\n3.5\n-6\n", 2, 3, {1, 0, 3.5, 4, 5, -6}},
        {"array_real_symmetric", "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", 3, 3, {1, 2, 3, 2, 4, 5, 3, 5, 6}},
        {"array_real_skew", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", 3, 3, {0, -1, -2, 1, 0, -3, 2, 3, 0}},
        {"array_integer_general", "%%MatrixMarket matrix array integer general\n2 2\n1\n-2\n0\n4\n", 2, 2, {1, 0, -2, 4}},
        {"array_integer_symmetric", "%%MatrixMarket matrix array integer symmetric\n2 2\n1\n-2\n4\n", 2, 2, {1, -2, -2, 4}},
        {"array_integer_skew", "%%MatrixMarket matrix array integer skew-symmetric\n2 2\n9\n", 2, 2, {0, -9, 9, 0}},
    };
    return files;
}

index_t count_nonzeros(const std::vector<double>& d) {
    index_t n = 0;
    for (double x : d) n += x != 0.0;
    return n;
}

template <class Pair>
class MatrixMarketReadTyped : public ::testing::Test {};
using ValueIndexPairs = ::testing::Types<std::pair<double, std::int32_t>, std::pair<double, std::int64_t>, std::pair<float, std::int32_t>,
                                         std::pair<float, std::int64_t>, std::pair<f16, std::int32_t>, std::pair<f16, std::int64_t>,
                                         std::pair<bf16, std::int32_t>, std::pair<bf16, std::int64_t>>;
TYPED_TEST_SUITE(MatrixMarketReadTyped, ValueIndexPairs);

// All the values in known_files() are exact in every value type, so comparisons are exact.
TYPED_TEST(MatrixMarketReadTyped, EveryCombinationGivesItsKnownMatrix) {
    using V = typename TypeParam::first_type;
    using I = typename TypeParam::second_type;
    TempDir dir;
    for (const auto& f : known_files()) {
        SCOPED_TRACE(f.name);
        const std::string path = dir.write(std::string(f.name) + ".mtx", f.text);
        const Csr<V, I> a = read_matrix_market<V, I>(path);
        EXPECT_EQ(a.rows(), f.rows);
        EXPECT_EQ(a.cols(), f.cols);
        EXPECT_EQ(a.nnz(), count_nonzeros(f.dense));  // array files keep their non-zeros only
        EXPECT_TRUE(a.sorted());
        EXPECT_NO_THROW(validate(a.view()));
        EXPECT_EQ(csr_to_dense(a), f.dense);

        const Dense<V> d = read_matrix_market_dense<V>(path);
        EXPECT_EQ(d.rows(), f.rows);
        EXPECT_EQ(d.cols(), f.cols);
        EXPECT_EQ(to_doubles(d), f.dense);
    }
}

TYPED_TEST(MatrixMarketReadTyped, GzipFilesReadLikePlainOnes) {
    using V = typename TypeParam::first_type;
    using I = typename TypeParam::second_type;
    TempDir dir;
    for (const auto& f : known_files()) {
        SCOPED_TRACE(f.name);
        const Csr<V, I> plain = read_matrix_market<V, I>(dir.write(std::string(f.name) + ".mtx", f.text));
        const Csr<V, I> gz = read_matrix_market<V, I>(dir.write(std::string(f.name) + ".mtx.gz", f.text));
        EXPECT_TRUE(csr_identical(plain, gz));
    }
}

TEST(MatrixMarketRead, HeaderAloneReportsTheBannerAndSizes) {
    TempDir dir;
    const auto h = read_matrix_market_header(dir.write("a.mtx.gz", "%%MatrixMarket Matrix COORDINATE Real Symmetric\n%c\n5 5 7\n1 1 1\n"));
    EXPECT_EQ(h.object, "matrix");
    EXPECT_EQ(h.format, "coordinate");
    EXPECT_EQ(h.field, "real");
    EXPECT_EQ(h.symmetry, "symmetric");
    EXPECT_EQ(h.rows, 5);
    EXPECT_EQ(h.cols, 5);
    EXPECT_EQ(h.entries, 7);  // the header reader does not look at the entries

    const auto s = read_matrix_market_header(dir.write("s.mtx", "%%MatrixMarket matrix array real skew-symmetric\n4 4\n"));
    EXPECT_EQ(s.entries, 6);  // strict lower triangle of 4 x 4
    const auto g = read_matrix_market_header(dir.write("g.mtx", "%%MatrixMarket matrix array integer general\n4 3\n"));
    EXPECT_EQ(g.entries, 12);
}

TEST(MatrixMarketRead, HeaderAfterALongCommentBlock) {
    // More comment text than the header reader's first read, so it must read further.
    std::string text = "%%MatrixMarket matrix coordinate pattern general\n";
    for (int i = 0; i < 5000; ++i) text += "% a long comment line that takes some room in the file\n";
    text += "7 8 1\n7 8\n";
    TempDir dir;
    const auto h = read_matrix_market_header(dir.write("long.mtx", text));
    EXPECT_EQ(h.rows, 7);
    EXPECT_EQ(h.cols, 8);
    EXPECT_EQ(h.entries, 1);
    EXPECT_EQ((read_matrix_market<float, std::int32_t>(dir.file("long.mtx")).nnz()), 1);
}

TEST(MatrixMarketRead, LexicalVariationsAreAccepted) {
    // CRLF line ends, tabs, blank and comment lines between entries, trailing blanks, no final
    // newline, a '+' sign, exponents and upper-case banner words.
    const std::string text =
        "%%MatrixMarket MATRIX Coordinate REAL General\r\n%\r\n\r\n  3\t3  3 \r\n1\t1\t+2.5E0\r\n\r\n% between entries\r\n 2 2 -1e-1  "
        "\r\n3 3 .5";
    TempDir dir;
    const auto a = read_matrix_market<double, std::int32_t>(dir.write("v.mtx", text));
    EXPECT_EQ(csr_to_dense(a), (std::vector<double>{2.5, 0, 0, 0, -0.1, 0, 0, 0, 0.5}));
}

TEST(MatrixMarketRead, ValuesAreRoundedOnceIntoTheirType) {
    TempDir dir;
    const std::string path =
        dir.write("r.mtx", "%%MatrixMarket matrix coordinate real general\n1 4 4\n1 1 0.1\n1 2 1e400\n1 3 -1e-400\n1 4 3.4e39\n");
    const auto d = read_matrix_market<double, std::int32_t>(path);
    EXPECT_EQ(d.values()[0], 0.1);
    EXPECT_EQ(d.values()[1], std::numeric_limits<double>::infinity());  // overflow gives inf, as strtod does
    EXPECT_EQ(d.values()[2], 0.0);                                      // underflow gives (negative) zero
    EXPECT_TRUE(std::signbit(d.values()[2]));
    EXPECT_EQ(d.values()[3], 3.4e39);
    const auto f = read_matrix_market<float, std::int32_t>(path);
    EXPECT_EQ(f.values()[0], 0.1f);  // correctly rounded from the text, not through double
    EXPECT_EQ(f.values()[3], std::numeric_limits<float>::infinity());
    const auto h = read_matrix_market<f16, std::int32_t>(path);
    EXPECT_EQ(h.values()[0].bits, f16(0.1f).bits);
    const auto b = read_matrix_market<bf16, std::int64_t>(path);
    EXPECT_EQ(b.values()[0].bits, bf16(0.1f).bits);
}

TEST(MatrixMarketRead, NanAndInfinityValues) {
    TempDir dir;
    const auto a = read_matrix_market<double, std::int32_t>(
        dir.write("n.mtx", "%%MatrixMarket matrix coordinate real general\n1 3 3\n1 1 nan\n1 2 inf\n1 3 -inf\n"));
    EXPECT_TRUE(std::isnan(a.values()[0]));
    EXPECT_EQ(a.values()[1], std::numeric_limits<double>::infinity());
    EXPECT_EQ(a.values()[2], -std::numeric_limits<double>::infinity());
}

TEST(MatrixMarketRead, DuplicatesAreSummedOrRejected) {
    TempDir dir;
    const std::string path =
        dir.write("dup.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1\n2 2 5\n% c\n1 1 2.5\n2 1 1\n");
    const auto a = read_matrix_market<double, std::int32_t>(path);
    EXPECT_EQ(a.nnz(), 3);
    EXPECT_EQ(csr_to_dense(a), (std::vector<double>{3.5, 0, 1, 5}));
    EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(path, Duplicates::reject); }, ErrorKind::Format,
                             {path + ":6:", "duplicate entry (row 1, column 1)", "first given on line 3"}));
    // Pattern duplicates merge into one entry of value 1.
    const auto p = read_matrix_market<float, std::int64_t>(
        dir.write("pdup.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n1 2\n2 1\n"));
    EXPECT_EQ(csr_to_dense(p), (std::vector<double>{0, 1, 1, 0}));
    // A symmetric file stores one triangle: entries in both (here the same pair twice, which the
    // expansion would sum into doubled values) are an error in either mode, at the first entry
    // on the other side. One triangle, lower or upper, reads as the full matrix.
    const std::string sym = dir.write("sdup.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n1 2 2\n");
    for (const Duplicates mode : {Duplicates::sum, Duplicates::reject})
        EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(sym, mode); }, ErrorKind::Format,
                                 {sym + ":4:", "entry (1, 2) lies above the diagonal, but line 3 has an entry below it"}));
    const std::string skew =
        dir.write("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n1 3 4\n3 2 1\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(skew); }, ErrorKind::Format,
                             {skew + ":4:", "below the diagonal, but line 3", "skew-symmetric file stores one triangle"}));
    const std::string upper = dir.write("upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 5\n1 2 2\n2 2 7\n");
    EXPECT_EQ(csr_to_dense(read_matrix_market<double, std::int32_t>(upper)), (std::vector<double>{5, 2, 2, 7}));
}

// A 50-byte file that declares 10^18 rows fails at once (its row offsets alone exceed any host).
TEST(MatrixMarketRead, RowsNoHostHoldsFailAtOnce) {
    TempDir dir;
    const std::string path = dir.write("huge.mtx", "%%MatrixMarket matrix coordinate real general\n1000000000000000000 2 1\n1 1 1\n");
    EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int64_t>(path); }, ErrorKind::OutOfMemory,
                             {path + ": a 1000000000000000000 x 2 matrix needs", "of row offsets, more than the host's"}));
}

TEST(MatrixMarketRead, EmptyMatricesAndEmptyRows) {
    TempDir dir;
    const auto z = read_matrix_market<float, std::int32_t>(dir.write("z.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n"));
    EXPECT_EQ(z.rows(), 0);
    EXPECT_EQ(z.cols(), 0);
    EXPECT_EQ(z.nnz(), 0);
    const auto e = read_matrix_market<float, std::int32_t>(dir.write("e.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 3 0\n"));
    EXPECT_EQ(e.rows(), 5);
    EXPECT_EQ(e.nnz(), 0);
    for (index_t i = 0; i <= 5; ++i) EXPECT_EQ(e.row_ptr()[i], 0);
    const auto d = read_matrix_market_dense<double>(dir.write("d.mtx", "%%MatrixMarket matrix array real general\n0 4\n"));
    EXPECT_EQ(d.rows(), 0);
    EXPECT_EQ(d.cols(), 4);
}

TEST(MatrixMarketRead, Int64IndicesBeyondInt32) {
    TempDir dir;
    const std::string path =
        dir.write("wide.mtx", "%%MatrixMarket matrix coordinate real general\n2 3000000000 2\n2 2999999999 1.5\n1 1 2\n");
    const auto a = read_matrix_market<double, std::int64_t>(path);
    EXPECT_EQ(a.cols(), 3000000000LL);
    EXPECT_EQ(a.col_idx()[1], 2999999998LL);
    EXPECT_EQ(a.values()[1], 1.5);
    EXPECT_TRUE(throws_error([&] { read_matrix_market<double, std::int32_t>(path); }, ErrorKind::InvalidArgument, {path, "int64"}));
}

TEST(MatrixMarketRead, DenseReaderSumsCoordinateDuplicates) {
    TempDir dir;
    const auto d = read_matrix_market_dense<float>(
        dir.write("dd.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1\n1 2 0.5\n2 1 4\n"));
    EXPECT_EQ(to_doubles(d), (std::vector<double>{0, 1.5, 4, 0}));
}

TEST(MatrixMarketRead, LoadMatrixDispatchesOnTheExtension) {
    TempDir dir;
    const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 7\n";
    EXPECT_EQ((load_matrix<double, std::int32_t>(dir.write("l.mtx", text)).values()[0]), 7.0);
    EXPECT_EQ((load_matrix<double, std::int32_t>(dir.write("l.mtx.gz", text)).values()[0]), 7.0);
    const std::string other = dir.write("l.txt", text);
    EXPECT_TRUE(throws_error([&] { load_matrix<double, std::int32_t>(other); }, ErrorKind::InvalidArgument, {other, "extension"}));
}

}  // namespace
}  // namespace spk::test
