// Format conversions and validation.
#include "support/test_support.hpp"

namespace spk {
namespace {

using test::expect_error;

Coo<double, std::int32_t> sample_coo() {
    // 3 x 4 with an unsorted row and a duplicate (0,1) entry.
    return {3, 4, {0, 2, 0, 0, 2}, {3, 0, 1, 1, 2}, {1.0, 2.0, 3.0, 4.0, 5.0}};
}

TEST(CooToCsr, SortsAndSumsDuplicates) {
    const auto csr = coo_to_csr(sample_coo());
    EXPECT_EQ(csr.row_ptr().to_vector(), (std::vector<std::int32_t>{0, 2, 2, 4}));
    EXPECT_EQ(csr.col_idx().to_vector(), (std::vector<std::int32_t>{1, 3, 0, 2}));
    EXPECT_EQ(csr.values().to_vector(), (std::vector<double>{7.0, 1.0, 2.0, 5.0}));
    validate(csr.view());
}

TEST(CooToCsr, RejectsDuplicatesWhenAsked) {
    expect_error([] { (void)coo_to_csr(sample_coo(), Duplicates::reject); }, ErrorKind::InvalidArgument, "(row 0, column 1)");
}

TEST(CooToCsr, RejectsOutOfRangeEntries) {
    Coo<float, std::int64_t> coo{2, 2, {0, 5}, {0, 1}, {1.0f, 2.0f}};
    expect_error([&] { (void)coo_to_csr(coo); }, ErrorKind::InvalidArgument, "entry 1 has row 5");
}

TEST(Transpose, TwiceIsIdentityOnRandomMatrices) {
    const auto a = test::random_csr<float, std::int64_t>(57, 31, 4.0, test::seed("transpose"));
    const auto at = transpose(a.view());
    EXPECT_EQ(at.rows(), 31);
    EXPECT_EQ(at.cols(), 57);
    validate(at.view());
    const auto att = transpose(at.view());
    EXPECT_EQ(att.row_ptr().to_vector(), a.row_ptr().to_vector());
    EXPECT_EQ(att.col_idx().to_vector(), a.col_idx().to_vector());
    EXPECT_EQ(att.values().to_vector(), a.values().to_vector());
}

TEST(Transpose, EmptyMatrices) {
    const Csr<double, std::int32_t> a(Executor::cpu(), 0, 5, std::vector<std::int32_t>{0}, {}, {});
    const auto at = transpose(a.view());
    EXPECT_EQ(at.rows(), 5);
    EXPECT_EQ(at.nnz(), 0);
    validate(at.view());
}

TEST(SortRows, SortsAndMergesUnsortedInput) {
    const Csr<double, std::int32_t> a(Executor::cpu(), 2, 3, std::vector<std::int32_t>{0, 3, 4}, {2, 0, 2, 1}, {1.0, 2.0, 3.0, 4.0}, false);
    const auto s = sort_rows(a.view());
    EXPECT_EQ(s.col_idx().to_vector(), (std::vector<std::int32_t>{0, 2, 1}));
    EXPECT_EQ(s.values().to_vector(), (std::vector<double>{2.0, 4.0, 4.0}));
}

TEST(Validate, NamesTheFirstBadEntry) {
    const Executor cpu = Executor::cpu();
    using C = Csr<double, std::int32_t>;
    expect_error(
        [&] {
            validate(C(cpu, 2, 3, {1, 1, 2}, {0, 1}, {1.0, 1.0}).view(), "M");
        },
        ErrorKind::InvalidArgument, "M: row_ptr[0] is 1");
    expect_error([&] { validate(C(cpu, 2, 3, {0, 2, 1}, {0, 1}, {1.0, 1.0}).view()); }, ErrorKind::InvalidArgument, "decreases at row 1");
    expect_error(
        [&] {
            validate(C(cpu, 2, 3, {0, 1, 2}, {0, 3}, {1.0, 1.0}).view());
        },
        ErrorKind::InvalidArgument, "entry 1 (row 1) has column 3");
    expect_error([&] { validate(C(cpu, 1, 3, {0, 2}, {2, 1}, {1.0, 1.0}).view()); }, ErrorKind::InvalidArgument, "row 0 is not sorted");
    expect_error([&] { validate(C(cpu, 1, 3, {0, 2}, {1, 1}, {1.0, 1.0}).view()); }, ErrorKind::InvalidArgument, "repeats a column");
    expect_error(
        [&] {
            validate(C(cpu, 1, 3, {0, 3}, {0, 1}, {1.0, 1.0}).view());
        },
        ErrorKind::InvalidArgument, "row_ptr[rows] is 3 but nnz is 2");
    // Unsorted rows are fine when the view says so.
    C unsorted(cpu, 1, 3, {0, 2}, {2, 1}, {1.0, 1.0}, false);
    validate(unsorted.view());
}

TEST(ConvertValues, ToHalfPrecisionAndBack) {
    const auto a = test::random_csr<double, std::int32_t>(20, 20, 3.0, test::seed("convert"));
    const auto h = convert_values<bf16>(a.view());
    const auto back = convert_values<double>(h.view());
    const auto av = a.values().to_vector(), bv = back.values().to_vector();
    ASSERT_EQ(av.size(), bv.size());
    for (std::size_t p = 0; p < av.size(); ++p) EXPECT_NEAR(bv[p], av[p], 1e-2 * std::abs(av[p]));
}

}  // namespace
}  // namespace spk
