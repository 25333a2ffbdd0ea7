// Random generators: determinism by seed and thread count, shapes, row lengths, values, errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "generate/generate_test_helpers.hpp"
#include "support/test_support.hpp"

namespace spk {
namespace {

using test::expect_error;

using test::identical;
using test::with_threads;

template <class V, class I>
void expect_valid(const Csr<V, I>& a) {
    EXPECT_NO_THROW(validate(a.view()));
}

template <class V, class I>
index_t row_length(const Csr<V, I>& a, index_t i) {
    return a.row_ptr()[i + 1] - a.row_ptr()[i];
}

template <class F>
void expect_deterministic(F make) {
    const auto one = with_threads(1, [&] { return make(7); });
    const auto two = with_threads(2, [&] { return make(7); });
    const auto again = make(7);
    const auto other = make(8);
    EXPECT_TRUE(identical(one, two)) << "1 vs 2 threads";
    EXPECT_TRUE(identical(one, again)) << "same seed";
    EXPECT_FALSE(identical(one, other)) << "different seeds";
}

TEST(Uniform, DeterministicBySeedAndThreads) {
    expect_deterministic([](std::uint64_t s) { return generate_uniform<float, std::int32_t>(3000, 2000, 7.5, s); });
}

TEST(Uniform, ShapeRowLengthsAndValues) {
    const auto a = generate_uniform<double, std::int32_t>(4000, 500, 7.25, test::seed("uniform"));
    expect_valid(a);
    EXPECT_EQ(a.rows(), 4000);
    EXPECT_EQ(a.cols(), 500);
    for (index_t i = 0; i < a.rows(); ++i) ASSERT_TRUE(row_length(a, i) == 7 || row_length(a, i) == 8) << "row " << i;
    EXPECT_NEAR(static_cast<double>(a.nnz()) / a.rows(), 7.25, 0.05);
    for (index_t p = 0; p < a.nnz(); ++p) ASSERT_TRUE(a.values()[p] > 0 && a.values()[p] <= 1) << p;
}

TEST(Uniform, FullRowsEmptyMatrixAndInt64) {
    const auto full = generate_uniform<float, std::int64_t>(5, 9, 9, 3);
    expect_valid(full);
    EXPECT_EQ(full.nnz(), 45);
    const auto dense_rows = generate_uniform<float, std::int32_t>(50, 40, 30, 3);  // the selection-sampling path
    expect_valid(dense_rows);
    EXPECT_EQ(dense_rows.nnz(), 1500);
    const auto empty = generate_uniform<double, std::int32_t>(0, 0, 0, 1);
    EXPECT_EQ(empty.rows(), 0);
    EXPECT_EQ(empty.nnz(), 0);
    const auto no_entries = generate_uniform<double, std::int32_t>(10, 10, 0, 1);
    EXPECT_EQ(no_entries.nnz(), 0);
    expect_valid(no_entries);
}

TEST(Uniform, SixteenBitValuesMatchRoundedDoubles) {
    const auto d = generate_uniform<double, std::int32_t>(200, 300, 5, 11);
    const auto h = generate_uniform<f16, std::int32_t>(200, 300, 5, 11);
    const auto b = generate_uniform<bf16, std::int32_t>(200, 300, 5, 11);
    ASSERT_EQ(d.col_idx().to_vector(), h.col_idx().to_vector());
    ASSERT_EQ(d.col_idx().to_vector(), b.col_idx().to_vector());
    for (index_t p = 0; p < d.nnz(); ++p) {
        EXPECT_EQ(h.values()[p].bits, f16(static_cast<float>(d.values()[p])).bits);
        EXPECT_EQ(b.values()[p].bits, bf16(static_cast<float>(d.values()[p])).bits);
    }
}

TEST(Uniform, BadArguments) {
    expect_error([] { generate_uniform<float, std::int32_t>(-1, 5, 1, 0); }, ErrorKind::InvalidArgument, "rows");
    expect_error([] { generate_uniform<float, std::int32_t>(5, 4, 5, 0); }, ErrorKind::InvalidArgument, "per_row = 5");
    expect_error([] { generate_uniform<float, std::int32_t>(5, 4, -1, 0); }, ErrorKind::InvalidArgument, "per_row");
    expect_error([] { generate_uniform<float, std::int32_t>(5, 4, NAN, 0); }, ErrorKind::InvalidArgument, "per_row");
    expect_error([] { generate_uniform<float, std::int32_t>(3'000'000'000LL, 4, 1, 0); }, ErrorKind::InvalidArgument, "int64");
}

TEST(Rmat, DeterministicBySeedAndThreads) {
    expect_deterministic([](std::uint64_t s) { return generate_rmat<float, std::int32_t>(12, 8, 0.57, 0.19, 0.19, 0.05, s); });
}

TEST(Rmat, ShapeDuplicatesMergedAndSkew) {
    const auto a = generate_rmat<double, std::int64_t>(12, 16, 0.57, 0.19, 0.19, 0.05, test::seed("rmat"));
    expect_valid(a);  // sorted and unique columns
    EXPECT_EQ(a.rows(), 4096);
    EXPECT_EQ(a.cols(), 4096);
    EXPECT_LE(a.nnz(), 16 * 4096);
    EXPECT_GT(a.nnz(), 8 * 4096);  // merging removes some, not most
    // Quadrant a dominates: row 0 (all-"top" bits) is far longer than the average row.
    EXPECT_GT(row_length(a, 0), 10 * a.nnz() / a.rows());
    for (index_t p = 0; p < a.nnz(); ++p) ASSERT_TRUE(a.values()[p] > 0 && a.values()[p] <= 1) << p;
}

TEST(Rmat, CornerProbabilitiesGiveOneEntry) {
    // a = 1: every edge is (0, 0), so all merge into one self-loop.
    const auto a = generate_rmat<float, std::int32_t>(5, 4, 1, 0, 0, 0, 1);
    ASSERT_EQ(a.nnz(), 1);
    EXPECT_EQ(a.col_idx()[0], 0);
    EXPECT_EQ(a.row_ptr()[1], 1);
    // d = 1: the self-loop at the last vertex.
    const auto d = generate_rmat<float, std::int32_t>(5, 4, 0, 0, 0, 1, 1);
    ASSERT_EQ(d.nnz(), 1);
    EXPECT_EQ(d.col_idx()[0], 31);
    const auto tiny = generate_rmat<float, std::int32_t>(0, 3, 0.57, 0.19, 0.19, 0.05, 1);
    EXPECT_EQ(tiny.rows(), 1);
    EXPECT_EQ(tiny.nnz(), 1);
}

TEST(Rmat, BadArguments) {
    expect_error([] { generate_rmat<float, std::int32_t>(31, 1, 0.57, 0.19, 0.19, 0.05, 0); }, ErrorKind::InvalidArgument, "scale");
    expect_error([] { generate_rmat<float, std::int32_t>(-1, 1, 0.57, 0.19, 0.19, 0.05, 0); }, ErrorKind::InvalidArgument, "scale");
    expect_error([] { generate_rmat<float, std::int32_t>(4, 1, 0.5, 0.19, 0.19, 0.05, 0); }, ErrorKind::InvalidArgument, "sum to 1");
    expect_error([] { generate_rmat<float, std::int32_t>(4, 1, 1.2, -0.2, 0, 0, 0); }, ErrorKind::InvalidArgument, "a must be");
    expect_error([] { generate_rmat<float, std::int32_t>(4, -2, 0.57, 0.19, 0.19, 0.05, 0); }, ErrorKind::InvalidArgument, "edge_factor");
    expect_error([] { generate_rmat<float, std::int32_t>(30, 4, 0.57, 0.19, 0.19, 0.05, 0); }, ErrorKind::InvalidArgument, "int64");
}

TEST(Powerlaw, DeterministicBySeedAndThreads) {
    expect_deterministic([](std::uint64_t s) { return generate_powerlaw<double, std::int32_t>(5000, 3000, 6, 2.1, s); });
}

TEST(Powerlaw, MeanCapAndHeavyTail) {
    const index_t rows = 40000, cols = 2000;
    const auto a = generate_powerlaw<float, std::int32_t>(rows, cols, 8, 2.1, test::seed("powerlaw"));
    expect_valid(a);
    index_t longest = 0;
    for (index_t i = 0; i < rows; ++i) longest = std::max(longest, row_length(a, i));
    EXPECT_NEAR(static_cast<double>(a.nnz()) / rows, 8.0, 0.8);
    EXPECT_LE(longest, cols);
    EXPECT_GT(longest, 40 * 8);  // a power law, not a narrow distribution
}

TEST(Powerlaw, CapAtColumnsAndExtremes) {
    // A mean close to cols forces many rows to be capped, and the mean still holds.
    const auto a = generate_powerlaw<double, std::int32_t>(20000, 50, 40, 1.5, 5);
    expect_valid(a);
    EXPECT_NEAR(static_cast<double>(a.nnz()) / 20000, 40.0, 1.0);
    for (index_t i = 0; i < a.rows(); ++i) ASSERT_LE(row_length(a, i), 50);
    EXPECT_EQ((generate_powerlaw<double, std::int32_t>(10, 7, 7, 3, 5).nnz()), 70);
    EXPECT_EQ((generate_powerlaw<double, std::int32_t>(10, 7, 0, 3, 5).nnz()), 0);
    EXPECT_EQ((generate_powerlaw<double, std::int32_t>(10, 0, 0, 3, 5).nnz()), 0);
}

TEST(Powerlaw, BadArguments) {
    expect_error([] { generate_powerlaw<float, std::int32_t>(5, 5, 2, 1.0, 0); }, ErrorKind::InvalidArgument, "exponent");
    expect_error([] { generate_powerlaw<float, std::int32_t>(5, 5, 6, 2.0, 0); }, ErrorKind::InvalidArgument, "per_row");
}

template <class V, class I>
void expect_symmetric_dominant(const Csr<V, I>& a) {
    EXPECT_TRUE(test::exactly_symmetric(a));
    for (index_t i = 0; i < a.rows(); ++i) {
        double off = 0, diag = 0;
        for (index_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p) {
            const double v = value_cast<double>(a.values()[p]);
            if (a.col_idx()[p] == i)
                diag = v;
            else {
                ASSERT_TRUE(v > -1 && v <= 1) << "row " << i;
                off += std::abs(v);
            }
        }
        ASSERT_NEAR(diag, 1 + off, 1e-12 * (1 + off)) << "row " << i;
    }
}

TEST(Banded, PatternSymmetryAndDominance) {
    const index_t n = 300, w = 4;
    const auto a = generate_banded<double, std::int32_t>(n, w, test::seed("banded"));
    expect_valid(a);
    EXPECT_EQ(a.nnz(), n * (2 * w + 1) - w * (w + 1));
    for (index_t i = 0; i < n; ++i) {
        ASSERT_EQ(a.col_idx()[a.row_ptr()[i]], std::max<index_t>(0, i - w));
        ASSERT_EQ(a.col_idx()[a.row_ptr()[i + 1] - 1], std::min(n - 1, i + w));
    }
    expect_symmetric_dominant(a);
    expect_deterministic([](std::uint64_t s) { return generate_banded<float, std::int64_t>(1000, 3, s); });
}

TEST(Banded, EdgeCases) {
    EXPECT_EQ((generate_banded<double, std::int32_t>(5, 100, 1).nnz()), 25);  // wider than the matrix: dense
    const auto diag = generate_banded<double, std::int32_t>(6, 0, 1);
    EXPECT_EQ(diag.nnz(), 6);
    for (index_t p = 0; p < 6; ++p) EXPECT_EQ(diag.values()[p], 1.0);
    EXPECT_EQ((generate_banded<double, std::int32_t>(0, 2, 1).rows()), 0);
    expect_error([] { generate_banded<float, std::int32_t>(5, -1, 0); }, ErrorKind::InvalidArgument, "half_width");
    expect_error([] { generate_banded<float, std::int32_t>(-5, 1, 0); }, ErrorKind::InvalidArgument, "n must");
}

TEST(BlockDiagonal, DenseBlocksSymmetricDominant) {
    const auto a = generate_block_diagonal<double, std::int32_t>(7, 5, test::seed("blockdiag"));
    expect_valid(a);
    EXPECT_EQ(a.rows(), 35);
    EXPECT_EQ(a.nnz(), 7 * 25);
    for (index_t i = 0; i < 35; ++i) {
        ASSERT_EQ(row_length(a, i), 5);
        ASSERT_EQ(a.col_idx()[a.row_ptr()[i]], i / 5 * 5);
    }
    expect_symmetric_dominant(a);
    expect_deterministic([](std::uint64_t s) { return generate_block_diagonal<float, std::int32_t>(100, 9, s); });
    EXPECT_EQ((generate_block_diagonal<float, std::int32_t>(0, 9, 1).rows()), 0);
    EXPECT_EQ((generate_block_diagonal<float, std::int32_t>(9, 0, 1).rows()), 0);
    expect_error([] { generate_block_diagonal<float, std::int32_t>(-1, 3, 0); }, ErrorKind::InvalidArgument, "blocks");
}

}  // namespace
}  // namespace spk
