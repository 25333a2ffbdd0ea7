// SpMM: the reference against a dense brute-force oracle, every backend under test against the
// reference (random, structured, edge cases, 16-bit types, NaN and inf), known values, plans,
// and bad input.
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "ops/spmm_test_support.hpp"

namespace spk {
namespace {

using test::expect_error;

using test::Strided;

constexpr Reduce kAllReduces[] = {Reduce::sum, Reduce::mean, Reduce::max, Reduce::min};

SpmmOptions options(Reduce reduce, double alpha = 1.0, double beta = 0.0, bool transpose_a = false) {
    SpmmOptions o;
    o.reduce = reduce;
    o.alpha = alpha;
    o.beta = beta;
    o.transpose_a = transpose_a;
    return o;
}

// ---------------------------------------------------------------------------------------------
// Dense oracle: op(A) densified with a mask of stored entries, then every output element
// computed on its own, straight from the definition in spk/spmm.hpp.
test::SpmmResult dense_oracle(const Csr<double, std::int32_t>& a, const Strided<double>& b, const Strided<double>& c0,
                              const SpmmOptions& o) {
    const index_t m = o.transpose_a ? a.cols() : a.rows(), k = o.transpose_a ? a.rows() : a.cols(), n = b.cols;
    std::vector<double> dense(static_cast<std::size_t>(m * k), 0.0);
    std::vector<bool> stored(static_cast<std::size_t>(m * k), false);
    for (index_t i = 0; i < a.rows(); ++i)
        for (index_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p) {
            const index_t r = o.transpose_a ? a.col_idx()[p] : i, c = o.transpose_a ? i : a.col_idx()[p];
            dense[r * k + c] = a.values()[p];
            stored[r * k + c] = true;
        }
    test::SpmmResult out;
    for (index_t i = 0; i < m; ++i)
        for (index_t col = 0; col < n; ++col) {
            double r = 0;
            std::int64_t arg = -1, count = 0;
            for (index_t j = 0; j < k; ++j) {
                if (!stored[i * k + j]) continue;
                const double prod = dense[i * k + j] * b.at(j, col);
                const bool better = o.reduce == Reduce::max ? prod > r : prod < r;
                if (o.reduce == Reduce::sum || o.reduce == Reduce::mean) {
                    r += prod;
                } else if (count == 0 || better) {
                    r = prod;
                    arg = j;
                }
                ++count;
            }
            if (o.reduce == Reduce::mean && count > 0) r /= static_cast<double>(count);
            r = o.alpha * r + (o.beta != 0.0 ? o.beta * c0.at(i, col) : 0.0);
            out.c.push_back(r);
            out.arg.push_back(arg);
        }
    return out;
}

TEST(SpmmReference, MatchesDenseOracle) {
    const std::uint64_t seed = test::seed("spmm_reference_oracle");
    const auto a = test::random_csr<double, std::int32_t>(13, 11, 3.0, seed);
    for (const bool transpose : {false, true}) {
        const index_t m = transpose ? a.cols() : a.rows(), k = transpose ? a.rows() : a.cols();
        for (const Layout layout : {Layout::row_major, Layout::col_major}) {
            const auto b = test::random_strided<double>(k, 5, layout, 2, seed + 1);
            const auto c0 = test::random_strided<double>(m, 5, layout, 1, seed + 2);
            for (const Reduce reduce : kAllReduces)
                for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{{1.0, 0.0}, {1.5, -0.5}}) {
                    const SpmmOptions o = options(reduce, alpha, beta, transpose);
                    SCOPED_TRACE(std::string(to_string(reduce)) + (transpose ? " transposed" : "") + " beta " + std::to_string(beta));
                    const bool extremum = reduce == Reduce::max || reduce == Reduce::min;
                    const auto got = test::run_spmm(Executor::reference(), a, b, c0, o, extremum);
                    const auto want = dense_oracle(a, b, c0, o);
                    EXPECT_TRUE(test::all_close(got.c, want.c, 1e-12, 1e-12, 5));
                    if (extremum) {
                        EXPECT_EQ(got.arg, want.arg);
                    }
                }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Backends against the reference, typed over value and index types.
template <class T>
class SpmmBackend : public ::testing::Test {};
TYPED_TEST_SUITE(SpmmBackend, test::BackendTypes);

TYPED_TEST(SpmmBackend, RandomSmallEveryWidthAndLayout) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spmm_backend_small");
    const auto a = test::random_csr<V, I>(60, 45, 5.0, seed);
    for (const index_t n : {1, 2, 3, 4, 8, 16, 17, 33, 129})
        for (const Layout b_layout : {Layout::row_major, Layout::col_major}) {
            const auto b = test::random_strided<V>(a.cols(), n, b_layout, 0, seed + static_cast<std::uint64_t>(n));
            for (const Layout c_layout : {Layout::row_major, Layout::col_major})
                for (const Reduce reduce : kAllReduces) test::expect_spmm_matches_reference(a, b, options(reduce), c_layout);
        }
}

// Large enough that the cpu backend runs its threads (small problems run serially).
TYPED_TEST(SpmmBackend, RandomThreaded) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spmm_backend_threaded");
    const auto a = test::random_csr<V, I>(700, 500, 10.0, seed);
    for (const index_t n : {1, 4, 16, 33, 129})
        for (const Layout layout : {Layout::row_major, Layout::col_major}) {
            const auto b = test::random_strided<V>(a.cols(), n, layout, 3, seed + 1);
            for (const Reduce reduce : kAllReduces) test::expect_spmm_matches_reference(a, b, options(reduce), layout, 5);
        }
}

TYPED_TEST(SpmmBackend, AlphaBetaAndPaddedLeadingDimensions) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spmm_backend_alpha_beta");
    const auto a = test::random_csr<V, I>(300, 200, 8.0, seed);
    for (const index_t n : {40, 8, 1}) {  // 8, 1: the cpu backend's narrow loop, B's rows ld apart
        const auto b = test::random_strided<V>(a.cols(), n, Layout::row_major, 7, seed + 1);
        for (const Reduce reduce : kAllReduces)
            for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{{2.0, 0.0}, {1.0, 1.0}, {-0.5, 0.25}}) {
                test::expect_spmm_matches_reference(a, b, options(reduce, alpha, beta), Layout::row_major, 9, seed + 2);
                test::expect_spmm_matches_reference(a, b, options(reduce, alpha, beta), Layout::col_major, 4, seed + 3);
            }
    }
}

TYPED_TEST(SpmmBackend, TransposedA) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spmm_backend_transpose");
    const auto a = test::random_csr<V, I>(250, 400, 6.0, seed);  // op(A) is 400 x 250
    const auto b = test::random_strided<V>(a.rows(), 33, Layout::row_major, 0, seed + 1);
    for (const Reduce reduce : kAllReduces) test::expect_spmm_matches_reference(a, b, options(reduce, 1.0, 0.5, true));
}

// Banded and block-diagonal patterns, built here: long runs of equal row lengths and
// neighbouring columns (B rows reused from cache), unlike the random matrices.
template <class V, class I>
Csr<V, I> banded(index_t n, index_t half_width, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<I> ptr{0}, col;
    std::vector<V> val;
    for (index_t i = 0; i < n; ++i) {
        for (index_t j = std::max<index_t>(0, i - half_width); j <= std::min(n - 1, i + half_width); ++j) {
            col.push_back(static_cast<I>(j));
            val.push_back(value_cast<V>(u(rng)));
        }
        ptr.push_back(static_cast<I>(col.size()));
    }
    return Csr<V, I>(Executor::cpu(), n, n, ptr, col, val);
}

template <class V, class I>
Csr<V, I> block_diagonal(index_t blocks, index_t size, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<I> ptr{0}, col;
    std::vector<V> val;
    for (index_t i = 0; i < blocks * size; ++i) {
        for (index_t j = i / size * size; j < (i / size + 1) * size; ++j) {
            col.push_back(static_cast<I>(j));
            val.push_back(value_cast<V>(u(rng)));
        }
        ptr.push_back(static_cast<I>(col.size()));
    }
    return Csr<V, I>(Executor::cpu(), blocks * size, blocks * size, ptr, col, val);
}

TYPED_TEST(SpmmBackend, StructuredPatterns) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spmm_backend_structured");
    for (const auto& a : {banded<V, I>(400, 3, seed), block_diagonal<V, I>(25, 8, seed + 1)}) {
        const auto b = test::random_strided<V>(a.cols(), 40, Layout::row_major, 0, seed + 2);
        for (const Reduce reduce : kAllReduces) test::expect_spmm_matches_reference(a, b, options(reduce));
    }
}

TYPED_TEST(SpmmBackend, OneRowHoldsMostNonZeros) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spmm_backend_huge_row");
    std::vector<I> ptr{0}, col;
    std::vector<V> val;
    for (index_t i = 0; i < 300; ++i) {
        const index_t len = i == 5 ? 1500 : i % 3;
        for (index_t j = 0; j < len; ++j) {
            col.push_back(static_cast<I>(i == 5 ? j : (i * 7 + j * 13) % 2000));
            val.push_back(value_cast<V>(0.25 + 0.5 * static_cast<double>((i + j) % 5) / 5.0));
        }
        ptr.push_back(static_cast<I>(col.size()));
    }
    const Csr<V, I> a(Executor::cpu(), 300, 2000, ptr, col, val);
    const auto b = test::random_strided<V>(2000, 33, Layout::row_major, 0, seed);
    for (const Reduce reduce : kAllReduces) test::expect_spmm_matches_reference(a, b, options(reduce));
}

TYPED_TEST(SpmmBackend, EmptyShapes) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const Csr<V, I> empty(Executor::cpu(), 0, 0, std::vector<I>{0}, {}, {});
    const Csr<V, I> no_rows(Executor::cpu(), 0, 7, std::vector<I>{0}, {}, {});
    const Csr<V, I> no_cols(Executor::cpu(), 5, 0, std::vector<I>(6, 0), {}, {});
    const Csr<V, I> empty_rows(Executor::cpu(), 4, 6, std::vector<I>(5, 0), {}, {});
    for (const Reduce reduce : kAllReduces)
        for (const double beta : {0.0, 2.0}) {
            test::expect_spmm_matches_reference(empty, test::random_strided<V>(0, 0, Layout::row_major, 0, 1), options(reduce, 1.0, beta));
            test::expect_spmm_matches_reference(empty, test::random_strided<V>(0, 5, Layout::row_major, 0, 1), options(reduce, 1.0, beta));
            test::expect_spmm_matches_reference(no_rows, test::random_strided<V>(7, 4, Layout::row_major, 0, 1),
                                                options(reduce, 1.0, beta));
            test::expect_spmm_matches_reference(no_cols, test::random_strided<V>(0, 4, Layout::col_major, 0, 1),
                                                options(reduce, 1.0, beta));
            test::expect_spmm_matches_reference(empty_rows, test::random_strided<V>(6, 3, Layout::row_major, 0, 1),
                                                options(reduce, 1.0, beta));
        }
}

TYPED_TEST(SpmmBackend, EmptyRowsGiveZeroAndArgMinusOne) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    // Rows 0 and 2 empty, row 1 holds one entry.
    const Csr<V, I> a(Executor::cpu(), 3, 2, std::vector<I>{0, 0, 1, 1}, std::vector<I>{1}, std::vector<V>{value_cast<V>(2.0)});
    Strided<V> b(2, 2, Layout::row_major, 0, value_cast<V>(3.0));
    const Strided<V> c0(3, 2, Layout::row_major, 0, value_cast<V>(std::numeric_limits<double>::quiet_NaN()));
    for (const Executor& exec : test::backends_under_test())
        for (const Reduce reduce : {Reduce::max, Reduce::mean}) {
            const bool arg = reduce == Reduce::max;
            const auto r = test::run_spmm(exec, a, b, c0, options(reduce), arg);
            EXPECT_EQ(r.c, (std::vector<double>{0, 0, 6, 6, 0, 0})) << exec.name();
            if (arg) {
                EXPECT_EQ(r.arg, (std::vector<std::int64_t>{-1, -1, 1, 1, -1, -1})) << exec.name();
            }
        }
}

TYPED_TEST(SpmmBackend, NanAndInfPropagateLikeTheReference) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spmm_backend_nan_inf");
    const auto a = test::random_csr<V, I>(200, 150, 12.0, seed);
    for (const Layout layout : {Layout::row_major, Layout::col_major}) {
        auto b = test::random_strided<V>(a.cols(), 35, layout, 0, seed + 1);
        const double inf = std::numeric_limits<double>::infinity();
        b.at(3, 0) = value_cast<V>(std::numeric_limits<double>::quiet_NaN());
        b.at(4, 0) = value_cast<V>(inf);
        b.at(10, 5) = value_cast<V>(inf);
        b.at(11, 5) = value_cast<V>(-inf);
        b.at(20, 34) = value_cast<V>(-inf);
        b.at(21, 33) = value_cast<V>(std::numeric_limits<double>::quiet_NaN());
        for (const Reduce reduce : kAllReduces) test::expect_spmm_matches_reference(a, b, options(reduce), layout);
    }
}

// ---------------------------------------------------------------------------------------------
// Known values: A = band of ones (half width h) in an n x n matrix, B(j, k) = j + k. Row i covers
// columns lo = max(0, i - h) .. hi = min(n - 1, i + h).
TEST(SpmmKnownValues, BandOfOnes) {
    const index_t n = 50, h = 2, cols = 3;
    std::vector<std::int32_t> ptr{0}, col;
    for (index_t i = 0; i < n; ++i) {
        for (index_t j = std::max<index_t>(0, i - h); j <= std::min(n - 1, i + h); ++j) col.push_back(static_cast<std::int32_t>(j));
        ptr.push_back(static_cast<std::int32_t>(col.size()));
    }
    const Csr<double, std::int32_t> a(Executor::cpu(), n, n, ptr, col, std::vector<double>(col.size(), 1.0));
    Strided<double> b(n, cols, Layout::row_major, 0, 0.0);
    for (index_t j = 0; j < n; ++j)
        for (index_t k = 0; k < cols; ++k) b.at(j, k) = static_cast<double>(j + k);
    const Strided<double> c0(n, cols, Layout::row_major, 0, 0.0);
    std::vector<Executor> execs = test::backends_under_test();
    execs.push_back(Executor::reference());
    for (const Executor& exec : execs) {
        const auto sum = test::run_spmm(exec, a, b, c0, options(Reduce::sum), false);
        const auto mean = test::run_spmm(exec, a, b, c0, options(Reduce::mean), false);
        const auto max = test::run_spmm(exec, a, b, c0, options(Reduce::max), true);
        const auto min = test::run_spmm(exec, a, b, c0, options(Reduce::min), true);
        for (index_t i = 0; i < n; ++i) {
            const index_t lo = std::max<index_t>(0, i - h), hi = std::min(n - 1, i + h), len = hi - lo + 1;
            for (index_t k = 0; k < cols; ++k) {
                const index_t e = i * cols + k;
                const double s = static_cast<double>((lo + hi) * len / 2 + k * len);
                EXPECT_DOUBLE_EQ(sum.c[e], s) << exec.name() << " row " << i;
                EXPECT_DOUBLE_EQ(mean.c[e], s / static_cast<double>(len)) << exec.name() << " row " << i;
                EXPECT_EQ(max.c[e], static_cast<double>(hi + k));
                EXPECT_EQ(max.arg[e], hi);
                EXPECT_EQ(min.c[e], static_cast<double>(lo + k));
                EXPECT_EQ(min.arg[e], lo);
            }
        }
    }
}

// Ties: the first (lowest column) extremum wins, in every backend.
TEST(SpmmKnownValues, FirstExtremumWinsTies) {
    const Csr<float, std::int32_t> a(Executor::cpu(), 1, 4, std::vector<std::int32_t>{0, 4}, std::vector<std::int32_t>{0, 1, 2, 3},
                                     std::vector<float>{1, 2, 1, 2});
    Strided<float> b(4, 1, Layout::row_major, 0, 1.0f);
    const Strided<float> c0(1, 1, Layout::row_major, 0, 0.0f);
    for (const Executor& exec : test::backends_under_test()) {
        EXPECT_EQ(test::run_spmm(exec, a, b, c0, options(Reduce::max), true).arg, std::vector<std::int64_t>{1}) << exec.name();
        EXPECT_EQ(test::run_spmm(exec, a, b, c0, options(Reduce::min), true).arg, std::vector<std::int64_t>{0}) << exec.name();
    }
}

// ---------------------------------------------------------------------------------------------
TEST(SpmmPlan, RunsManyTimesAndFollowsNewValues) {
    const std::uint64_t seed = test::seed("spmm_plan_reuse");
    auto a = test::random_csr<float, std::int32_t>(90, 70, 5.0, seed);
    const Executor exec = Executor::cpu(2);
    const SpmmPlan<float, std::int32_t> plan(exec, a.view(), 16, options(Reduce::sum));
    EXPECT_FALSE(plan.config().empty());
    for (int round = 0; round < 3; ++round) {
        for (std::size_t p = 0; p < a.values().size(); ++p) a.values()[p] *= 1.5f;  // values may change between runs
        const auto b = test::random_dense<float>(70, 16, seed + static_cast<std::uint64_t>(round));
        Dense<float> c(exec, 90, 16), expected(exec, 90, 16);
        plan.run(b.view(), c.view());
        spmm(Executor::reference(), a.view(), b.view(), expected.view());
        EXPECT_TRUE(test::all_close(test::to_doubles(c), test::to_doubles(expected), 1e-5, 1e-5, 16));
    }
}

// One plan, other values of A's pattern each run (a dropout of A's values), on every backend.
TEST(SpmmPlan, RunsWithOtherValuesOfThePattern) {
    const std::uint64_t seed = test::seed("spmm_plan_values");
    const auto a = test::random_csr<float, std::int32_t>(120, 90, 6.0, seed);
    for (const Executor& exec : test::backends_under_test()) {
        const auto a_here = a.to(exec);
        for (const Reduce reduce : {Reduce::sum, Reduce::mean, Reduce::max}) {
            const SpmmPlan<float, std::int32_t> plan(exec, a_here.view(), 8, options(reduce));
            for (int round = 0; round < 2; ++round) {
                std::vector<float> dropped = a.values().to_vector();
                for (std::size_t p = 0; p < dropped.size(); ++p)
                    if ((p + static_cast<std::size_t>(round)) % 3 == 0) dropped[p] = 0.0f;  // about a third dropped
                const Csr<float, std::int32_t> other(Executor::cpu(), a.rows(), a.cols(), a.row_ptr().to_vector(), a.col_idx().to_vector(),
                                                     dropped);
                const Dense<float> values(exec, a.nnz(), 1, dropped);
                const auto b = test::random_dense<float>(90, 8, seed + static_cast<std::uint64_t>(round)).to(exec);
                Dense<float> c(exec, 120, 8), expected(Executor::reference(), 120, 8);
                plan.run_with_values(values.view(), b.view(), c.view());
                spmm(Executor::reference(), other.view(), b.to(Executor::reference()).view(), expected.view(), options(reduce));
                EXPECT_TRUE(test::all_close(test::to_doubles(c), test::to_doubles(expected), 1e-5, 1e-5, 16))
                    << exec.name() << " " << to_string(reduce) << " round " << round;
            }
            // A's own values again: run_with_values left the plan as it was.
            Dense<float> c(exec, 120, 8), expected(Executor::reference(), 120, 8);
            const auto b = test::random_dense<float>(90, 8, seed + 7).to(exec);
            plan.run(b.view(), c.view());
            spmm(Executor::reference(), a.view(), b.to(Executor::reference()).view(), expected.view(), options(reduce));
            EXPECT_TRUE(test::all_close(test::to_doubles(c), test::to_doubles(expected), 1e-5, 1e-5, 16)) << exec.name();
        }
    }
}

TEST(SpmmPlan, OtherValuesNeedTheirShapeAndAPlanOverA) {
    const Executor exec = Executor::cpu(1);
    const auto a = test::random_csr<float, std::int32_t>(6, 5, 2.0, 11);
    const Dense<float> b(exec, 5, 3), bt(exec, 6, 3);
    Dense<float> c(exec, 6, 3), ct(exec, 5, 3);
    const Dense<float> short_values(exec, a.nnz() - 1, 1), values(exec, a.nnz(), 1);
    const SpmmPlan<float, std::int32_t> plan(exec, a.view(), 3);
    expect_error([&] { plan.run_with_values(short_values.view(), b.view(), c.view()); }, ErrorKind::ShapeMismatch, "values");
    const SpmmPlan<float, std::int32_t> transposed(exec, a.view(), 3, options(Reduce::sum, 1.0, 0.0, true));
    expect_error([&] { transposed.run_with_values(values.view(), bt.view(), ct.view()); }, ErrorKind::InvalidArgument, "transpose_a");
}

// ---------------------------------------------------------------------------------------------
// Bad input: the error kind and the argument named in the message.
class SpmmBadInput : public ::testing::Test {
protected:
    Executor exec = Executor::cpu(1);
    Csr<float, std::int32_t> a = test::random_csr<float, std::int32_t>(4, 3, 2.0, 7);
    Dense<float> b{exec, 3, 2}, c{exec, 4, 2};
};

TEST_F(SpmmBadInput, WrongShapes) {
    Dense<float> b_bad(exec, 5, 2), c_bad(exec, 3, 2), c_wide(exec, 4, 3);
    expect_error([&] { spmm(exec, a.view(), b_bad.view(), c.view()); }, ErrorKind::ShapeMismatch, "B");
    expect_error([&] { spmm(exec, a.view(), b.view(), c_bad.view()); }, ErrorKind::ShapeMismatch, "C");
    expect_error([&] { spmm(exec, a.view(), b.view(), c_wide.view()); }, ErrorKind::ShapeMismatch, "C");
    expect_error([&] { spmm(exec, a.view(), b.view(), c.view(), options(Reduce::sum, 1.0, 0.0, true)); }, ErrorKind::ShapeMismatch, "B");
    const SpmmPlan<float, std::int32_t> plan(exec, a.view(), 5);
    expect_error([&] { plan.run(b.view(), c.view()); }, ErrorKind::ShapeMismatch, "B");
}

TEST_F(SpmmBadInput, NullDataAndBadLeadingDimension) {
    const DenseView<const float> b_null{nullptr, 3, 2, 2};
    expect_error([&] { spmm(exec, a.view(), b_null, c.view()); }, ErrorKind::InvalidArgument, "B");
    DenseView<float> c_short_ld = c.view();
    c_short_ld.ld = 1;
    expect_error([&] { spmm(exec, a.view(), b.view(), c_short_ld); }, ErrorKind::InvalidArgument, "C: leading dimension");
    auto a_no_values = a.view();
    a_no_values.values = nullptr;
    expect_error([&] { spmm(exec, a_no_values, b.view(), c.view()); }, ErrorKind::InvalidArgument, "A");
}

TEST_F(SpmmBadInput, NegativeN) {
    expect_error([&] { SpmmPlan<float, std::int32_t>(exec, a.view(), -1); }, ErrorKind::InvalidArgument, "n");
}

TEST_F(SpmmBadInput, ArgNeedsMaxOrMin) {
    Dense<std::int32_t> arg(exec, 4, 2);
    expect_error([&] { spmm(exec, a.view(), b.view(), c.view(), options(Reduce::sum), arg.view()); }, ErrorKind::InvalidArgument, "arg");
    Dense<std::int32_t> arg_bad(exec, 4, 3);
    expect_error([&] { spmm(exec, a.view(), b.view(), c.view(), options(Reduce::max), arg_bad.view()); }, ErrorKind::ShapeMismatch, "arg");
}

}  // namespace
}  // namespace spk
