// The .spkb binary cache: exact round trips for every type, and Format errors for files that
// are not caches, were written with other types or versions, are truncated or corrupt.
#include "io/io_test_files.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

template <class Pair>
class BinaryTyped : public ::testing::Test {};
using ValueIndexPairs = ::testing::Types<std::pair<double, std::int32_t>, std::pair<double, std::int64_t>, std::pair<float, std::int32_t>,
                                         std::pair<float, std::int64_t>, std::pair<f16, std::int32_t>, std::pair<f16, std::int64_t>,
                                         std::pair<bf16, std::int32_t>, std::pair<bf16, std::int64_t>>;
TYPED_TEST_SUITE(BinaryTyped, ValueIndexPairs);

TYPED_TEST(BinaryTyped, RoundTripsExactly) {
    using V = typename TypeParam::first_type;
    using I = typename TypeParam::second_type;
    const auto s = seed("binary_round_trip");
    TempDir dir;
    for (const auto& [rows, cols] : std::vector<std::pair<index_t, index_t>>{{0, 0}, {1, 1}, {3, 0}, {41, 29}, {300, 5}}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
        const Csr<V, I> a = random_csr<V, I>(rows, cols, 4.0, s + static_cast<std::uint64_t>(rows));
        write_binary(dir.file("a.spkb"), a.view());
        EXPECT_TRUE(csr_identical(read_binary<V, I>(dir.file("a.spkb")), a));
        EXPECT_TRUE(csr_identical(load_matrix<V, I>(dir.file("a.spkb")), a));
    }
}

TEST(Binary, PatternOnlyAndUnsortedMatrices) {
    TempDir dir;
    const Csr<float, std::int32_t> p(Executor::cpu(), 2, 3, {0, 2, 3}, {2, 0, 1}, {}, /*sorted=*/false);
    write_binary(dir.file("p.spkb"), p.view());
    const auto back = read_binary<float, std::int32_t>(dir.file("p.spkb"));
    EXPECT_FALSE(back.sorted());
    EXPECT_EQ(back.col_idx().to_vector(), (std::vector<std::int32_t>{2, 0, 1}));
    EXPECT_EQ(back.values().to_vector(), (std::vector<float>{1, 1, 1}));  // a pattern reads back with value 1
}

class BinaryDamage : public ::testing::Test {
protected:
    void SetUp() override {
        const Csr<double, std::int32_t> a = random_csr<double, std::int32_t>(50, 40, 3.0, seed("binary_damage"));
        path_ = dir_.file("a.spkb");
        write_binary(path_, a.view());
        bytes_ = read_bytes(path_);
    }
    // Writes `bytes` and checks that reading it as double/int32 fails with Format and `reason`.
    ::testing::AssertionResult rejects(const std::string& bytes, const std::string& reason) {
        const std::string p = dir_.file("damaged.spkb");
        write_bytes(p, bytes);
        return throws_error([&] { read_binary<double, std::int32_t>(p); }, ErrorKind::Format, {p + ": ", reason});
    }
    TempDir dir_;
    std::string path_, bytes_;
};

TEST_F(BinaryDamage, WrongTypesAreFormatErrors) {
    EXPECT_TRUE(throws_error([&] { read_binary<float, std::int32_t>(path_); }, ErrorKind::Format,
                             {path_, "holds f64 values with int32 indices", "f32 values"}));
    EXPECT_TRUE(
        throws_error([&] { read_binary<double, std::int64_t>(path_); }, ErrorKind::Format, {path_, "int64 indices were requested"}));
}

// The header alone tells the stored types, whatever the rest of the file holds.
TEST_F(BinaryDamage, StoredTypesFromTheHeader) {
    const BinaryTypes t = read_binary_types(path_);
    EXPECT_EQ(t.values, ValueType::f64);
    EXPECT_EQ(t.indices, IndexType::i32);
    const std::string f16_path = dir_.file("h.spkb");
    write_binary(f16_path, random_csr<f16, std::int64_t>(5, 6, 2.0, seed("binary_types")).view());
    const BinaryTypes h = read_binary_types(f16_path);
    EXPECT_EQ(h.values, ValueType::f16);
    EXPECT_EQ(h.indices, IndexType::i64);
    const std::string damaged = dir_.file("damaged.spkb");
    write_bytes(damaged, bytes_.substr(0, 60));  // truncated: the types still read
    EXPECT_EQ(read_binary_types(damaged).values, ValueType::f64);
    std::string b = bytes_;
    b[12] = 9;
    write_bytes(damaged, b);
    EXPECT_TRUE(throws_error([&] { read_binary_types(damaged); }, ErrorKind::Format, {damaged, "unknown value or index type codes 9"}));
    write_bytes(damaged, bytes_.substr(0, 20));
    EXPECT_TRUE(throws_error([&] { read_binary_types(damaged); }, ErrorKind::Format, {damaged, "truncated file: 20 bytes"}));
    write_bytes(damaged, "not a binary file at all, but long enough for a header");
    EXPECT_TRUE(throws_error([&] { read_binary_types(damaged); }, ErrorKind::Format, {damaged, "bad magic"}));
    EXPECT_TRUE(throws_error([&] { read_binary_types(dir_.file("missing.spkb")); }, ErrorKind::InvalidArgument, {"cannot open"}));
}

TEST_F(BinaryDamage, EveryKindOfDamageIsCaught) {
    std::string b = bytes_;
    b[0] = 'X';
    EXPECT_TRUE(rejects(b, "bad magic"));
    EXPECT_TRUE(rejects("%%MatrixMarket matrix coordinate real general\n", "bad magic"));
    EXPECT_TRUE(rejects("", "bad magic"));
    b = bytes_;
    b[8] = 2;  // version
    EXPECT_TRUE(rejects(b, "format version 2"));
    b = bytes_;
    b[14] = static_cast<char>(0x80);  // flags
    EXPECT_TRUE(rejects(b, "unknown flags"));
    b = bytes_;
    b[23] = static_cast<char>(0x80);  // rows < 0
    EXPECT_TRUE(rejects(b, "negative shape"));
    b = bytes_;
    b[22] = 0x7f;  // rows = huge: the implied size cannot match
    EXPECT_TRUE(rejects(b, "do not fit"));
    EXPECT_TRUE(rejects(bytes_.substr(0, 30), "truncated file"));
    EXPECT_TRUE(rejects(bytes_.substr(0, bytes_.size() - 1), "truncated file"));
    EXPECT_TRUE(rejects(bytes_ + "x", "unexpected bytes after the checksum"));
    for (const std::size_t at : {std::size_t{41}, bytes_.size() / 2, bytes_.size() - 9, bytes_.size() - 1}) {
        b = bytes_;
        b[at] = static_cast<char>(b[at] ^ 1);
        EXPECT_TRUE(rejects(b, "checksum mismatch")) << "byte " << at;
    }
}

TEST_F(BinaryDamage, MissingFile) {
    const std::string missing = dir_.file("missing.spkb");
    EXPECT_TRUE(throws_error([&] { read_binary<double, std::int32_t>(missing); }, ErrorKind::InvalidArgument,
                             {missing, "No such file or directory"}));
}

}  // namespace
}  // namespace spk::test
