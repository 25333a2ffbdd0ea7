// CUDA SpGEMM and triangle counting against the reference (the cpu backend for the larger
// power-law products): random products of several shapes, structured AMG products, R-MAT,
// rows that take the global-memory fallback (hash and dense), edge cases, masks and complemented
// masks, every semiring, sorted and unsorted output, plan reuse, int64. The plan's recompute
// (first call: hash kernels, later ones: the numeric-reuse path on C's kept columns) on rows of
// every bin, including rows longer than one shared-memory window. Skips without a device.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

#include "ops/spgemm_test_support.hpp"
#include "spk/generate.hpp"
#include "spk/io.hpp"

namespace spk {
namespace {

using test::MaskMode;

void skip_without_device() {
    if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
}

// A·B on the device against `oracle` (the reference unless said otherwise).
template <class V, class I>
void expect_matches(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options, const Csr<V, I>* mask = nullptr,
                    const Executor& oracle = Executor::reference()) {
    SCOPED_TRACE(std::string(to_string(options.semiring)) + (options.sorted ? " sorted" : " unsorted") +
                 (mask ? (options.complement_mask ? " !mask" : " mask") : ""));
    const Executor gpu = Executor::cuda(0);
    const auto host_mask = mask ? std::optional(mask->view()) : std::nullopt;
    // The oracle's rows are only sorted when asked for (the cpu backend leaves short rows in
    // first-touch order otherwise).
    const auto expected = test::entries_of(spgemm(oracle, a.view(), b.view(), options, host_mask).to(Executor::cpu()), options.sorted);
    const auto da = a.to(gpu), db = b.to(gpu);
    const auto dm = mask ? mask->to(gpu) : Csr<V, I>();
    const auto c = spgemm(gpu, da.view(), db.view(), options, mask ? std::optional(dm.view()) : std::nullopt).to(Executor::cpu());
    EXPECT_EQ(c.rows(), a.rows());
    EXPECT_EQ(c.cols(), b.cols());
    EXPECT_EQ(c.sorted(), options.sorted);
    EXPECT_TRUE(test::same_entries(test::entries_of(c, options.sorted), expected, test::rtol_for<V>(), 10 * test::rtol_for<V>()));
}

// Every semiring, mask mode and output order (detect_blocks false: the scalar kernels even where
// A and B consist of dense blocks).
template <class V, class I>
void expect_all_variants_match(const Csr<V, I>& a, const Csr<V, I>& b, const Executor& oracle = Executor::reference(),
                               bool detect_blocks = true) {
    const auto mask = test::mask_overlapping_product(a, b);
    for (const Semiring s : test::all_semirings())
        for (const MaskMode mode : {MaskMode::none, MaskMode::mask, MaskMode::complement})
            for (const bool sorted : {true, false})
                expect_matches(a, b,
                               {.semiring = s, .complement_mask = mode == MaskMode::complement, .sorted = sorted, .detect_blocks = detect_blocks},
                               mode == MaskMode::none ? nullptr : &mask, oracle);
}

template <class T>
class CudaSpgemm : public ::testing::Test {
protected:
    void SetUp() override { skip_without_device(); }
};
TYPED_TEST_SUITE(CudaSpgemm, test::FloatBackendTypes);

TYPED_TEST(CudaSpgemm, RandomProductsMatchReference) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_random");
    // Narrow and wide outputs, short and longer rows: warp bins and block bins.
    for (const auto& [m, k, n, per_row] : std::vector<std::tuple<index_t, index_t, index_t, double>>{
             {67, 45, 91, 5.0}, {90, 150, 20000, 5.0}, {300, 400, 3000, 20.0}, {33, 1000, 1000, 60.0}}) {
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
        const auto a = test::random_with_zeros<V, I>(m, k, per_row, seed + static_cast<std::uint64_t>(n));
        const auto b = test::random_with_zeros<V, I>(k, n, per_row + 1.0, seed + static_cast<std::uint64_t>(n) + 1);
        expect_all_variants_match(a, b);
    }
}

TYPED_TEST(CudaSpgemm, UnsortedInputsAndMask) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_unsorted");
    const auto a = test::shuffled_rows(test::random_csr<V, I>(50, 70, 6.0, seed), seed + 1);
    const auto b = test::shuffled_rows(test::random_csr<V, I>(70, 130, 8.0, seed + 2), seed + 3);
    const auto mask = test::shuffled_rows(test::random_csr<V, I>(50, 130, 30.0, seed + 4), seed + 5);
    for (const bool sorted : {true, false}) {
        expect_matches(a, b, {.sorted = sorted});
        expect_matches(a, b, {.semiring = Semiring::max_times, .sorted = sorted}, &mask);
        expect_matches(a, b, {.semiring = Semiring::min_plus, .complement_mask = true, .sorted = sorted}, &mask);
    }
}

// Rows of C beyond the shared-memory bins: the global bin with the dense accumulator (bitmap in
// shared memory; 20000 and 200000 columns), and, where no bitmap fits in shared memory, hash
// tables in the pool (4M columns: numeric hash, symbolic dense words; 40M: both hash tables). A
// shuffled mask on the long rows as well.
// An m x k A whose rows 0 and 5 are full (the others about others_per_row entries) times a random k x n B.
template <class V, class I>
Csr<V, I> a_with_two_full_rows(index_t m, index_t k, std::uint64_t seed, double others_per_row = 3.0) {
    auto coo = csr_to_coo(test::random_csr<V, I>(m, k, others_per_row, seed).view());
    Coo<V, I> full{m, k, {}, {}, {}};
    for (index_t p = 0; p < coo.nnz(); ++p)
        if (coo.row_idx[p] != 0 && coo.row_idx[p] != 5) {
            full.row_idx.push_back(coo.row_idx[p]);
            full.col_idx.push_back(coo.col_idx[p]);
            full.values.push_back(coo.values[p]);
        }
    for (const index_t row : {index_t{0}, index_t{5}})
        for (index_t j = 0; j < k; ++j) {
            full.row_idx.push_back(static_cast<I>(row));
            full.col_idx.push_back(static_cast<I>(j));
            full.values.push_back(value_cast<V>(0.5 + 0.001 * static_cast<double>(j % 17)));
        }
    return coo_to_csr(full);
}

TYPED_TEST(CudaSpgemm, LongRowsUseTheGlobalPool) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_global_rows");
    for (const index_t n : {index_t{20000}, index_t{200000}, index_t{4000000}, index_t{40000000}}) {
        SCOPED_TRACE("columns " + std::to_string(n));
        const index_t m = 12, k = 1000;
        const auto a = a_with_two_full_rows<V, I>(m, k, seed);  // about 20000 products in each full row
        const auto b = test::random_with_zeros<V, I>(k, n, 20.0, seed + 1);
        const auto mask = test::mask_overlapping_product(a, b);
        for (const Semiring s : {Semiring::plus_times, Semiring::min_plus, Semiring::lor_land})
            for (const bool sorted : {true, false}) {
                expect_matches(a, b, {.semiring = s, .sorted = sorted});
                expect_matches(a, b, {.semiring = s, .sorted = sorted}, &mask);
                expect_matches(a, b, {.semiring = s, .complement_mask = true, .sorted = sorted}, &mask);
            }
        const auto shuffled_mask = test::shuffled_rows(mask, seed + 2);
        expect_matches(a, b, {.semiring = Semiring::max_times}, &shuffled_mask);
        expect_matches(a, b, {.semiring = Semiring::plus_times, .complement_mask = true, .sorted = false}, &shuffled_mask);
    }
}

TYPED_TEST(CudaSpgemm, PlanRecomputeWithNewValues) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_plan");
    const Executor gpu = Executor::cuda(0);
    const auto a = test::random_csr<V, I>(200, 150, 8.0, seed);
    const auto b = test::random_csr<V, I>(150, 5000, 30.0, seed + 1);
    const auto mask = test::random_csr<V, I>(200, 5000, 300.0, seed + 2);
    auto a2 = a.to(Executor::cpu());
    auto b2 = b.to(Executor::cpu());
    for (index_t q = 0; q < a2.nnz(); ++q) a2.values()[q] = value_cast<V>(0.5 + 0.01 * static_cast<double>(q % 13));
    for (index_t q = 0; q < b2.nnz(); ++q) b2.values()[q] = value_cast<V>(-1.0 + 0.03 * static_cast<double>(q % 7));
    const auto da = a.to(gpu), db = b.to(gpu), dm = mask.to(gpu), da2 = a2.to(gpu), db2 = b2.to(gpu);
    for (const bool sorted : {true, false})
        for (const bool masked : {false, true}) {
            SCOPED_TRACE(std::string(sorted ? "sorted" : "unsorted") + (masked ? " masked" : ""));
            const SpgemmOptions options{.sorted = sorted};
            const SpgemmPlan<V, I> plan(gpu, da.view(), db.view(), options, masked ? std::optional(dm.view()) : std::nullopt);
            auto c = plan.compute();
            EXPECT_EQ(plan.nnz(), c.nnz());
            plan.recompute(da2.values().data(), db2.values().data(), c.values().data());
            plan.recompute(da2.values().data(), db2.values().data(), c.values().data());  // twice: nothing left over
            const auto host_mask = masked ? std::optional(mask.view()) : std::nullopt;
            const auto expected = spgemm(Executor::reference(), a2.view(), b2.view(), options, host_mask);
            const auto got = c.to(Executor::cpu());
            EXPECT_TRUE(test::same_entries(test::entries_of(got, sorted), test::entries_of(expected, true), test::rtol_for<V>(),
                                           10 * test::rtol_for<V>()));
            // A second C from the same plan gets its own copy of the row_ptr the plan keeps.
            const auto again = plan.compute().to(Executor::cpu());
            const auto original = spgemm(Executor::reference(), a.view(), b.view(), options, host_mask);
            EXPECT_TRUE(test::same_entries(test::entries_of(again, sorted), test::entries_of(original, true), test::rtol_for<V>(),
                                           10 * test::rtol_for<V>()));
        }
}

// The same pattern with other values: a different spread and sign, every fifth an explicit zero
// (lor_land), in host memory.
template <class V, class I>
Csr<V, I> with_new_values(const Csr<V, I>& m, double scale, int period) {
    auto out = m.to(Executor::cpu());
    for (index_t q = 0; q < out.nnz(); ++q)
        out.values()[q] = value_cast<V>(q % 5 == 4 ? 0.0 : scale * (-0.6 + 0.1 * static_cast<double>(q % period)));
    return out;
}

// C's values on the host, as doubles.
template <class V, class I>
std::vector<double> values_of(const Csr<V, I>& c) {
    const auto v = c.values().to_vector();
    return std::vector<double>(v.begin(), v.end());
}

// A plan's recompute with new values against `oracle`'s product: the first recompute (the hash
// kernels; the plan keeps C's columns, and what options.reuse asks for), then two on the reuse
// path (replaying places or entries, or searching C's columns), with the original and the new
// values in turn, each compared entry by entry with the hash kernels' values for the same inputs
// (compute() and the first recompute, both checked against the oracle; the pattern is the same
// and sorted, so the arrays line up). C's values are overwritten with garbage before each call
// (every entry must be written, nothing left over from the call before). Then a fresh product of
// the new values, and a second compute() from the plan. SpgemmReuse::automatic runs three plans:
// places, entries and the automatic choice.
template <class V, class I>
void expect_recompute_matches(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options, const Csr<V, I>* mask = nullptr,
                              const Executor& oracle = Executor::reference()) {
    SCOPED_TRACE(std::string("recompute ") + std::string(to_string(options.semiring)) + (options.sorted ? " sorted" : " unsorted") +
                 (mask ? (options.complement_mask ? " !mask" : " mask") : ""));
    const Executor gpu = Executor::cuda(0);
    const auto host_mask = mask ? std::optional(mask->view()) : std::nullopt;
    const auto a2 = with_new_values(a, 1.5, 13), b2 = with_new_values(b, -0.75, 7);
    const auto da = a.to(gpu), db = b.to(gpu), da2 = a2.to(gpu), db2 = b2.to(gpu);
    const auto dm = mask ? mask->to(gpu) : Csr<V, I>();
    const auto device_mask = mask ? std::optional(dm.view()) : std::nullopt;
    const double rtol = test::rtol_for<V>();
    const auto oracle_entries = [&](const Csr<V, I>& x, const Csr<V, I>& y) {
        return test::entries_of(spgemm(oracle, x.view(), y.view(), options, host_mask).to(Executor::cpu()), options.sorted);
    };
    const auto expected = oracle_entries(a, b), expected2 = oracle_entries(a2, b2);
    const auto layouts = options.reuse == SpgemmReuse::automatic
                             ? std::vector<SpgemmReuse>{SpgemmReuse::places, SpgemmReuse::entries, SpgemmReuse::automatic}
                             : std::vector<SpgemmReuse>{options.reuse};
    for (const SpgemmReuse layout : layouts) {
        SCOPED_TRACE(std::string("reuse: ") + std::string(to_string(layout)));
        SpgemmOptions o = options;
        o.reuse = layout;
        const SpgemmPlan<V, I> plan(gpu, da.view(), db.view(), o, device_mask);
        auto c = plan.compute();
        ASSERT_EQ(c.nnz(), plan.nnz());
        const auto expect_oracle = [&](const auto& want, const char* when) {
            SCOPED_TRACE(when);
            EXPECT_TRUE(test::same_entries(test::entries_of(c.to(Executor::cpu()), options.sorted), want, rtol, 10 * rtol));
        };
        const auto expect_values = [&](const std::vector<double>& want, const char* when) {
            SCOPED_TRACE(when);
            EXPECT_TRUE(test::all_close(values_of(c.to(Executor::cpu())), want, rtol, 10 * rtol));
        };
        const std::vector<V> garbage(static_cast<std::size_t>(c.nnz()), value_cast<V>(-12345.0));
        const auto recompute = [&](const Csr<V, I>& x, const Csr<V, I>& y) {
            if (!garbage.empty())
                copy_bytes(c.values().data(), c.values().space(), garbage.data(), MemorySpace::host(), garbage.size() * sizeof(V));
            plan.recompute(x.values().data(), y.values().data(), c.values().data());
        };
        expect_oracle(expected, "compute");
        const std::vector<double> original = values_of(c.to(Executor::cpu()));
        recompute(da2, db2);
        expect_oracle(expected2, "first recompute (hash kernels)");
        const std::vector<double> changed = values_of(c.to(Executor::cpu()));
        recompute(da, db);
        expect_values(original, "second recompute (reuse), original values");
        recompute(da2, db2);
        expect_values(changed, "third recompute (reuse), new values");
        const auto fresh = spgemm(gpu, da2.view(), db2.view(), o, device_mask).to(Executor::cpu());
        EXPECT_EQ(fresh.col_idx().to_vector(), c.to(Executor::cpu()).col_idx().to_vector());
        EXPECT_TRUE(test::all_close(values_of(fresh), changed, rtol, 10 * rtol)) << "a fresh product of the new values";
        c = plan.compute();
        expect_values(original, "compute after recomputes");
    }
}

// Every variant of the product (expect_all_variants_match), then the plan's recompute.
template <class V, class I>
void expect_product_and_recompute_match(const Csr<V, I>& a, const Csr<V, I>& b, bool detect_blocks = true) {
    expect_all_variants_match(a, b, Executor::reference(), detect_blocks);
    expect_recompute_matches(a, b, {.detect_blocks = detect_blocks});
}

// Each semiring with every mask mode (sorted output), and unsorted output with and without a mask,
// on the places' and the entries' paths; then the search of C's columns (no places) with and without a mask.
template <class V, class I>
void expect_recompute_variants_match(const Csr<V, I>& a, const Csr<V, I>& b, const std::vector<Semiring>& semirings) {
    const auto mask = test::mask_overlapping_product(a, b);
    for (const Semiring s : semirings)
        for (const MaskMode mode : {MaskMode::none, MaskMode::mask, MaskMode::complement})
            expect_recompute_matches(a, b, {.semiring = s, .complement_mask = mode == MaskMode::complement},
                                     mode == MaskMode::none ? nullptr : &mask);
    expect_recompute_matches(a, b, {.sorted = false});
    expect_recompute_matches(a, b, {.complement_mask = true, .sorted = false}, &mask);
    expect_recompute_matches(a, b, {.reuse = SpgemmReuse::search});
    expect_recompute_matches(a, b, {.semiring = Semiring::min_plus, .complement_mask = true, .reuse = SpgemmReuse::search}, &mask);
}

// Rows of C of every bin on the reuse path: short warp rows (bins 1-5) and block rows (bin 6)
// under every semiring (each instantiates both kernels), then, under three, block rows of bin 7,
// the global bin's rows (which replay 32-bit places straight into C, or recompute through the
// hash kernels where the plan keeps no places), and rows of about 36000 entries, longer than a
// shared-memory tree holds.
// Few rows each: the comparisons on the host bound the sizes.
TYPED_TEST(CudaSpgemm, RecomputeOnEveryBin) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_recompute_bins");
    using Shape = std::tuple<index_t, index_t, index_t, double>;
    const std::vector<Semiring> some{Semiring::plus_times, Semiring::min_plus, Semiring::lor_land};
    for (const auto& [shape, semirings] : std::vector<std::pair<Shape, std::vector<Semiring>>>{{{67, 45, 91, 5.0}, test::all_semirings()},
                                                                                             {{120, 400, 3000, 20.0}, test::all_semirings()},
                                                                                             {{33, 1000, 1000, 60.0}, test::all_semirings()},
                                                                                             {{12, 1000, 20000, 60.0}, some},
                                                                                             {{8, 1000, 30000, 90.0}, some}}) {
        const auto& [m, k, n, per_row] = shape;
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
        const auto a = test::random_with_zeros<V, I>(m, k, per_row, seed + static_cast<std::uint64_t>(n));
        const auto b = test::random_with_zeros<V, I>(k, n, per_row + 1.0, seed + static_cast<std::uint64_t>(n) + 1);
        expect_recompute_variants_match(a, b, semirings);
    }
    SCOPED_TRACE("rows of several windows");
    const auto a = a_with_two_full_rows<V, I>(12, 1000, seed + 2);
    const auto b = test::random_with_zeros<V, I>(1000, 200000, 40.0, seed + 3);
    expect_recompute_variants_match(a, b, some);
}

// Short rows of C (bins 1 to 4) from long rows of A and short rows of B (so the rounds of
// replay_rows would need atomics), which replay through replay_short_rows: rows of A longer than
// the lanes a row gets (8, 16, 32), so a row takes several chunks, and many products per entry of
// C, so lanes of one round meet on one value.
TYPED_TEST(CudaSpgemm, ShortRowsReplayInChunks) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_short_replay");
    for (const auto& [per_row_a, b_cols] : std::vector<std::pair<double, index_t>>{{12.0, 30}, {20.0, 60}, {30.0, 120}, {40.0, 250}}) {
        SCOPED_TRACE(std::to_string(per_row_a) + " per row of A, " + std::to_string(b_cols) + " columns of B");
        const auto a = test::random_with_zeros<V, I>(300, 500, per_row_a, seed + static_cast<std::uint64_t>(b_cols));
        const auto b = test::random_with_zeros<V, I>(500, b_cols, 3.0, seed + static_cast<std::uint64_t>(b_cols) + 1);
        expect_recompute_variants_match(a, b, test::all_semirings());
    }
}

// The global bin's kernels choose each row's table (and its memory kind) row by row: here one
// launch holds both kinds. With 2M columns neither phase's word per column (block) fits in shared
// memory; rows of about 6000 entries (300 of A times 20 of B) take hash tables of 2^14 entries in
// shared memory (numeric: every type but double values with int64 keys, whose table outgrows it),
// the two full rows of about 20000 entries the pool (numeric hash tables, symbolic dense words).
TYPED_TEST(CudaSpgemm, GlobalBinRowsInSharedAndPoolTables) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_global_kinds");
    const auto a = a_with_two_full_rows<V, I>(12, 1000, seed, 300.0);
    const auto b = test::random_with_zeros<V, I>(1000, 2000000, 20.0, seed + 1);
    const auto mask = test::mask_overlapping_product(a, b);
    for (const Semiring s : {Semiring::plus_times, Semiring::min_plus})
        for (const bool sorted : {true, false}) {
            expect_matches(a, b, {.semiring = s, .sorted = sorted});
            expect_matches(a, b, {.semiring = s, .complement_mask = true, .sorted = sorted}, &mask);
        }
    expect_recompute_matches(a, b, {});
}

// B's rows long enough that one sub-group of a warp takes each (32 lanes), with a column repeated:
// next to itself on even rows, appended at the end (the row then unsorted) on odd rows. Two lanes
// of one round then reach the same slot, so the kernels must combine atomically there (plain
// adds serve only rows of B whose columns strictly increase: owns_distinct_slots). The product,
// and the recompute over places that repeat, against the reference, which sums each product.
template <class V, class I>
Csr<V, I> with_repeated_columns(const Csr<V, I>& m) {
    const auto ptr = m.row_ptr().to_vector();
    const auto col = m.col_idx().to_vector();
    const auto val = m.values().to_vector();
    std::vector<I> out_ptr{0}, out_col;
    std::vector<V> out_val;
    for (index_t i = 0; i < m.rows(); ++i) {
        for (index_t q = ptr[i]; q < ptr[i + 1]; ++q) {
            out_col.push_back(col[q]);
            out_val.push_back(val[q]);
            if (i % 2 == 0 && q == ptr[i]) {
                out_col.push_back(col[q]);
                out_val.push_back(value_cast<V>(0.5));
            }
        }
        if (i % 2 == 1 && ptr[i + 1] > ptr[i]) {
            const index_t mid = (ptr[i] + ptr[i + 1]) / 2;
            out_col.push_back(col[mid]);
            out_val.push_back(value_cast<V>(-0.25));
        }
        out_ptr.push_back(static_cast<I>(out_col.size()));
    }
    return Csr<V, I>(Executor::cpu(), m.rows(), m.cols(), out_ptr, out_col, out_val, false);
}

TYPED_TEST(CudaSpgemm, RepeatedColumnsInWideRowsOfB) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_repeated_columns");
    const auto b = with_repeated_columns(test::random_with_zeros<V, I>(300, 2000, 40.0, seed + 1));
    for (const double per_row : {2.0, 8.0}) {  // rows of C of 40-80 and 300-400 entries: warp bins 2-5
        SCOPED_TRACE(std::to_string(per_row) + " entries a row of A");
        const auto a = test::random_with_zeros<V, I>(200, 300, per_row, seed + static_cast<std::uint64_t>(per_row));
        for (const Semiring s : {Semiring::plus_times, Semiring::min_plus}) expect_matches(a, b, {.semiring = s});
        expect_recompute_matches(a, b, {});
        expect_recompute_matches(a, b, {.reuse = SpgemmReuse::search});
    }
}

// Columns scaled by `stride` (B's columns j become stride * j, in a stride times wider matrix).
template <class V, class I>
Csr<V, I> with_spread_columns(const Csr<V, I>& m, I stride) {
    auto col = m.col_idx().to_vector();
    for (auto& c : col) c *= stride;
    return Csr<V, I>(Executor::cpu(), m.rows(), m.cols() * stride, m.row_ptr().to_vector(), col, m.values().to_vector());
}

// Block rows of C of 257-512 entries (bin 5): a mesh's rows, whose columns come in runs; rows
// whose columns lie 10 or 11 apart (spans just under and over 32768 columns); and rows whose
// columns all share their low five bits (multiples of 32 or 64), which a hash of runs of
// consecutive columns would start at the same place in their blocks.
TYPED_TEST(CudaSpgemm, BlockRowsOfRunsAndOfEqualLowBits) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_block_rows");
    const auto elasticity = generate<V, I>("elasticity3d:n=6");
    expect_product_and_recompute_match(elasticity, elasticity, false);  // its 3 x 3 blocks: BlockProductsMatchReference
    const auto a = test::random_with_zeros<V, I>(150, 400, 20.0, seed);
    for (const I stride : {I{10}, I{11}, I{32}, I{64}}) {
        SCOPED_TRACE("columns times " + std::to_string(stride));
        const auto b = with_spread_columns(test::random_with_zeros<V, I>(400, 3000, 21.0, seed + 1), stride);
        expect_product_and_recompute_match(a, b);
    }
}

// Warp rows of C too long to leave by rank (65-128 and 129-256 entries, bins 3 and 4), whose
// warp orders them before writing (every semiring and mask mode, then the recompute).
TYPED_TEST(CudaSpgemm, WarpRowsOrderedBeforeWriting) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_warp_rows");
    const auto b = test::random_with_zeros<V, I>(400, 3000, 13.0, seed + 1);
    for (const double per_row : {6.0, 12.0}) {  // about 85 and 160 products a row
        SCOPED_TRACE(std::to_string(per_row) + " entries a row of A");
        const auto a = test::random_with_zeros<V, I>(180, 400, per_row, seed + static_cast<std::uint64_t>(per_row));
        expect_product_and_recompute_match(a, b);
    }
}

// Rows of at most 64 products, which the symbolic phase counts in one kernel (short_rows.cuh): a
// 7-point stencil's square, B's rows unsorted or with repeated columns (whether they strictly
// increase decides the numeric kernels' plain adds), and a matrix of short rows with two long
// ones (those take the general path, the others keep their direct counts).
TYPED_TEST(CudaSpgemm, ShortRowsCountedDirectly) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_short_rows");
    const auto laplace = generate<V, I>("laplace3d:n=12");
    expect_product_and_recompute_match(laplace, laplace);
    const auto a = test::random_with_zeros<V, I>(200, 300, 3.0, seed);
    const auto repeated = with_repeated_columns(test::random_with_zeros<V, I>(300, 2000, 4.0, seed + 1));
    const auto shuffled = test::shuffled_rows(test::random_csr<V, I>(300, 500, 5.0, seed + 2), seed + 3);
    for (const auto* b : {&repeated, &shuffled}) {
        for (const Semiring s : {Semiring::plus_times, Semiring::min_plus}) expect_matches(a, *b, {.semiring = s});
        expect_recompute_matches(a, *b, {});
        expect_recompute_matches(a, *b, {.reuse = SpgemmReuse::search});
    }
    const auto mixed = a_with_two_full_rows<V, I>(200, 300, seed + 4);  // rows 0 and 5: about 900 products
    expect_all_variants_match(mixed, test::random_with_zeros<V, I>(300, 500, 3.0, seed + 5));
    expect_recompute_matches(mixed, shuffled, {});
}

// Rows of C of 65-256 products from at most 32 entries of A (uniform random squares; plain ones in
// WarpRowsOrderedBeforeWriting), some past 256 products beside them: B's rows unsorted or with
// repeated columns, with and without a mask; narrow products, whose columns mostly repeat, under
// every variant; and rows of more than 32 entries of A with few products. (Rows such as these are
// where warp-sorted paths of the symbolic and numeric phases are being tried against the hash
// tables: bench/patches/README.md.)
TYPED_TEST(CudaSpgemm, MediumRowsMatchReference) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_medium_rows");
    const auto a = test::random_with_zeros<V, I>(300, 500, 12.0, seed);  // about 170 products a row
    const auto b = test::random_with_zeros<V, I>(500, 5000, 14.0, seed + 1);
    const auto repeated = with_repeated_columns(b);
    const auto shuffled = test::shuffled_rows(b, seed + 2);
    const auto mask = test::shuffled_rows(test::mask_overlapping_product(a, b), seed + 3);
    for (const auto* bb : {&repeated, &shuffled}) {
        expect_matches(a, *bb, {});
        expect_matches(a, *bb, {.semiring = Semiring::min_plus, .complement_mask = true}, &mask);
        expect_recompute_matches(a, *bb, {});
    }
    const auto narrow = test::random_with_zeros<V, I>(500, 48, 10.0, seed + 4);
    expect_all_variants_match(a, narrow);
    const auto wide_a = test::random_with_zeros<V, I>(100, 500, 40.0, seed + 5);  // 40 entries a row of A
    const auto sparse_b = test::random_with_zeros<V, I>(500, 5000, 3.0, seed + 6);
    expect_matches(wide_a, sparse_b, {});
    expect_recompute_matches(wide_a, sparse_b, {});
}

// An m x k matrix of dense g x s blocks (m and k counted in blocks) on a random pattern of about
// per_row blocks a block row, every entry non-zero; the block rows in rows_empty have none.
template <class V, class I>
Csr<V, I> random_blocks(index_t m, index_t k, int g, int s, double per_row, std::uint64_t seed, const std::vector<index_t>& rows_empty = {}) {
    const auto pattern = test::random_csr<V, I>(m, k, per_row, seed);
    const auto ptr = pattern.row_ptr().to_vector();
    const auto col = pattern.col_idx().to_vector();
    std::vector<I> row_ptr{0}, cols;
    std::vector<V> values;
    for (index_t block_row = 0; block_row < m; ++block_row) {
        const bool empty = std::find(rows_empty.begin(), rows_empty.end(), block_row) != rows_empty.end();
        for (int r = 0; r < g; ++r) {
            if (!empty)
                for (I q = ptr[block_row]; q < ptr[block_row + 1]; ++q)
                    for (int c = 0; c < s; ++c) {
                        cols.push_back(static_cast<I>(col[q] * s + c));
                        values.push_back(value_cast<V>(0.25 + 0.01 * static_cast<double>((block_row * 7 + q * 3 + r * 5 + c) % 97)));
                    }
            row_ptr.push_back(static_cast<I>(cols.size()));
        }
    }
    return Csr<V, I>(Executor::cpu(), m * g, k * s, row_ptr, cols, values);
}

// Products of matrices of dense blocks, which run a block at a time (BlockShape): elasticity's
// 3 x 3 blocks squared under every variant (a mask keeps the scalar kernels) and recomputed;
// rectangular blocks (2 x 3 times 3 x 4) with empty block rows in A and B; blocks of 2 whose
// block rows of C take a thread block's shared memory of their own (f64), or outgrow it (the scalar
// kernels take over); and a mesh with one entry short of its blocks. The scalar kernels on the same
// products: BlockRowsOfRunsAndOfEqualLowBits.
TYPED_TEST(CudaSpgemm, BlockProductsMatchReference) {
    using V = typename TypeParam::value;
    using I = typename TypeParam::index;
    const std::uint64_t seed = test::seed("cuda_spgemm_blocks");
    const auto elasticity = generate<V, I>("elasticity3d:n=5");
    expect_product_and_recompute_match(elasticity, elasticity);
    const auto a = random_blocks<V, I>(60, 45, 2, 3, 4.0, seed, {0, 7});
    const auto b = random_blocks<V, I>(45, 50, 3, 4, 5.0, seed + 1, {3});
    expect_all_variants_match(a, b);
    expect_recompute_matches(a, b, {});
    expect_recompute_matches(a, b, {.semiring = Semiring::min_plus});
    expect_recompute_matches(a, b, {.reuse = SpgemmReuse::search});  // no block places kept: every recompute searches
    const auto wide_a = random_blocks<V, I>(20, 60, 2, 2, 40.0, seed + 2);
    const auto wide_b = random_blocks<V, I>(60, 3000, 2, 2, 30.0, seed + 3);  // block rows of C of about 1000 blocks
    expect_matches(wide_a, wide_b, {});
    expect_recompute_matches(wide_a, wide_b, {});
    const auto wider_b = random_blocks<V, I>(60, 12000, 2, 2, 120.0, seed + 4);  // about 4000 blocks
    expect_matches(wide_a, wider_b, {});
    auto coo = csr_to_coo(elasticity.view());
    coo.row_idx.pop_back();
    coo.col_idx.pop_back();
    coo.values.pop_back();
    const auto broken = coo_to_csr(coo);
    expect_matches(broken, elasticity, {});
    expect_matches(elasticity, broken, {.semiring = Semiring::max_times});
    // The path each took.
    const auto config_of = [](const Csr<V, I>& x, const Csr<V, I>& y, const SpgemmOptions& options) {
        const Executor gpu = Executor::cuda(0);
        const auto dx = x.to(gpu), dy = y.to(gpu);
        return SpgemmPlan<V, I>(gpu, dx.view(), dy.view(), options).config();
    };
    EXPECT_EQ(config_of(elasticity, elasticity, {}), "blocks 3x3x3");
    EXPECT_EQ(config_of(elasticity, elasticity, {.detect_blocks = false}), "scalar");
    EXPECT_EQ(config_of(a, b, {}), "blocks 2x3x4");
    EXPECT_EQ(config_of(wide_a, wide_b, {}), "blocks 2x2x2");  // in f64, 36 KB a block row: a warp a thread block
    EXPECT_EQ(config_of(wide_a, wider_b, {}), "scalar");       // 79 KB (f32) to 143 KB (f64) a block row
    EXPECT_EQ(config_of(broken, elasticity, {}), "scalar");
    EXPECT_EQ(config_of(elasticity, broken, {}), "scalar");
}

class CudaSpgemmFixed : public ::testing::Test {
protected:
    void SetUp() override { skip_without_device(); }
};

TEST_F(CudaSpgemmFixed, StructuredAmgProducts) {
    for (const AmgProblem problem : {AmgProblem::laplace3d, AmgProblem::elasticity3d}) {
        SCOPED_TRACE(std::string(to_string(problem)));
        const auto ops = generate_amg<double, std::int32_t>(problem, 5, 4, 4);
        expect_matches(ops.a, ops.a, {});
        expect_matches(ops.r, ops.a, {});
        expect_matches(ops.a, ops.p, {});
        const auto ra = spgemm(Executor::cpu(), ops.r.view(), ops.a.view());
        expect_matches(ra, ops.p, {.sorted = false});
        const auto ops64 = generate_amg<double, std::int64_t>(problem, 4, 4, 3);
        expect_matches(ops64.r, ops64.a, {});
        expect_matches(ops64.a, ops64.p, {.semiring = Semiring::max_times});
    }
}

TEST_F(CudaSpgemmFixed, StructuredAmgRecompute) {
    for (const AmgProblem problem : {AmgProblem::laplace3d, AmgProblem::elasticity3d}) {
        SCOPED_TRACE(std::string(to_string(problem)));
        const auto ops = generate_amg<double, std::int32_t>(problem, 6, 5, 4);
        for (const Semiring s : {Semiring::plus_times, Semiring::max_times}) {
            // The scalar kernels (elasticity's rows of 375 in bin 5), then the block products
            for (const bool blocks : {false, true}) {
                expect_recompute_matches(ops.a, ops.a, {.semiring = s, .detect_blocks = blocks});
                expect_recompute_matches(ops.r, ops.a, {.semiring = s, .detect_blocks = blocks});
                expect_recompute_matches(ops.a, ops.p, {.semiring = s, .detect_blocks = blocks});
            }
        }
        const auto mask = test::mask_overlapping_product(ops.a, ops.a);
        expect_recompute_matches(ops.a, ops.a, {}, &mask);
        expect_recompute_matches(ops.a, ops.a, {.semiring = Semiring::min_plus, .complement_mask = true}, &mask);
        const auto a32 = generate_amg_matrix<float, std::int64_t>(problem, 5, 4, 4);
        expect_recompute_matches(a32, a32, {.detect_blocks = false});
        expect_recompute_matches(a32, a32, {.semiring = Semiring::lor_land});
    }
}

TEST_F(CudaSpgemmFixed, RmatRecomputeMatchesCpu) {
    // Skewed rows, warp and block bins at once (scale 10: C has 265k entries, rows up to 782; the
    // comparisons on the host, eight per product, bound the size).
    const auto g32 = generate_rmat<double, std::int32_t>(10, 16, 0.57, 0.19, 0.19, 0.05, test::seed("cuda_spgemm_rmat_recompute"));
    const auto mask = test::mask_overlapping_product(g32, g32);
    expect_recompute_matches(g32, g32, {}, static_cast<const Csr<double, std::int32_t>*>(nullptr), Executor::cpu());
    expect_recompute_matches(g32, g32, {.semiring = Semiring::max_times}, &mask, Executor::cpu());
    expect_recompute_matches(g32, g32, {.semiring = Semiring::plus_pair, .complement_mask = true}, &mask, Executor::cpu());
    const auto g64 = generate_rmat<float, std::int64_t>(9, 8, 0.57, 0.19, 0.19, 0.05, test::seed("cuda_spgemm_rmat64_recompute"));
    expect_recompute_matches(g64, g64, {.semiring = Semiring::min_plus}, static_cast<const Csr<float, std::int64_t>*>(nullptr),
                             Executor::cpu());
    expect_recompute_matches(g64, g64, {.semiring = Semiring::lor_land}, &g64, Executor::cpu());
}

TEST_F(CudaSpgemmFixed, RmatPowerLawMatchesCpu) {
    // Skewed rows: warp bins, block bins and, for the hubs, many products per row. Checked
    // against the cpu backend (itself checked against the reference), which is far faster here.
    const auto g32 = generate_rmat<double, std::int32_t>(12, 16, 0.57, 0.19, 0.19, 0.05, test::seed("cuda_spgemm_rmat"));
    expect_all_variants_match(g32, g32, Executor::cpu());
    const auto g64 = generate_rmat<float, std::int64_t>(11, 8, 0.57, 0.19, 0.19, 0.05, test::seed("cuda_spgemm_rmat64"));
    expect_matches(g64, g64, {}, static_cast<const Csr<float, std::int64_t>*>(nullptr), Executor::cpu());
    expect_matches(g64, g64, {.semiring = Semiring::plus_pair}, &g64, Executor::cpu());
}

// Unsorted output checked against the cpu backend, whose short rows then keep their first-touch
// order (row 0 below: column 4000 before 7), with a mask given unsorted: the comparison must not
// ask the oracle for an order it was not asked to produce (the R-MAT failure of run 6).
TEST_F(CudaSpgemmFixed, UnsortedOutputAgainstAFirstTouchOracle) {
    using C = Csr<double, std::int32_t>;
    const C a(Executor::cpu(), 2, 3, std::vector<std::int32_t>{0, 2, 3}, {0, 1, 2}, std::vector<double>{2, 3, 1});
    const C b(Executor::cpu(), 3, 5000, std::vector<std::int32_t>{0, 1, 3, 4}, {4000, 7, 4000, 4999}, std::vector<double>{1.5, 2, 1, -1});
    const C mask(Executor::cpu(), 2, 5000, std::vector<std::int32_t>{0, 3, 4}, {4000, 100, 7, 4999}, std::vector<double>(4, 1.0), false);
    for (const Semiring s : test::all_semirings()) {
        expect_matches(a, b, {.semiring = s, .sorted = false}, static_cast<const C*>(nullptr), Executor::cpu());
        expect_matches(a, b, {.semiring = s, .sorted = false}, &mask, Executor::cpu());
        expect_matches(a, b, {.semiring = s, .complement_mask = true, .sorted = false}, &mask, Executor::cpu());
        expect_matches(a, b, {.semiring = s, .sorted = true}, &mask, Executor::cpu());
    }
}

// An outer product of an n x 1 and a 1 x n matrix of ones: n² = 2^31 + 4633 non-zeros from
// 2n inputs. The symbolic phase counts them (cheaply: each row is one run of column blocks); with
// int32 indices the plan must refuse C before anything is written, with int64 it holds the count.
TEST_F(CudaSpgemmFixed, NnzBeyondInt32) {
    constexpr index_t n = 46341;
    const Executor gpu = Executor::cuda(0);
    std::vector<std::int64_t> ptr(n + 1), cols(n);
    for (index_t i = 0; i <= n; ++i) ptr[i] = i;
    for (index_t j = 0; j < n; ++j) cols[j] = j;
    const Csr<float, std::int64_t> a64(Executor::cpu(), n, 1, ptr, std::vector<std::int64_t>(n, 0), std::vector<float>(n, 1.0f));
    const Csr<float, std::int64_t> b64(Executor::cpu(), 1, n, std::vector<std::int64_t>{0, n}, cols, std::vector<float>(n, 1.0f));
    const auto da64 = a64.to(gpu), db64 = b64.to(gpu);
    const SpgemmPlan<float, std::int64_t> plan64(gpu, da64.view(), db64.view());
    EXPECT_EQ(plan64.nnz(), n * n);

    const std::vector<std::int32_t> ptr32(ptr.begin(), ptr.end()), cols32(cols.begin(), cols.end());
    const Csr<float, std::int32_t> a32(Executor::cpu(), n, 1, ptr32, std::vector<std::int32_t>(n, 0), std::vector<float>(n, 1.0f));
    const Csr<float, std::int32_t> b32(Executor::cpu(), 1, n, std::vector<std::int32_t>{0, static_cast<std::int32_t>(n)}, cols32,
                                       std::vector<float>(n, 1.0f));
    const auto da32 = a32.to(gpu), db32 = b32.to(gpu);
    test::expect_error([&] { (void)SpgemmPlan<float, std::int32_t>(gpu, da32.view(), db32.view()); }, ErrorKind::InvalidArgument,
                       "use int64_t indices");
    test::expect_error([&] { (void)spgemm(gpu, da32.view(), db32.view()); }, ErrorKind::InvalidArgument, "2147488281 non-zeros");
}

// A product whose C cannot fit in device memory (an outer product of 200k x 1 and 1 x 200k: 4e10
// entries, 480 GB) is an OutOfMemory error the caller can catch, and leaves the device usable:
// the memory of the failed attempt is back (a large allocation succeeds after it).
TEST_F(CudaSpgemmFixed, ProductTooLargeIsOutOfMemory) {
    constexpr index_t n = 200000;
    const Executor gpu = Executor::cuda(0);
    std::vector<std::int64_t> ptr(n + 1), cols(n);
    for (index_t i = 0; i <= n; ++i) ptr[i] = i;
    for (index_t j = 0; j < n; ++j) cols[j] = j;
    const auto a = Csr<double, std::int64_t>(Executor::cpu(), n, 1, ptr, std::vector<std::int64_t>(n, 0), std::vector<double>(n, 1.0)).to(gpu);
    const auto b = Csr<double, std::int64_t>(Executor::cpu(), 1, n, std::vector<std::int64_t>{0, n}, cols, std::vector<double>(n, 2.0)).to(gpu);
    test::expect_error([&] { (void)spgemm(gpu, a.view(), b.view()); }, ErrorKind::OutOfMemory, "bytes");
    Array<double> big(gpu, std::size_t{10} << 27);  // 10 GiB
    EXPECT_EQ(big.size(), std::size_t{10} << 27);
}

// Out of core: C computed in chunks of rows under a small budget and gathered on the host equals
// the product computed in one piece on the device (the same pattern; values to rounding, as
// the hash accumulators add in no fixed order).
TEST_F(CudaSpgemmFixed, ToHostInChunksEqualsTheWholeProduct) {
    const std::uint64_t seed = test::seed("cuda_spgemm_to_host");
    const Executor gpu = Executor::cuda(0);
    const auto a = test::random_csr<double, std::int64_t>(5000, 4000, 8.0, seed).to(gpu);
    const auto b = test::random_csr<double, std::int64_t>(4000, 6000, 6.0, seed + 1).to(gpu);
    const auto m = test::random_csr<double, std::int64_t>(5000, 6000, 40.0, seed + 2).to(gpu);
    for (const bool with_mask : {false, true}) {
        const auto mask = with_mask ? std::optional(m.view()) : std::nullopt;
        const auto whole = spgemm(gpu, a.view(), b.view(), SpgemmOptions{}, mask).to(Executor::cpu());
        for (const std::size_t budget : {std::size_t{1} << 16, std::size_t{1} << 22}) {
            SCOPED_TRACE("budget " + std::to_string(budget) + (with_mask ? " mask" : ""));
            const auto chunked = spgemm_to_host(gpu, a.view(), b.view(), SpgemmOptions{.memory_budget = budget}, mask);
            EXPECT_TRUE(chunked.row_ptr().space().is_host());
            EXPECT_EQ(chunked.row_ptr().to_vector(), whole.row_ptr().to_vector());
            EXPECT_EQ(chunked.col_idx().to_vector(), whole.col_idx().to_vector());
            const auto got = chunked.values().to_vector(), want = whole.values().to_vector();
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t q = 0; q < got.size(); ++q) ASSERT_NEAR(got[q], want[q], 1e-12 * (1 + std::abs(want[q]))) << "entry " << q;
        }
    }
}

TEST_F(CudaSpgemmFixed, EdgeCases) {
    using C = Csr<double, std::int32_t>;
    const C empty(Executor::cpu(), 0, 0, std::vector<std::int32_t>{0}, {}, {});
    expect_matches(empty, empty, {});
    // No inner dimension: every row of C is empty.
    const C a_no_cols(Executor::cpu(), 5, 0, std::vector<std::int32_t>(6, 0), {}, {});
    const C b_no_rows(Executor::cpu(), 0, 7, std::vector<std::int32_t>{0}, {}, {});
    expect_matches(a_no_cols, b_no_rows, {});
    // B with no columns.
    const auto a = test::random_csr<double, std::int32_t>(4, 3, 2.0, 11);
    const C b_no_cols(Executor::cpu(), 3, 0, std::vector<std::int32_t>(4, 0), {}, {});
    expect_matches(a, b_no_cols, {});
    // Empty rows in A and in B; a dense row; a single column; n = 1.
    const C sparse(Executor::cpu(), 6, 5, std::vector<std::int32_t>{0, 0, 2, 2, 7, 7, 8}, {1, 3, 0, 1, 2, 3, 4, 2},
                   std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8});
    const C b(Executor::cpu(), 5, 4, std::vector<std::int32_t>{0, 4, 4, 5, 5, 7}, {0, 1, 2, 3, 3, 0, 2}, std::vector<double>{1, 2, 3, 4, 5, 6, 7});
    for (const Semiring s : test::all_semirings()) expect_matches(sparse, b, {.semiring = s});
    const C column(Executor::cpu(), 5, 1, std::vector<std::int32_t>{0, 1, 1, 2, 3, 3}, {0, 0, 0}, std::vector<double>{2, 3, 4});
    const C row(Executor::cpu(), 1, 5, std::vector<std::int32_t>{0, 5}, {0, 1, 2, 3, 4}, std::vector<double>{1, -1, 2, -2, 3});
    expect_matches(column, row, {});  // an outer product: 3 dense rows
    expect_matches(row, column, {});  // an inner product: 1 x 1
}

// Recompute on empty matrices, empty rows of A, B and C, a dense row, 1 x 1, long rows of A with
// short rows of C, and inputs whose rows are unsorted (the reuse path reads B's columns in any order, and never the mask).
TEST_F(CudaSpgemmFixed, RecomputeEdgeCases) {
    using C = Csr<double, std::int32_t>;
    const C empty(Executor::cpu(), 0, 0, std::vector<std::int32_t>{0}, {}, {});
    expect_recompute_matches(empty, empty, {});
    const C a_no_cols(Executor::cpu(), 5, 0, std::vector<std::int32_t>(6, 0), {}, {});
    const C b_no_rows(Executor::cpu(), 0, 7, std::vector<std::int32_t>{0}, {}, {});
    expect_recompute_matches(a_no_cols, b_no_rows, {});
    const C sparse(Executor::cpu(), 6, 5, std::vector<std::int32_t>{0, 0, 2, 2, 7, 7, 8}, {1, 3, 0, 1, 2, 3, 4, 2},
                   std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8});
    const C b(Executor::cpu(), 5, 4, std::vector<std::int32_t>{0, 4, 4, 5, 5, 7}, {0, 1, 2, 3, 3, 0, 2}, std::vector<double>{1, 2, 3, 4, 5, 6, 7});
    for (const Semiring s : test::all_semirings()) expect_recompute_matches(sparse, b, {.semiring = s});
    const C column(Executor::cpu(), 5, 1, std::vector<std::int32_t>{0, 1, 1, 2, 3, 3}, {0, 0, 0}, std::vector<double>{2, 3, 4});
    const C row(Executor::cpu(), 1, 5, std::vector<std::int32_t>{0, 5}, {0, 1, 2, 3, 4}, std::vector<double>{1, -1, 2, -2, 3});
    expect_recompute_matches(column, row, {});
    expect_recompute_matches(row, column, {});
    // Two rows of A with 300 entries each and C's rows of 4 entries, each summing 75 products: a
    // short row of C (covered by entry records) over a long row of A.
    std::vector<std::int32_t> long_ptr{0, 300, 600}, long_cols, b_ptr{0}, b_cols;
    std::vector<double> long_vals, b_vals;
    for (int i = 0; i < 600; ++i) {
        long_cols.push_back(i % 300);
        long_vals.push_back(1.0 + 0.01 * i);
    }
    for (int k = 0; k < 300; ++k) {
        b_cols.push_back(k % 4);
        b_vals.push_back(0.5 - 0.003 * k);
        b_ptr.push_back(k + 1);
    }
    const C long_rows(Executor::cpu(), 2, 300, long_ptr, long_cols, long_vals);
    const C b_short(Executor::cpu(), 300, 4, b_ptr, b_cols, b_vals);
    expect_recompute_matches(long_rows, b_short, {});
    const std::uint64_t seed = test::seed("cuda_spgemm_recompute_unsorted");
    const auto ua = test::shuffled_rows(test::random_csr<double, std::int32_t>(50, 70, 6.0, seed), seed + 1);
    const auto ub = test::shuffled_rows(test::random_csr<double, std::int32_t>(70, 130, 8.0, seed + 2), seed + 3);
    const auto umask = test::shuffled_rows(test::random_csr<double, std::int32_t>(50, 130, 30.0, seed + 4), seed + 5);
    expect_recompute_matches(ua, ub, {});
    expect_recompute_matches(ua, ub, {.semiring = Semiring::max_times}, &umask);
    expect_recompute_matches(ua, ub, {.semiring = Semiring::min_plus, .complement_mask = true, .sorted = false}, &umask);
}

// MANIFEST.tsv's expected (else computed) triangle count of a named square matrix; 0 if absent.
std::uint64_t manifest_triangles(const std::string& file) {
    std::ifstream in(test::matrix_dir() + "/MANIFEST.tsv");
    std::string line;
    std::vector<std::string> names;
    const auto split = [](const std::string& s) {
        std::vector<std::string> fields;
        std::stringstream ss(s);
        std::string f;
        while (std::getline(ss, f, '\t')) fields.push_back(f);
        return fields;
    };
    if (!std::getline(in, line)) return 0;
    names = split(line);
    const auto column = [&](const std::string& name) { return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin()); };
    while (std::getline(in, line)) {
        const auto f = split(line);
        if (f.empty() || f[0] != file) continue;
        const auto at = [&](std::size_t c) { return c < f.size() ? f[c] : std::string(); };
        const std::string expected = at(column("expected_triangles"));
        const std::string count = expected.empty() ? at(column("computed_triangles")) : expected.substr(0, expected.find(' '));
        return count.empty() ? 0 : std::stoull(count);
    }
    return 0;
}

TEST_F(CudaSpgemmFixed, TriangleCountsMatchCpu) {
    const Executor gpu = Executor::cuda(0);
    Coo<double, std::int32_t> k4{4, 4, {0, 0, 0, 1, 1, 2}, {1, 2, 3, 2, 3, 3}, std::vector<double>(6, 1.0)};
    EXPECT_EQ(triangle_count(gpu, coo_to_csr(k4).to(gpu).view()), 4u);
    const Csr<double, std::int32_t> empty(Executor::cpu(), 0, 0, std::vector<std::int32_t>{0}, {}, {});
    EXPECT_EQ(triangle_count(gpu, empty.to(gpu).view()), 0u);
    const std::uint64_t seed = test::seed("cuda_triangles_random");
    for (int round = 0; round < 3; ++round) {
        const index_t n = 200 + 300 * round;
        const auto g = test::random_csr<double, std::int64_t>(n, n, 3.0 + 4.0 * round, seed + static_cast<std::uint64_t>(round));
        EXPECT_EQ(triangle_count(gpu, g.to(gpu).view()), triangle_count(Executor::cpu(), g.view())) << "n " << n;
    }
    const auto rmat = generate_rmat<float, std::int32_t>(13, 16, 0.57, 0.19, 0.19, 0.05, seed);
    EXPECT_EQ(triangle_count(gpu, rmat.to(gpu).view()), triangle_count(Executor::cpu(), rmat.view()));
}

// What L is built from on the device: one triangle 0-1-2 given as (0,1) twice, (1,0), (2,1), (0,2),
// (2,0), self loops and a pendant edge, rows unsorted; a graph of self loops alone (no entry left
// for L); a pattern without values.
TEST_F(CudaSpgemmFixed, TriangleCountsOfRepeatsSelfLoopsAndUnsortedRows) {
    const Executor gpu = Executor::cuda(0);
    const Csr<float, std::int64_t> repeated(Executor::cpu(), 5, 5, std::vector<std::int64_t>{0, 4, 6, 9, 10, 10},
                                            {1, 2, 1, 0, 0, 1, 2, 1, 2, 4}, std::vector<float>(10, 1.0f), false);
    EXPECT_EQ(triangle_count(gpu, repeated.to(gpu).view()), 1u);
    const Csr<float, std::int32_t> loops(Executor::cpu(), 4, 4, std::vector<std::int32_t>{0, 1, 2, 2, 3}, {0, 1, 3},
                                         std::vector<float>(3, 1.0f));
    EXPECT_EQ(triangle_count(gpu, loops.to(gpu).view()), 0u);
    Coo<float, std::int32_t> k4{4, 4, {0, 0, 0, 1, 1, 2}, {1, 2, 3, 2, 3, 3}, std::vector<float>(6, 1.0f)};
    const auto k4_gpu = coo_to_csr(k4).to(gpu);
    CsrView<const float, std::int32_t> pattern_only = k4_gpu.view();
    pattern_only.values = nullptr;  // values are ignored
    EXPECT_EQ(triangle_count(gpu, pattern_only), 4u);
}

TEST_F(CudaSpgemmFixed, TriangleCountsOfSharedMatrices) {
    int checked = 0;
    for (const std::string name : {"karate.mtx", "jagmesh7.mtx", "bcsstk13.mtx.gz", "bcsstk16.mtx.gz"}) {
        const std::uint64_t expected = manifest_triangles(name);
        if (expected == 0) continue;
        const auto g = read_matrix_market<double, std::int32_t>(test::matrix_dir() + "/" + name);
        EXPECT_EQ(triangle_count(Executor::cuda(0), g.to(Executor::cuda(0)).view()), expected) << name;
        ++checked;
    }
    if (checked == 0) GTEST_SKIP() << "no MANIFEST.tsv counts in " << test::matrix_dir();
}

// A mask without entries keeps no product, and its complement every one (its column array on
// the device may be a null pointer).
TEST_F(CudaSpgemmFixed, EmptyMaskKeepsNoProduct) {
    using C = Csr<double, std::int32_t>;
    const std::uint64_t seed = test::seed("cuda_spgemm_empty_mask");
    const C empty_mask(Executor::cpu(), 300, 250, std::vector<std::int32_t>(301, 0), {}, {});
    // Rows of C in several bins of the general path, then short rows (at most 64 products).
    for (const auto& [a_per_row, b_per_row] : {std::pair{6.0, 40.0}, std::pair{3.0, 4.0}}) {
        SCOPED_TRACE(std::to_string(a_per_row) + " x " + std::to_string(b_per_row) + " entries a row");
        const auto a = test::random_csr<double, std::int32_t>(300, 200, a_per_row, seed);
        const auto b = test::random_csr<double, std::int32_t>(200, 250, b_per_row, seed + 1);
        for (const bool sorted : {true, false}) {
            expect_matches(a, b, {.sorted = sorted}, &empty_mask);
            expect_matches(a, b, {.complement_mask = true, .sorted = sorted}, &empty_mask);
        }
        const auto gpu = Executor::cuda(0);
        const auto c = spgemm(gpu, a.to(gpu).view(), b.to(gpu).view(), {}, std::optional(empty_mask.to(gpu).view()));
        EXPECT_EQ(c.nnz(), 0);
    }
}

}  // namespace
}  // namespace spk
