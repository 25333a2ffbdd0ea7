// Writing Matrix Market files: what is written reads back exactly (CSR and dense, every value
// type, pattern, gzip), and the text has the expected banner and layout.
#include <cmath>
#include <limits>

#include "io/io_test_files.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

template <class Pair>
class MatrixMarketWriteTyped : public ::testing::Test {};
using ValueIndexPairs = ::testing::Types<std::pair<double, std::int32_t>, std::pair<double, std::int64_t>, std::pair<float, std::int32_t>,
                                         std::pair<float, std::int64_t>, std::pair<f16, std::int32_t>, std::pair<bf16, std::int64_t>>;
TYPED_TEST_SUITE(MatrixMarketWriteTyped, ValueIndexPairs);

TYPED_TEST(MatrixMarketWriteTyped, RandomCsrRoundTripsExactly) {
    using V = typename TypeParam::first_type;
    using I = typename TypeParam::second_type;
    const auto s = seed("mm_write_round_trip");
    TempDir dir;
    for (const auto& [rows, cols] : std::vector<std::pair<index_t, index_t>>{{0, 0}, {1, 1}, {37, 53}, {200, 7}}) {
        const Csr<V, I> a = random_csr<V, I>(rows, cols, 3.5, s + static_cast<std::uint64_t>(rows));
        for (const std::string name : {"a.mtx", "a.mtx.gz"}) {
            SCOPED_TRACE(name + " " + std::to_string(rows) + "x" + std::to_string(cols));
            write_matrix_market(dir.file(name), a.view());
            EXPECT_TRUE(csr_identical(read_matrix_market<V, I>(dir.file(name)), a));
        }
        // The shortest exact text reads back exactly too.
        write_matrix_market(dir.file("short.mtx"), a.view(), {.precision = 0});
        EXPECT_TRUE(csr_identical(read_matrix_market<V, I>(dir.file("short.mtx")), a));
    }
}

TYPED_TEST(MatrixMarketWriteTyped, RandomDenseRoundTripsExactly) {
    using V = typename TypeParam::first_type;
    const auto s = seed("mm_write_dense");
    TempDir dir;
    for (const Layout layout : {Layout::row_major, Layout::col_major}) {
        const Dense<V> d = random_dense<V>(13, 6, s, layout);
        write_matrix_market(dir.file("d.mtx"), d.view());
        const Dense<V> back = read_matrix_market_dense<V>(dir.file("d.mtx"));
        ASSERT_EQ(back.rows(), 13);
        ASSERT_EQ(back.cols(), 6);
        for (index_t i = 0; i < 13; ++i)
            for (index_t j = 0; j < 6; ++j) EXPECT_TRUE(same_bits(back.view()(i, j), d.view()(i, j))) << i << "," << j;
    }
}

TEST(MatrixMarketWrite, TextLayoutOfACsr) {
    const Csr<double, std::int32_t> a(Executor::cpu(), 2, 3, {0, 2, 3}, {0, 2, 1}, {0.1, -2.0, 1e300});
    TempDir dir;
    write_matrix_market(dir.file("a.mtx"), a.view());
    EXPECT_EQ(read_bytes(dir.file("a.mtx")),
              "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 0.10000000000000001\n1 3 -2\n2 2 1.0000000000000001e+300\n");
    write_matrix_market(dir.file("p.mtx"), a.view(), {.pattern = true});
    EXPECT_EQ(read_bytes(dir.file("p.mtx")), "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n1 3\n2 2\n");
    write_matrix_market(dir.file("s.mtx"), a.view(), {.precision = 0});
    EXPECT_EQ(read_bytes(dir.file("s.mtx")), "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 0.1\n1 3 -2\n2 2 1e+300\n");
}

TEST(MatrixMarketWrite, FloatValuesUseNineDigits) {
    const Csr<float, std::int32_t> a(Executor::cpu(), 1, 1, {0, 1}, {0}, {0.1f});
    TempDir dir;
    write_matrix_market(dir.file("f.mtx"), a.view());
    EXPECT_EQ(read_bytes(dir.file("f.mtx")), "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.100000001\n");
}

TEST(MatrixMarketWrite, TextLayoutOfADenseMatrixIsColumnByColumn) {
    const Dense<float> d(Executor::cpu(), 2, 2, std::vector<float>{1, 2, 3, 4});  // [[1, 2], [3, 4]]
    TempDir dir;
    write_matrix_market(dir.file("d.mtx"), d.view());
    EXPECT_EQ(read_bytes(dir.file("d.mtx")), "%%MatrixMarket matrix array real general\n2 2\n1\n3\n2\n4\n");
}

TEST(MatrixMarketWrite, SpecialValuesRoundTrip) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> v = {std::nan(""), inf, -inf, -0.0, 5e-324, std::numeric_limits<double>::max()};
    const Csr<double, std::int64_t> a(Executor::cpu(), 1, 6, {0, 6}, {0, 1, 2, 3, 4, 5}, v);
    TempDir dir;
    write_matrix_market(dir.file("x.mtx"), a.view());
    EXPECT_TRUE(csr_identical(read_matrix_market<double, std::int64_t>(dir.file("x.mtx")), a));
}

TEST(MatrixMarketWrite, PatternOnlyMatrixIsWrittenAsPattern) {
    Csr<float, std::int32_t> a(Executor::cpu(), 2, 2, {0, 1, 2}, {1, 0}, {});
    TempDir dir;
    write_matrix_market(dir.file("p.mtx"), a.view());
    const auto h = read_matrix_market_header(dir.file("p.mtx"));
    EXPECT_EQ(h.field, "pattern");
    const auto back = read_matrix_market<float, std::int32_t>(dir.file("p.mtx"));
    EXPECT_EQ(csr_to_dense(back), (std::vector<double>{0, 1, 1, 0}));
}

TEST(MatrixMarketWrite, BadArgumentsAreRejected) {
    TempDir dir;
    const Csr<double, std::int32_t> bad(Executor::cpu(), 2, 2, {0, 1, 2}, {1, 5}, {1.0, 2.0});  // column 5 of 2
    const std::string path = dir.file("bad.mtx");
    EXPECT_TRUE(throws_error([&] { write_matrix_market(path, bad.view()); }, ErrorKind::InvalidArgument, {path, "column 5"}));
    const Csr<double, std::int32_t> ok(Executor::cpu(), 1, 1, {0, 1}, {0}, {1.0});
    const std::string nowhere = dir.file("no/such/dir/a.mtx");
    EXPECT_TRUE(
        throws_error([&] { write_matrix_market(nowhere, ok.view()); }, ErrorKind::InvalidArgument, {nowhere, "No such file or directory"}));
    const Dense<double> d(Executor::cpu(), 1, 1, std::vector<double>{1.0});
    EXPECT_TRUE(
        throws_error([&] { write_matrix_market(path, d.view(), {.pattern = true}); }, ErrorKind::InvalidArgument, {path, "pattern"}));
}

}  // namespace
}  // namespace spk::test
