// The cpu SpGEMM (every backend under test) against the reference: same pattern, values within
// tolerance; plans, sorted and unsorted output, edge cases, bad input.
#include <limits>
#include <tuple>

#include "ops/spgemm_test_support.hpp"

namespace spk {
namespace {

using test::MaskMode;

template <class T>
class SpgemmBackend : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmBackend, test::FloatBackendTypes);

// Runs A·B on every backend under test and compares with the reference.
template <class V, class I>
void expect_matches_reference(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options, const Csr<V, I>* mask = nullptr) {
    const auto mask_view = mask ? std::optional(mask->view()) : std::nullopt;
    const auto expected = test::entries_of(spgemm(Executor::reference(), a.view(), b.view(), options, mask_view), true);
    for (const Executor& exec : test::host_backends()) {
        SCOPED_TRACE(exec.name() + " " + std::string(to_string(options.semiring)) + (options.sorted ? " sorted" : " unsorted") +
                     (mask ? (options.complement_mask ? " !mask" : " mask") : ""));
        const auto c = spgemm(exec, a.view(), b.view(), options, mask_view).to(Executor::cpu());
        EXPECT_EQ(c.rows(), a.rows());
        EXPECT_EQ(c.cols(), b.cols());
        EXPECT_EQ(c.sorted(), options.sorted);
        EXPECT_TRUE(test::same_entries(test::entries_of(c, options.sorted), expected, test::rtol_for<V>(), 10 * test::rtol_for<V>()));
    }
}

TYPED_TEST(SpgemmBackend, RandomProductsMatchReference) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spgemm_backend_random");
    // Few columns: rows fill a large share of them (dense accumulator). Many columns: rows stay
    // sparse (hash accumulator; short rows sorted by insertion, longer ones by std::sort).
    for (const auto& [m, k, n, per_row] :
         std::vector<std::tuple<index_t, index_t, index_t, double>>{{67, 45, 91, 5.0}, {90, 150, 20000, 5.0}, {30, 200, 40000, 12.0}}) {
        const auto a = test::random_with_zeros<V, I>(m, k, per_row, seed + static_cast<std::uint64_t>(n));
        const auto b = test::random_with_zeros<V, I>(k, n, per_row + 1.0, seed + static_cast<std::uint64_t>(n) + 1);
        const auto mask = test::mask_overlapping_product(a, b);
        for (const Semiring s : test::all_semirings())
            for (const MaskMode mode : {MaskMode::none, MaskMode::mask, MaskMode::complement})
                for (const bool sorted : {true, false})
                    expect_matches_reference(a, b, {.semiring = s, .complement_mask = mode == MaskMode::complement, .sorted = sorted},
                                             mode == MaskMode::none ? nullptr : &mask);
    }
}

TYPED_TEST(SpgemmBackend, DenseRowsUseTheDenseAccumulator) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spgemm_backend_dense_rows");
    // Row 0 of A is full, so row 0 of C hits nearly every column (dense accumulator, sorted by
    // scanning); the other rows are sparse (hash accumulator).
    const index_t m = 40, k = 60, n = 300;
    auto a = test::random_csr<V, I>(m, k, 2.0, seed);
    auto ptr = a.row_ptr().to_vector();
    auto col = a.col_idx().to_vector();
    auto val = a.values().to_vector();
    const index_t old_len = ptr[1];
    std::vector<I> full(static_cast<std::size_t>(k));
    for (index_t j = 0; j < k; ++j) full[j] = static_cast<I>(j);
    col.erase(col.begin(), col.begin() + old_len);
    val.erase(val.begin(), val.begin() + old_len);
    col.insert(col.begin(), full.begin(), full.end());
    val.insert(val.begin(), static_cast<std::size_t>(k), value_cast<V>(0.25));
    for (std::size_t i = 1; i < ptr.size(); ++i) ptr[i] += static_cast<I>(k - old_len);
    const Csr<V, I> dense_row_a(Executor::cpu(), m, k, ptr, col, val);
    const auto b = test::random_csr<V, I>(k, n, 15.0, seed + 1);
    const auto mask = test::random_csr<V, I>(m, n, 150.0, seed + 2);
    for (const Semiring s : {Semiring::plus_times, Semiring::min_plus})
        for (const bool sorted : {true, false}) {
            expect_matches_reference(dense_row_a, b, {.semiring = s, .sorted = sorted});
            expect_matches_reference(dense_row_a, b, {.semiring = s, .sorted = sorted}, &mask);
            expect_matches_reference(dense_row_a, b, {.semiring = s, .complement_mask = true, .sorted = sorted}, &mask);
        }
}

TYPED_TEST(SpgemmBackend, UnsortedInputs) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spgemm_backend_unsorted_inputs");
    const auto a = test::shuffled_rows(test::random_csr<V, I>(50, 70, 6.0, seed), seed + 1);
    const auto b = test::shuffled_rows(test::random_csr<V, I>(70, 130, 8.0, seed + 2), seed + 3);
    const auto mask = test::shuffled_rows(test::random_csr<V, I>(50, 130, 30.0, seed + 4), seed + 5);
    for (const bool sorted : {true, false}) {
        expect_matches_reference(a, b, {.sorted = sorted});
        expect_matches_reference(a, b, {.semiring = Semiring::max_times, .sorted = sorted}, &mask);
    }
}

TYPED_TEST(SpgemmBackend, PlanRecomputeEqualsFreshCompute) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spgemm_backend_plan");
    const auto a = test::random_csr<V, I>(60, 50, 5.0, seed);
    const auto b = test::random_csr<V, I>(50, 80, 5.0, seed + 1);
    const auto mask = test::random_csr<V, I>(60, 80, 30.0, seed + 2);
    // Same patterns, new values.
    auto a2 = test::random_csr<V, I>(60, 50, 5.0, seed);
    auto b2 = test::random_csr<V, I>(50, 80, 5.0, seed + 1);
    for (index_t q = 0; q < a2.nnz(); ++q) a2.values()[q] = value_cast<V>(0.5 + 0.01 * static_cast<double>(q % 13));
    for (index_t q = 0; q < b2.nnz(); ++q) b2.values()[q] = value_cast<V>(-1.0 + 0.03 * static_cast<double>(q % 7));
    std::vector<Executor> execs = test::host_backends();
    execs.push_back(Executor::reference());
    for (const Executor& exec : execs)
        for (const bool sorted : {true, false})
            for (const bool masked : {false, true}) {
                SCOPED_TRACE(exec.name() + (sorted ? " sorted" : " unsorted") + (masked ? " masked" : ""));
                const SpgemmOptions options{.sorted = sorted};
                const auto mask_view = masked ? std::optional(mask.view()) : std::nullopt;
                const SpgemmPlan<V, I> plan(exec, a.view(), b.view(), options, mask_view);
                auto c = plan.compute();
                EXPECT_EQ(plan.nnz(), c.nnz());
                EXPECT_EQ(plan.config(), "scalar");  // the host backends have no block path
                plan.recompute(a2.values().data(), b2.values().data(), c.values().data());
                const auto fresh = spgemm(exec, a2.view(), b2.view(), options, mask_view);
                EXPECT_EQ(c.row_ptr().to_vector(), fresh.row_ptr().to_vector());
                EXPECT_EQ(c.col_idx().to_vector(), fresh.col_idx().to_vector());
                EXPECT_EQ(c.values().to_vector(), fresh.values().to_vector());
            }
}

TYPED_TEST(SpgemmBackend, EmptyAndRectangularShapes) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("spgemm_backend_shapes");
    const Csr<V, I> empty(Executor::cpu(), 0, 0, std::vector<I>{0}, {}, {});
    expect_matches_reference(empty, empty, {});
    // 5 x 0 times 0 x 7: every row of C is empty.
    const Csr<V, I> tall(Executor::cpu(), 5, 0, std::vector<I>(6, 0), {}, {});
    const Csr<V, I> wide(Executor::cpu(), 0, 7, std::vector<I>{0}, {}, {});
    expect_matches_reference(tall, wide, {});
    for (const Executor& exec : test::host_backends()) {
        const auto c = spgemm(exec, tall.view(), wide.view());
        EXPECT_EQ(c.rows(), 5);
        EXPECT_EQ(c.cols(), 7);
        EXPECT_EQ(c.nnz(), 0);
    }
    // Rectangular with empty rows and columns; n = 1 and odd sizes.
    for (const auto& [m, k, n] :
         std::vector<std::tuple<index_t, index_t, index_t>>{{1, 1, 1}, {3, 101, 1}, {1, 33, 77}, {29, 7, 3}, {131, 17, 64}}) {
        const auto a = test::random_csr<V, I>(m, k, 1.5, seed + static_cast<std::uint64_t>(m * 1000 + n));
        const auto b = test::random_csr<V, I>(k, n, 1.5, seed + static_cast<std::uint64_t>(k * 1000 + n + 1));
        expect_matches_reference(a, b, {});
        expect_matches_reference(a, b, {.semiring = Semiring::plus_pair, .sorted = false});
    }
}

TYPED_TEST(SpgemmBackend, CancellationStaysInThePattern) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    // Row 0: 1·1 + 1·(-1) = 0, still an entry; row 1 has no products.
    const Csr<V, I> a(Executor::cpu(), 2, 2, std::vector<I>{0, 2, 2}, {0, 1}, {V(1), V(1)});
    const Csr<V, I> b(Executor::cpu(), 2, 3, std::vector<I>{0, 2, 3}, {0, 2, 0}, {V(1), V(2), V(-1)});
    for (const Executor& exec : test::host_backends()) {
        const auto c = spgemm(exec, a.view(), b.view()).to(Executor::cpu());
        EXPECT_EQ(c.row_ptr().to_vector(), (std::vector<I>{0, 2, 2}));
        EXPECT_EQ(c.col_idx().to_vector(), (std::vector<I>{0, 2}));
        EXPECT_EQ(c.values().to_vector(), (std::vector<V>{V(0), V(2)}));
    }
}

TEST(Spgemm, BadShapesAndArguments) {
    const auto a = test::random_csr<double, std::int32_t>(3, 4, 2.0, 1);
    const auto b = test::random_csr<double, std::int32_t>(5, 2, 2.0, 2);
    const auto b_ok = test::random_csr<double, std::int32_t>(4, 2, 2.0, 3);
    const auto bad_mask = test::random_csr<double, std::int32_t>(3, 3, 1.0, 4);
    for (const Executor& exec : {Executor::reference(), Executor::cpu(2)}) {
        test::expect_error([&] { (void)spgemm(exec, a.view(), b.view()); }, ErrorKind::ShapeMismatch,
                           "B: 5 rows, expected 4 (the columns of A");
        test::expect_error([&] { (void)spgemm(exec, a.view(), b_ok.view(), {}, std::optional(bad_mask.view())); }, ErrorKind::ShapeMismatch,
                           "mask: shape 3 x 3, expected 3 x 2");
        const SpgemmPlan<double, std::int32_t> plan(exec, a.view(), b_ok.view());
        auto c = plan.compute();
        test::expect_error([&] { plan.recompute(nullptr, b_ok.values().data(), c.values().data()); }, ErrorKind::InvalidArgument,
                           "a_values");
        auto no_values = a.view();
        no_values.values = nullptr;
        test::expect_error([&] { (void)spgemm(exec, CsrView<const double, std::int32_t>(no_values), b_ok.view()); },
                           ErrorKind::InvalidArgument, "A: null values");
    }
}

TEST(Spgemm, SemiringNames) {
    EXPECT_EQ(to_string(Semiring::plus_times), "plus_times");
    EXPECT_EQ(to_string(Semiring::plus_pair), "plus_pair");
    EXPECT_EQ(to_string(Semiring::min_plus), "min_plus");
    EXPECT_EQ(to_string(Semiring::max_times), "max_times");
    EXPECT_EQ(to_string(Semiring::lor_land), "lor_land");
}

}  // namespace
}  // namespace spk
