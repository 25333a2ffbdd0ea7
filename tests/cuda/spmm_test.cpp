// CUDA SpMM against the reference: every compiled kernel shape, every reduction, layouts, types,
// row bins, edge cases and the shared real matrices. Skips without a device.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "spk/generate.hpp"
#include "spk/io.hpp"
#include "support/test_support.hpp"
#include "tune/spmm_config.hpp"
#include "tune/tuning_cache.hpp"

namespace spk {
namespace {

class CudaSpmm : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
};

// One matrix with empty rows, short rows (0 to 2 per_row + 1 non-zeros) and one row holding a
// large share of the non-zeros.
template <class V, class I>
Csr<V, I> skewed_matrix(index_t rows, index_t cols, std::uint64_t seed, double per_row = 5.0) {
    auto base = test::random_csr<double, I>(rows, cols, per_row, seed);
    auto coo = csr_to_coo(base.view());
    Coo<V, I> out{rows, cols, {}, {}, {}};
    for (index_t p = 0; p < coo.nnz(); ++p) {
        out.row_idx.push_back(coo.row_idx[p]);
        out.col_idx.push_back(coo.col_idx[p]);
        out.values.push_back(value_cast<V>(coo.values[p]));
    }
    for (index_t j = 0; j < cols; j += 2) {  // the huge row
        out.row_idx.push_back(static_cast<I>(rows / 3));
        out.col_idx.push_back(static_cast<I>(j));
        out.values.push_back(value_cast<V>(0.25 + 0.001 * static_cast<double>(j % 7)));
    }
    return coo_to_csr(out);
}

struct Case {
    Reduce reduce = Reduce::sum;
    Layout b_layout = Layout::row_major, c_layout = Layout::row_major;
    double alpha = 1.0, beta = 0.0;
    bool transpose_a = false;
    std::string config = {};
    bool deterministic = false;
};

template <class V, class I>
void check(const Csr<V, I>& a_host, index_t n, const Case& cs, std::uint64_t seed) {
    const Executor gpu = Executor::cuda(0), ref = Executor::reference();
    const index_t k = cs.transpose_a ? a_host.rows() : a_host.cols();
    const index_t m = cs.transpose_a ? a_host.cols() : a_host.rows();
    const Dense<V> b_host = test::random_dense<V>(k, n, seed, cs.b_layout);
    const Dense<V> c0 = test::random_dense<V>(m, n, seed + 1, cs.c_layout);
    SpmmOptions opt{.reduce = cs.reduce,
                    .alpha = cs.alpha,
                    .beta = cs.beta,
                    .transpose_a = cs.transpose_a,
                    .deterministic = cs.deterministic,
                    .config = cs.config};
    const bool want_arg = cs.reduce == Reduce::max || cs.reduce == Reduce::min;

    Dense<V> c_ref = c0.to(Executor::cpu());
    Dense<I> arg_ref(Executor::cpu(), m, n);
    spmm(ref, a_host.view(), b_host.view(), c_ref.view(), opt, want_arg ? arg_ref.view() : DenseView<I>{});

    // Error bound per element: rounding scales with sum_j |A(i,j)| |B(j,k)|, not with the result,
    // which cancellation can make far smaller (the FEM matrices do).
    std::vector<double> scale(static_cast<std::size_t>(m * n), 1.0);
    if (cs.reduce == Reduce::sum || cs.reduce == Reduce::mean) {
        auto abs_a = a_host.to(Executor::cpu());
        for (auto& v : abs_a.values().span()) v = value_cast<V>(std::abs(value_cast<double>(v)));
        Dense<V> abs_b = b_host.to(Executor::cpu());
        for (auto& v : abs_b.values().span()) v = value_cast<V>(std::abs(value_cast<double>(v)));
        Dense<V> mag(Executor::cpu(), m, n);
        SpmmOptions abs_opt = opt;
        abs_opt.alpha = std::abs(cs.alpha);
        abs_opt.beta = 0.0;
        spmm(ref, abs_a.view(), abs_b.view(), mag.view(), abs_opt);
        const auto c0d = test::to_doubles(c0), magd = test::to_doubles(mag);
        for (std::size_t q = 0; q < scale.size(); ++q) scale[q] = std::max(1.0, magd[q] + std::abs(cs.beta * c0d[q]));
    }

    const auto a = a_host.to(gpu);
    const auto b = b_host.to(gpu);
    Dense<V> c = c0.to(gpu);
    Dense<I> arg(gpu, m, n);
    SpmmPlan<V, I> plan(gpu, a.view(), n, opt);
    plan.run(b.view(), c.view(), want_arg ? arg.view() : DenseView<I>{});
    const auto got = test::to_doubles(c.to(Executor::cpu())), want = test::to_doubles(c_ref);
    std::vector<double> got_scaled(got.size()), want_scaled(want.size());
    for (std::size_t q = 0; q < got.size(); ++q) {
        got_scaled[q] = got[q] / scale[q];
        want_scaled[q] = want[q] / scale[q];
    }
    EXPECT_TRUE(test::all_close(got_scaled, want_scaled, 0.0, test::rtol_for<V>(), n))
        << "config " << plan.config() << " n=" << n << " (errors relative to |A||B|)";
    if (want_arg) {
        EXPECT_EQ(arg.values().to_vector(), arg_ref.values().to_vector()) << "config " << plan.config();
    }
}

// The call (making a plan, say) must fail with InvalidArgument, its message naming `what`.
template <class Call>
void expect_refusal(Call call, const std::string& what) {
    try {
        call();
        FAIL() << "expected an error naming " << what;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
}

TEST_F(CudaSpmm, EveryCompiledShapeMatchesTheReference) {
    const std::uint64_t seed = test::seed("cuda_spmm_shapes");
    const auto a = skewed_matrix<float, std::int32_t>(301, 257, seed);
    for (const auto& shape : detail::compiled_rb_shapes())
        for (index_t n : {1, 4, 32, 33, 128})
            for (Reduce r : {Reduce::sum, Reduce::max}) {
                SCOPED_TRACE(detail::to_string(shape) + " n=" + std::to_string(n));
                check(a, n, Case{.reduce = r, .config = detail::to_string(shape)}, seed + static_cast<std::uint64_t>(n));
            }
}

// Sum launches too small to fill the device take the wide kernels (twice the B loads in flight a
// warp; rb_kernel.cuh), the others the narrow ones. The test above runs the wide sums (301 rows);
// this one the narrow sums, on a matrix where every shape's launch passes the wide kernels' limit
// (132 SMs x 32 warps on the H200; at n = 8 a one-lane group of 4 columns needs 67584 rows), and
// the one-launch split kernel's narrow instance.
TEST_F(CudaSpmm, EveryCompiledShapeOnAMatrixThatFillsTheDevice) {
    const std::uint64_t seed = test::seed("cuda_spmm_shapes_large");
    const auto a = skewed_matrix<float, std::int32_t>(100000, 3000, seed, 3.0);
    for (const auto& shape : detail::compiled_rb_shapes()) {
        SCOPED_TRACE(detail::to_string(shape));
        check(a, 8, Case{.config = detail::to_string(shape)}, seed);
    }
    check(a, 8, Case{.reduce = Reduce::mean, .alpha = 2.0, .beta = 0.5, .config = "rb.g8.r1.v4+rb.g32.r4.v4@64:split"}, seed);
}

TEST_F(CudaSpmm, LongRowBinMatchesTheReference) {
    const std::uint64_t seed = test::seed("cuda_spmm_bins");
    const auto a = skewed_matrix<float, std::int32_t>(2000, 700, seed);
    for (const char* config : {"rb.g8.r1.v4+rb.g32.r8.v4@16", "rb.g32.r1.v1+rb.g32.r32.v1@8", "rb.g1.r1.v4+rb.g32.r32.v4@4"})
        for (Reduce r : {Reduce::sum, Reduce::mean, Reduce::min}) check(a, 32, Case{.reduce = r, .config = config}, seed);
    // Long rows cut into chunks whose sums meet in C through atomic adds (beta scaling first).
    for (const char* config : {"rb.g8.r1.v4+rb.g32.r8.v4@16:split", "rb.g32.r1.v1+rb.g32.r32.v1@7:split"})
        for (Reduce r : {Reduce::sum, Reduce::mean}) {
            check(a, 32, Case{.reduce = r, .alpha = 2.0, .beta = 0.5, .config = config}, seed);
            check(convert_values<double>(a.view()), 64, Case{.reduce = r, .c_layout = Layout::col_major, .config = config}, seed);
        }
}

// Deterministic plans split long rows too: each chunk writes its part, and the parts of a row are
// added in chunk order, so two runs agree bit for bit.
TEST_F(CudaSpmm, DeterministicSplitMatchesTheReferenceAndRepeatsExactly) {
    const std::uint64_t seed = test::seed("cuda_spmm_deterministic_split");
    const auto a = skewed_matrix<float, std::int32_t>(3000, 900, seed);
    for (const char* config : {"rb.g8.r1.v4+rb.g32.r8.v4@16:split", "rb.g32.r1.v1+rb.g32.r32.v1@7:split"})
        for (Reduce r : {Reduce::sum, Reduce::mean}) {
            check(a, 32, Case{.reduce = r, .alpha = 2.0, .beta = 0.5, .config = config, .deterministic = true}, seed);
            check(convert_values<double>(a.view()), 33, Case{.reduce = r, .c_layout = Layout::col_major, .config = config, .deterministic = true},
                  seed);
        }
    check(a, 128, Case{.deterministic = true}, seed);  // the selector's choice, deterministic

    const Executor gpu = Executor::cuda(0);
    const auto a_gpu = a.to(gpu);
    const Dense<float> b = test::random_dense<float>(a.cols(), 64, seed + 7).to(gpu);
    SpmmPlan<float, std::int32_t> plan(gpu, a_gpu.view(), 64, SpmmOptions{.deterministic = true, .config = "rb.g16.r1.v4+rb.g32.r8.v4@8:split"});
    Dense<float> first(gpu, a.rows(), 64), second(gpu, a.rows(), 64);
    plan.run(b.view(), first.view());
    plan.run(b.view(), second.view());
    EXPECT_EQ(first.to(Executor::cpu()).values().to_vector(), second.to(Executor::cpu()).values().to_vector());
}

// Splits whose long shape is a full warp over the short rows' column tile run in one launch: short
// rows and pieces of long rows (8 chunks each), the pieces of a row meeting in partial sums that
// the row's last block adds. Rows of one piece and of many (the huge row: 350 non-zeros, 11 pieces
// of 32), two column tiles (n = 256, and n = 33 with unaligned B, where the v4 shapes turn scalar
// and still pair), the unaligned case where they no longer pair (the two-launch split, on the
// pieces), a matrix where most rows have several pieces, f64, int64, column-major C.
TEST_F(CudaSpmm, OneLaunchSplitMatchesTheReference) {
    const std::uint64_t seed = test::seed("cuda_spmm_one_launch_split");
    const auto a = skewed_matrix<float, std::int32_t>(2000, 700, seed);
    const auto dense_rows = test::random_csr<float, std::int32_t>(500, 300, 40.0, seed + 1);
    struct Split {
        const char* config;
        index_t n;
    };
    for (const Split sp : {Split{"rb.g16.r2.v4+rb.g32.r4.v4@4:split", 32}, Split{"rb.g1.r1.v4+rb.g32.r32.v4@7:split", 4},
                           Split{"rb.g32.r1.v4+rb.g32.r1.v4@4:split", 128}, Split{"rb.g32.r1.v4+rb.g32.r1.v4@4:split", 256},
                           Split{"rb.g32.r1.v4+rb.g32.r1.v4@4:split", 33}, Split{"rb.g16.r2.v4+rb.g32.r4.v4@4:split", 33},
                           Split{"rb.g4.r1.v1+rb.g32.r8.v1@5:split", 7}, Split{"rb.g8.r4.v4+rb.g32.r16.v4@6:split", 8}}) {
        SCOPED_TRACE(std::string(sp.config) + " n=" + std::to_string(sp.n));
        EXPECT_TRUE(detail::splits_in_one_launch(detail::parse_spmm_config(sp.config)));
        for (Reduce r : {Reduce::sum, Reduce::mean}) {
            check(a, sp.n, Case{.reduce = r, .alpha = 2.0, .beta = 0.5, .config = sp.config}, seed);
            check(dense_rows, sp.n, Case{.reduce = r, .alpha = -1.0, .beta = 1.0, .config = sp.config}, seed + 2);
        }
        check(a, sp.n, Case{.config = sp.config, .deterministic = true}, seed + 3);
    }
    const char* config = "rb.g16.r2.v4+rb.g32.r4.v4@4:split";
    check(convert_values<double>(a.view()), 32, Case{.reduce = Reduce::mean, .c_layout = Layout::col_major, .beta = -0.5, .config = config},
          seed);
    check(skewed_matrix<float, std::int64_t>(1500, 600, seed), 32, Case{.alpha = 0.5, .beta = 2.0, .config = config}, seed);
    check(skewed_matrix<double, std::int64_t>(1500, 600, seed), 64,
          Case{.reduce = Reduce::mean, .b_layout = Layout::col_major, .beta = 1.0, .config = "rb.g16.r1.v4+rb.g32.r2.v4@4:split"}, seed);
    check(skewed_matrix<float, std::int32_t>(300, 200, seed), 32, Case{.beta = 0.5, .transpose_a = true, .config = config}, seed);
}

// Calls queued back to back, each reading what the one before wrote (X_{k+1} = A X_k): the row
// kernels may start before the previous kernel ends (launch_after_previous) and must wait for its
// writes. Skewed rows take the one-launch split; a small n the wide kernels; 20000 rows the narrow.
TEST_F(CudaSpmm, ChainedCallsReadWhatThePreviousCallWrote) {
    const std::uint64_t seed = test::seed("cuda_spmm_chained_calls");
    const Executor gpu = Executor::cuda(0), ref = Executor::reference();
    constexpr int steps = 8;
    for (const index_t rows : {index_t{3000}, index_t{20000}}) {
        auto a_host = skewed_matrix<double, std::int32_t>(rows, rows, seed + static_cast<std::uint64_t>(rows), 6.0);
        for (auto& v : a_host.values().span()) v = 0.2 * std::abs(v);  // no cancellation: a tight tolerance holds
        for (const char* config : {"", "rb.g8.r1.v4", "rb.g16.r2.v4+rb.g32.r4.v4@16:split"}) {
            SCOPED_TRACE(std::string("rows ") + std::to_string(rows) + " config '" + config + "'");
            const index_t n = 32;
            std::vector<Dense<double>> x_ref;
            x_ref.push_back(test::random_dense<double>(rows, n, seed + 1));
            for (auto& v : x_ref[0].values().span()) v = std::abs(v);
            for (int k = 0; k < steps; ++k) {
                x_ref.emplace_back(Executor::cpu(), rows, n);
                spmm(ref, a_host.view(), x_ref[k].view(), x_ref[k + 1].view());
            }
            const auto a = a_host.to(gpu);
            std::vector<Dense<double>> x;
            x.push_back(x_ref[0].to(gpu));
            for (int k = 0; k < steps; ++k) x.emplace_back(gpu, rows, n);
            SpmmPlan<double, std::int32_t> plan(gpu, a.view(), n, SpmmOptions{.config = config});
            for (int k = 0; k < steps; ++k) plan.run(x[k].cview(), x[k + 1].view());
            for (int k = 1; k <= steps; ++k)
                EXPECT_TRUE(test::all_close(test::to_doubles(x[k].to(Executor::cpu())), test::to_doubles(x_ref[k]), 1e-9, 0.0, n))
                    << "step " << k << ", config " << plan.config();
        }
    }
}

// The pieces of a row meet through an arrival count that the row's last block sets back to zero:
// every run of a plan must find it there. Runs repeat bit for bit, as does a deterministic plan.
TEST_F(CudaSpmm, OneLaunchSplitRepeatsExactly) {
    const std::uint64_t seed = test::seed("cuda_spmm_one_launch_repeat");
    const auto a_host = test::random_csr<float, std::int32_t>(700, 400, 40.0, seed);
    const index_t n = 64;
    const Executor gpu = Executor::cuda(0), ref = Executor::reference();
    const Dense<float> b_host = test::random_dense<float>(a_host.cols(), n, seed + 1);
    const Dense<float> c0 = test::random_dense<float>(a_host.rows(), n, seed + 2);
    const SpmmOptions opt{.alpha = 1.5, .beta = 0.5, .config = "rb.g16.r1.v4+rb.g32.r2.v4@4:split"};
    Dense<float> want = c0.to(Executor::cpu());
    spmm(ref, a_host.view(), b_host.view(), want.view(), opt);

    const auto a = a_host.to(gpu);
    const auto b = b_host.to(gpu);
    SpmmPlan<float, std::int32_t> plan(gpu, a.view(), n, opt);
    SpmmOptions deterministic = opt;
    deterministic.deterministic = true;
    SpmmPlan<float, std::int32_t> plan_d(gpu, a.view(), n, deterministic);
    std::vector<float> first;
    for (int run = 0; run < 4; ++run) {
        Dense<float> c = c0.to(gpu);
        (run % 2 ? plan_d : plan).run(b.view(), c.view());
        const auto got = c.to(Executor::cpu()).values().to_vector();
        EXPECT_TRUE(test::all_close(test::to_doubles(c.to(Executor::cpu())), test::to_doubles(want), 1e-4, 1e-4, n)) << "run " << run;
        if (run == 0)
            first = got;
        else
            EXPECT_EQ(got, first) << "run " << run;
    }
}

// A plan's one-launch split keeps its partial sums and arrival counts across runs, and a plan may
// be run from several host threads at once: their launches go to the plan's stream one after the
// other, each writing and reading the partial sums within itself. Four threads run one plan (rows
// of several pieces, deterministic and not) into C's of their own, 8 times each, with no
// synchronisation between them; every result is the reference's. The two-launch split too.
TEST_F(CudaSpmm, OneLaunchSplitPlanRunsFromSeveralThreads) {
    const std::uint64_t seed = test::seed("cuda_spmm_one_launch_threads");
    const auto a_host = skewed_matrix<float, std::int32_t>(3000, 900, seed);
    const index_t n = 32;
    const Executor gpu = Executor::cuda(0), ref = Executor::reference();
    const auto a = a_host.to(gpu);
    // The one-launch split, and a split in two launches (the chunks' kernel, then, when
    // deterministic, combine_chunks over a workspace of the run's own).
    for (const char* config : {"rb.g16.r2.v4+rb.g32.r4.v4@8:split", "rb.g8.r1.v4+rb.g32.r8.v4@16:split"}) {
        for (const bool deterministic : {false, true}) {
            const SpmmOptions opt{.alpha = 2.0, .deterministic = deterministic, .config = config};
            const SpmmPlan<float, std::int32_t> plan(gpu, a.view(), n, opt);
            constexpr int threads = 4, runs = 8;
            std::vector<Dense<float>> b_host, want;
            std::vector<Dense<float>> b, c;
            for (int t = 0; t < threads; ++t) {
                b_host.push_back(test::random_dense<float>(a_host.cols(), n, seed + 1 + static_cast<std::uint64_t>(t)));
                want.emplace_back(Executor::cpu(), a_host.rows(), n);
                spmm(ref, a_host.view(), b_host.back().cview(), want.back().view(), opt);
                b.push_back(b_host.back().to(gpu));
                c.emplace_back(gpu, a_host.rows(), n);
            }
            (void)plan.config();  // completed before the threads start, as they would find it either way
            std::vector<std::thread> workers;
            for (int t = 0; t < threads; ++t)
                workers.emplace_back([&, t] {
                    for (int r = 0; r < runs; ++r) plan.run(b[static_cast<std::size_t>(t)].cview(), c[static_cast<std::size_t>(t)].view());
                });
            for (auto& w : workers) w.join();
            for (int t = 0; t < threads; ++t)
                EXPECT_TRUE(test::all_close(test::to_doubles(c[static_cast<std::size_t>(t)].to(Executor::cpu())),
                                            test::to_doubles(want[static_cast<std::size_t>(t)]), 1e-4, 1e-4, n))
                    << config << ", thread " << t << (deterministic ? ", deterministic" : "");
        }
    }
}

// The selector on a power-law matrix (the shape of soc-Slashdot0902: short rows and a tail of long
// ones): the one-launch split for sum and mean, the long-row bin for max and min, alpha and beta.
TEST_F(CudaSpmm, SelectorOnPowerLawRowsEveryReduction) {
    const std::uint64_t seed = test::seed("cuda_spmm_powerlaw");
    const auto a = generate_powerlaw<float, std::int32_t>(20000, 20000, 12.0, 2.1, seed);
    for (index_t n : {4, 32, 128}) {
        for (Reduce r : all_reduces) {
            SCOPED_TRACE(std::string(to_string(r)) + " n=" + std::to_string(n));
            check(a, n, Case{.reduce = r, .alpha = 1.5, .beta = 0.5}, seed + static_cast<std::uint64_t>(n));
        }
        const Executor gpu = Executor::cuda(0);
        const auto a_gpu = a.to(gpu);
        const SpmmPlan<float, std::int32_t> plan(gpu, a_gpu.view(), n);
        EXPECT_TRUE(detail::splits_in_one_launch(detail::parse_spmm_config(plan.config()))) << plan.config();
    }
}

// A matrix too small to fill the device at wide n (900 rows of up to 81, one of 600): the selector
// gives it groups of 16 lanes, all over the columns, so that n takes several column tiles, and
// splits the long row in the same launch. n = 128 and 512 (2 and 8 tiles), 100 (the last tile
// partly past n), 33 (scalar lanes); sum and mean with alpha and beta, max with its columns,
// deterministic, f64.
TEST_F(CudaSpmm, SelectorOnSmallMatrixAtWideN) {
    const std::uint64_t seed = test::seed("cuda_spmm_small_wide");
    const auto a = skewed_matrix<float, std::int32_t>(900, 1200, seed, 40.0);
    const Executor gpu = Executor::cuda(0);
    const auto a_gpu = a.to(gpu);
    for (index_t n : {33, 100, 128, 512}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const SpmmPlan<float, std::int32_t> plan(gpu, a_gpu.view(), n);
        const auto config = detail::parse_spmm_config(plan.config());
        EXPECT_EQ(config.shape.g, 16) << plan.config();
        EXPECT_EQ(config.shape.column_lanes(), 16) << plan.config();
        EXPECT_TRUE(detail::splits_in_one_launch(config)) << plan.config();
        for (Reduce r : {Reduce::sum, Reduce::mean, Reduce::max})
            check(a, n, Case{.reduce = r, .alpha = 1.5, .beta = 0.5}, seed + static_cast<std::uint64_t>(n));
        check(a, n, Case{.deterministic = true}, seed + 1);
    }
    check(convert_values<double>(a.view()), 128, Case{.reduce = Reduce::mean, .beta = -0.5}, seed + 2);
}

// A plan queues its analysis and returns without waiting; its first use (a run, its
// configuration) waits for the counts and completes it. Plans made back to back and left unused,
// a plan destroyed unused (its host slot goes back once the copy landed), and a first use from
// two threads at once must run as a plan of the same configuration does, bit for bit.
TEST_F(CudaSpmm, PlansCompleteOnFirstUse) {
    const std::uint64_t seed = test::seed("cuda_spmm_plan_first_use");
    const Executor gpu = Executor::cuda(0);
    const index_t n = 32;
    std::vector<Csr<float, std::int32_t>> hosts, as;
    hosts.push_back(generate_powerlaw<float, std::int32_t>(20000, 20000, 12.0, 2.1, seed));  // the selector splits its rows
    hosts.push_back(skewed_matrix<float, std::int32_t>(3000, 2000, seed));
    hosts.push_back(test::random_csr<float, std::int32_t>(5000, 4000, 8.0, seed));
    std::vector<Dense<float>> bs;
    for (const auto& host : hosts) {
        as.push_back(host.to(gpu));
        bs.push_back(test::random_dense<float>(host.cols(), n, seed + as.size()).to(gpu));
    }
    std::vector<SpmmPlan<float, std::int32_t>> plans;
    for (const auto& a : as) {
        { const SpmmPlan<float, std::int32_t> unused(gpu, a.view(), n); }
        plans.emplace_back(gpu, a.view(), n);
    }
    std::string seen[2];
    std::thread other([&] { seen[1] = plans[0].config(); });
    seen[0] = plans[0].config();
    other.join();
    EXPECT_EQ(seen[0], seen[1]);
    for (std::size_t q = plans.size(); q-- > 0;) {
        Dense<float> c(gpu, as[q].rows(), n);
        plans[q].run(bs[q].view(), c.view());
        const SpmmPlan<float, std::int32_t> at_once(gpu, as[q].view(), n, SpmmOptions{.config = plans[q].config()});
        EXPECT_EQ(at_once.config(), plans[q].config());
        Dense<float> c_at_once(gpu, as[q].rows(), n);
        at_once.run(bs[q].view(), c_at_once.view());
        EXPECT_EQ(c.to(Executor::cpu()).values().to_vector(), c_at_once.to(Executor::cpu()).values().to_vector()) << plans[q].config();
    }
}

// Edge-based kernels: chunks of non-zeros across row boundaries; rows inside a chunk stored,
// rows across chunks added atomically after their beta scaling, empty rows written by the
// preparation kernel. Chunks of 1, of a few non-zeros and longer than the matrix.
TEST_F(CudaSpmm, EdgeBasedShapesMatchTheReference) {
    const std::uint64_t seed = test::seed("cuda_spmm_edge_based");
    const auto a = skewed_matrix<float, std::int32_t>(700, 300, seed);
    for (const auto& s : detail::compiled_eb_shapes())
        for (index_t chunk : {1, 7, 64, 100000}) {
            const std::string config = detail::eb_shape_name(s) + "@" + std::to_string(chunk);
            SCOPED_TRACE(config);
            check(a, 32, Case{.alpha = 2.0, .beta = 0.5, .config = config}, seed);
            check(a, 5, Case{.reduce = Reduce::mean, .config = config}, seed + 1);
        }
    check(convert_values<double>(a.view()), 33, Case{.c_layout = Layout::col_major, .config = "eb.g8.v4@16"}, seed);
    check(skewed_matrix<float, std::int64_t>(300, 200, seed), 64, Case{.beta = 1.0, .config = "eb.g16.v4@32"}, seed);
    check(test::random_csr<float, std::int32_t>(0, 5, 1.0, seed), 8, Case{.config = "eb.g8.v4@16"}, seed);
    check(coo_to_csr(Coo<float, std::int32_t>{50, 40, {}, {}, {}}), 8, Case{.beta = 0.5, .config = "eb.g8.v4@16"}, seed);  // no non-zeros
    // EB+PR: a chunk that is not a multiple of the group, rows crossing steps and chunks, n past one vector.
    check(skewed_matrix<double, std::int64_t>(400, 150, seed), 9, Case{.beta = -1.0, .config = "eb.g32.r32.v4@50"}, seed);
    check(a, 1, Case{.alpha = -1.5, .config = "eb.g8.r8.v1@8"}, seed);
    check(test::random_csr<float, std::int32_t>(0, 5, 1.0, seed), 8, Case{.config = "eb.g32.r32.v4@64"}, seed);

    const Executor gpu = Executor::cuda(0);
    const auto a_gpu = a.to(gpu);
    for (SpmmOptions opt : {SpmmOptions{.reduce = Reduce::max, .config = "eb.g8.v4@64"},
                            SpmmOptions{.deterministic = true, .config = "eb.g8.v4@64"}})
        expect_refusal([&] { SpmmPlan<float, std::int32_t>(gpu, a_gpu.view(), 32, opt); }, "edge-based");
}

// One row holding `long_row` non-zeros (it spans several blocks of any merge-path shape) among runs of
// empty rows and short rows, as a power-law graph's.
template <class V, class I>
Csr<V, I> rows_across_warps(index_t rows, index_t cols, index_t long_row, std::uint64_t seed) {
    Coo<V, I> out{rows, cols, {}, {}, {}};
    std::uint64_t state = seed;
    const auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
    for (index_t i = 0; i < rows; ++i) {
        const index_t length = i == rows / 2 ? long_row : (i % 7 < 3 ? 0 : static_cast<index_t>(next() >> 60));
        for (index_t p = 0; p < length; ++p) {
            out.row_idx.push_back(static_cast<I>(i));
            out.col_idx.push_back(static_cast<I>(i == rows / 2 ? p % cols : static_cast<index_t>(next() >> 33) % cols));
            out.values.push_back(value_cast<V>(0.5 + static_cast<double>(next() >> 40) / static_cast<double>(1ull << 24)));
        }
    }
    return coo_to_csr(out, Duplicates::sum);
}

// Merge-path kernels: runs of items across row boundaries, rows across lanes (the warp's scan),
// warps (shared memory) and blocks (slots and arrivals, the last block writing the row), empty rows, column tiles with a
// partial last tile, alpha, beta, mean, a second run of the same plan (the arrivals reset), and
// the same bits every run.
TEST_F(CudaSpmm, MergePathShapesMatchTheReference) {
    const std::uint64_t seed = test::seed("cuda_spmm_merge_path");
    const auto skewed = skewed_matrix<float, std::int32_t>(700, 300, seed);
    const auto spanning = rows_across_warps<float, std::int32_t>(900, 400, 5000, seed);
    for (const auto& [vec, e] : detail::compiled_mp_shapes()) {
        const std::string config = "mp.v" + std::to_string(vec) + ".e" + std::to_string(e);
        SCOPED_TRACE(config);
        check(skewed, 4, Case{.alpha = 2.0, .beta = 0.5, .config = config}, seed);
        check(skewed, 5, Case{.reduce = Reduce::mean, .config = config}, seed + 1);
        check(spanning, 8, Case{.beta = 1.0, .config = config}, seed + 2);
        check(spanning, 1, Case{.reduce = Reduce::mean, .alpha = -1.5, .config = config}, seed + 3);
    }
    check(convert_values<double>(spanning.view()), 6, Case{.c_layout = Layout::col_major, .config = "mp.v2.e8"}, seed);
    check(rows_across_warps<double, std::int64_t>(300, 200, 3000, seed), 4, Case{.beta = -1.0, .config = "mp.v4.e4"}, seed);
    check(rows_across_warps<float, std::int32_t>(30000, 5000, 40000, seed), 4, Case{.config = "mp.v4.e4"}, seed);  // many blocks
    check(skewed_matrix<float, std::int64_t>(300, 200, seed), 3, Case{.b_layout = Layout::col_major, .config = "mp.v4.e8"}, seed);
    check(test::random_csr<float, std::int32_t>(0, 5, 1.0, seed), 4, Case{.config = "mp.v4.e8"}, seed);
    check(coo_to_csr(Coo<float, std::int32_t>{50, 40, {}, {}, {}}), 4, Case{.beta = 0.5, .config = "mp.v4.e8"}, seed);  // no non-zeros
    check(skewed, 4, Case{.transpose_a = true, .config = "mp.v4.e8"}, seed);

    // Runs of one plan: equal bits (the parts meet in a fixed order), also after the arrivals reset.
    const Executor gpu = Executor::cuda(0);
    const auto a = spanning.to(gpu);
    const auto b = test::random_dense<float>(a.cols(), 4, seed).to(gpu);
    for (bool deterministic : {false, true}) {
        const SpmmPlan<float, std::int32_t> plan(gpu, a.view(), 4, SpmmOptions{.deterministic = deterministic, .config = "mp.v4.e4"});
        EXPECT_EQ(plan.config(), "mp.v4.e4");
        Dense<float> first(gpu, a.rows(), 4), again(gpu, a.rows(), 4);
        plan.run(b.view(), first.view());
        for (int run = 0; run < 3; ++run) plan.run(b.view(), again.view());
        EXPECT_EQ(first.to(Executor::cpu()).values().to_vector(), again.to(Executor::cpu()).values().to_vector());
    }
    for (SpmmOptions opt : {SpmmOptions{.reduce = Reduce::max, .config = "mp.v4.e8"}, SpmmOptions{.config = "mp.v4.e5"}})
        expect_refusal([&] { SpmmPlan<float, std::int32_t>(gpu, a.view(), 4, opt); }, "merge-path");
}

TEST_F(CudaSpmm, SplitRowsRefuseWhatTheyCannotSum) {
    const Executor gpu = Executor::cuda(0);
    const auto a = skewed_matrix<float, std::int32_t>(100, 100, 3).to(gpu);
    const auto a16 = skewed_matrix<f16, std::int32_t>(100, 100, 3).to(gpu);
    const std::string config = "rb.g8.r1.v4+rb.g32.r8.v4@16:split";
    expect_refusal([&] { SpmmPlan<float, std::int32_t>(gpu, a.view(), 32, SpmmOptions{.reduce = Reduce::max, .config = config}); },
                   "split long rows");
    expect_refusal([&] { SpmmPlan<f16, std::int32_t>(gpu, a16.view(), 32, SpmmOptions{.config = config}); }, "split long rows");
}

TEST_F(CudaSpmm, SelectorOnEveryReductionAndLayout) {
    const std::uint64_t seed = test::seed("cuda_spmm_layouts");
    const auto a = skewed_matrix<double, std::int32_t>(513, 300, seed);
    for (Reduce r : {Reduce::sum, Reduce::mean, Reduce::max, Reduce::min})
        for (Layout lb : {Layout::row_major, Layout::col_major})
            for (Layout lc : {Layout::row_major, Layout::col_major})
                for (index_t n : {3, 64}) check(a, n, Case{.reduce = r, .b_layout = lb, .c_layout = lc, .alpha = 1.5, .beta = 0.5}, seed);
}

TEST_F(CudaSpmm, TransposedA) {
    const std::uint64_t seed = test::seed("cuda_spmm_transpose");
    check(skewed_matrix<float, std::int64_t>(200, 333, seed), 17, Case{.transpose_a = true}, seed);
}

TEST_F(CudaSpmm, HalfPrecisionAndInt64) {
    const std::uint64_t seed = test::seed("cuda_spmm_types");
    check(skewed_matrix<f16, std::int32_t>(400, 300, seed), 64, Case{}, seed);
    check(skewed_matrix<bf16, std::int64_t>(400, 300, seed), 128, Case{.reduce = Reduce::max}, seed);
    check(skewed_matrix<float, std::int64_t>(400, 300, seed), 32, Case{.reduce = Reduce::mean}, seed);
    check(skewed_matrix<double, std::int64_t>(400, 300, seed), 4, Case{}, seed);
}

TEST_F(CudaSpmm, EmptyShapes) {
    const Executor gpu = Executor::cuda(0);
    const Csr<float, std::int32_t> empty(Executor::cpu(), 0, 0, std::vector<std::int32_t>{0}, {}, {});
    const auto a = empty.to(gpu);
    Dense<float> b(gpu, 0, 8), c(gpu, 0, 8);
    spmm(gpu, a.view(), b.view(), c.view());
    const Csr<float, std::int32_t> no_entries(Executor::cpu(), 5, 4, std::vector<std::int32_t>(6, 0), {}, {});
    check(no_entries, 8, Case{}, 1);
    check(no_entries, 8, Case{.reduce = Reduce::max}, 2);
}

TEST_F(CudaSpmm, SharedRealMatrices) {
    const std::uint64_t seed = test::seed("cuda_spmm_real");
    const auto files = test::shared_matrix_files();
    if (files.empty()) GTEST_SKIP() << "no shared matrices at " << test::matrix_dir();
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        const auto a = read_matrix_market<float, std::int32_t>(f);
        check(a, 32, Case{}, seed);
    }
}

TEST_F(CudaSpmm, HostOperandIsAnErrorNamingIt) {
    const Executor gpu = Executor::cuda(0);
    const auto a = test::random_csr<float, std::int32_t>(10, 10, 2.0, 1).to(gpu);
    Dense<float> b_host = test::random_dense<float>(10, 4, 2);
    Dense<float> c(gpu, 10, 4);
    expect_refusal([&] { spmm(gpu, a.view(), b_host.view(), c.view()); }, "B: lives in host memory");
}

// The row kernels gather B's rows by a 32-bit byte stride: a wider one is refused, naming B.
TEST_F(CudaSpmm, BRowStridesPastTwoGibibytesAreRefused) {
    const Executor gpu = Executor::cuda(0), host = Executor::cpu();
    const auto a = Csr<float, std::int32_t>(host, 1, 1, {0, 1}, {0}, {1.5f}).to(gpu);
    const Dense<float> b = Dense<float>(host, 1, 4, {1.f, 2.f, 3.f, 4.f}).to(gpu);
    Dense<float> c(gpu, 1, 4);
    const DenseView<const float> b_wide{b.view().data, 1, 4, index_t{1} << 29, Layout::row_major, b.view().space};
    try {
        spmm(gpu, a.view(), b_wide, c.view());
        ADD_FAILURE() << "a 2 GiB row stride was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("b's rows are 2147483648 bytes apart"), std::string::npos) << e.what();
    }
    spmm(gpu, a.view(), b.view(), c.view());  // the same product with B's own stride
    EXPECT_EQ(test::to_doubles(c), (std::vector<double>{1.5, 3.0, 4.5, 6.0}));
}

TEST_F(CudaSpmm, MeasureRecordsTheWinnerAndCacheReusesIt) {
    const std::string path = std::filesystem::temp_directory_path() / ("spk-cuda-tuning-" + std::to_string(::getpid()) + ".json");
    std::filesystem::remove(path);
    ::setenv("SPK_TUNING_CACHE", path.c_str(), 1);
    const std::uint64_t seed = test::seed("cuda_spmm_tune");
    const auto a_host = skewed_matrix<float, std::int32_t>(3000, 2000, seed);
    const Executor gpu = Executor::cuda(0);
    const auto a = a_host.to(gpu);
    const SpmmPlan<float, std::int32_t> measured(gpu, a.view(), 32, SpmmOptions{.tune = Tune::measure});
    const detail::TuningCache cache(path);
    EXPECT_EQ(cache.size(), 1u);
    const SpmmPlan<float, std::int32_t> cached(gpu, a.view(), 32, SpmmOptions{.tune = Tune::cache});
    EXPECT_EQ(cached.config(), measured.config());
    check(a_host, 32, Case{.config = measured.config()}, seed);
    ::unsetenv("SPK_TUNING_CACHE");
    std::filesystem::remove(path);
}

TEST(SpmmConfig, ParsesPrintsAndRejects) {
    const auto c = detail::parse_spmm_config("rb.g8.r1.v4+rb.g32.r8.v4@300");
    EXPECT_EQ(detail::to_string(c), "rb.g8.r1.v4+rb.g32.r8.v4@300");
    const auto split = detail::parse_spmm_config("rb.g8.r1.v4+rb.g32.r8.v4@256:split");
    EXPECT_TRUE(split.split_long);
    EXPECT_EQ(detail::to_string(split), "rb.g8.r1.v4+rb.g32.r8.v4@256:split");
    const auto eb = detail::parse_spmm_config("eb.g8.v4@256");
    EXPECT_TRUE(eb.edge_based);
    EXPECT_EQ(eb.chunk, 256);
    EXPECT_EQ(eb.shape, (detail::RbShape{8, 1, 4}));
    EXPECT_EQ(detail::to_string(eb), "eb.g8.v4@256");
    const auto pr = detail::parse_spmm_config("eb.g32.r32.v4@256");
    EXPECT_EQ(pr.shape, (detail::RbShape{32, 32, 4}));
    EXPECT_EQ(detail::to_string(pr), "eb.g32.r32.v4@256");
    EXPECT_EQ(detail::to_string(detail::parse_spmm_config("eb.g8.r1.v4@64")), "eb.g8.v4@64");  // r1 is the default
    for (const auto& s : detail::compiled_eb_shapes()) {
        const std::string text = detail::eb_shape_name(s) + "@7";
        EXPECT_EQ(detail::to_string(detail::parse_spmm_config(text)), text);
    }
    const auto mp = detail::parse_spmm_config("mp.v4.e8");
    EXPECT_TRUE(mp.merge_path);
    EXPECT_FALSE(mp.edge_based);
    EXPECT_EQ(mp.chunk, 8);
    EXPECT_EQ(mp.shape.vec, 4);
    EXPECT_FALSE(detail::splits_in_one_launch(mp));
    for (const auto& [vec, e] : detail::compiled_mp_shapes()) {
        const std::string text = "mp.v" + std::to_string(vec) + ".e" + std::to_string(e);
        EXPECT_EQ(detail::to_string(detail::parse_spmm_config(text)), text);
    }
    for (const char* bad : {"mp.v4", "mp.v3.e8", "mp.v4.e5", "mp.e8.v4", "mp.v4.e8.x", "mp.v4.e8@64",
                            "rb.g8.r1", "rb.g3.r1.v1", "eb.g8.r1.v4", "rb.g8.r1.v4+rb.g32.r8.v4", "rb.g8.r1.v4+rb.g32.r8.v4@x",
                            "rb.g8.r1.v4+rb.g16.r4.v4@64:split", "eb.g8.v4", "eb.g8.v4@0", "eb.g3.v4@64", "eb.g8.v2@64", "eb.g8@64", "eb.g8.r4.v4@64",
                            "eb.g8.r8.v4.x1@64"}) {
        try {
            (void)detail::parse_spmm_config(bad);
            FAIL() << bad;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
            EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
        }
    }
}

TEST(SpmmConfig, SelectorPicksCompiledShapesThatFitN) {
    for (index_t n : {1, 2, 3, 4, 8, 17, 32, 64, 100, 128, 512, 1024})
        for (double mean : {0.5, 3.0, 16.0, 200.0}) {
            detail::SpmmFeatures f;
            f.rows = 1000;
            f.nnz = static_cast<index_t>(mean * 1000);
            f.n = n;
            f.max_row = static_cast<index_t>(mean * 50);
            f.log2_histogram[12] = 1;
            const auto c = detail::select_spmm_config(f);
            EXPECT_TRUE(detail::is_compiled(c.shape)) << detail::to_string(c);
            EXPECT_EQ(n % c.shape.vec, 0) << detail::to_string(c);
            EXPECT_LE(c.shape.tile(), std::max<index_t>(32, 4 * n)) << detail::to_string(c);
            if (c.long_shape) {
                EXPECT_TRUE(detail::is_compiled(*c.long_shape));
            }
            EXPECT_NO_THROW((void)detail::parse_spmm_config(detail::to_string(c)));
        }
}

// Every compiled shape pairs with a compiled full-warp shape over the same column tile, so any
// short shape can split long rows in its own launch; the selector's splits always do.
TEST(SpmmConfig, SplitsRunInOneLaunchWhereTheShapesPair) {
    for (const auto& s : detail::compiled_rb_shapes()) {
        const auto partner = detail::one_launch_long_shape(s);
        EXPECT_TRUE(detail::is_compiled(partner)) << detail::to_string(s) << " -> " << detail::to_string(partner);
        EXPECT_EQ(partner.g, 32);
        EXPECT_EQ(partner.tile(), s.tile()) << detail::to_string(s);
    }
    detail::SpmmFeatures f;  // soc-Slashdot0902
    f.rows = f.cols = 82168;
    f.nnz = 948464;
    f.max_row = 2511;
    f.log2_histogram[12] = 4;
    f.log2_histogram[8] = 2000;
    f.split_allowed = true;
    for (index_t n : {4, 32, 33, 128, 512}) {  // n = 1 runs the merge path (SelectorTakesTheMergePathForPowerLawSpmv)
        f.n = n;
        const auto c = detail::select_spmm_config(f);
        EXPECT_TRUE(c.split_long) << detail::to_string(c);
        EXPECT_TRUE(detail::splits_in_one_launch(c)) << detail::to_string(c);
    }
    for (const auto& candidate : detail::spmm_candidates(f)) {  // the tuner measures one-launch splits too
        if (candidate.split_long) {
            EXPECT_TRUE(detail::splits_in_one_launch(candidate)) << detail::to_string(candidate);
        }
    }
    EXPECT_TRUE(detail::splits_in_one_launch(detail::parse_spmm_config("rb.g16.r2.v4+rb.g32.r4.v4@64:split")));
    EXPECT_FALSE(detail::splits_in_one_launch(detail::parse_spmm_config("rb.g16.r2.v4+rb.g32.r4.v4@64")));
    EXPECT_FALSE(detail::splits_in_one_launch(detail::parse_spmm_config("rb.g8.r1.v4+rb.g32.r8.v4@16:split")));
    EXPECT_FALSE(detail::splits_in_one_launch(detail::parse_spmm_config("rb.g32.r1.v1+rb.g32.r32.v1@7:split")));
}

// The rules the H200 measurements set (bench/results/h200-spmm.md): at n = 32, eight column lanes
// of four floats; rows of even length whole on one lane, skewed rows split over two.
TEST(SpmmConfig, SelectorSplitsRowsOnlyWhenLengthsAreSkewed) {
    detail::SpmmFeatures f;
    f.rows = 1000000;
    f.cols = 1000000;
    f.nnz = 16 * f.rows;
    f.n = 32;
    f.max_row = 32;
    f.log2_histogram[5] = f.rows;
    const auto even = detail::select_spmm_config(f);
    EXPECT_EQ(even.shape, (detail::RbShape{8, 1, 4})) << detail::to_string(even);
    EXPECT_FALSE(even.long_shape);

    f.max_row = 2500;
    f.log2_histogram[12] = 10;
    const auto skewed = detail::select_spmm_config(f);
    EXPECT_EQ(skewed.shape, (detail::RbShape{16, 2, 4})) << detail::to_string(skewed);

    f.n = 128;
    EXPECT_EQ(detail::select_spmm_config(f).shape, (detail::RbShape{32, 1, 4}));
}

// A small matrix at n = 32 takes groups of 16 lanes, 8 on the columns and r = 2 (bcsstk13's
// shape: 2003 rows, 42 a row, 95 at most); a million such rows fill the device, a row a lane
// group. At n = 4 a row takes a lane for about two of its longest short row's non-zeros, up to a
// warp (Erdos971's shape: 472 rows, 5.6 a row, 41 at most); with many rows, fewer lanes
// (soc-Slashdot0902's 78441 non-empty rows: 4). Empty rows do not count (p2p-Gnutella08: 6301
// rows, 3836 empty, at n = 128: groups of 16 lanes, two column tiles).
TEST(SpmmConfig, SelectorSpreadsRowsOfSmallMatrices) {
    detail::SpmmFeatures f;
    f.rows = 2003;
    f.cols = 2003;
    f.nnz = 83883;
    f.n = 32;
    f.max_row = 95;
    f.log2_histogram[6] = f.rows;
    EXPECT_EQ(detail::select_spmm_config(f).shape, (detail::RbShape{16, 2, 4})) << detail::to_string(detail::select_spmm_config(f));

    f.rows = f.cols = 1000000;
    f.nnz = 42 * f.rows;
    EXPECT_EQ(detail::select_spmm_config(f).shape, (detail::RbShape{8, 1, 4}));

    f.rows = f.cols = 472;
    f.nnz = 2628;
    f.n = 4;
    f.max_row = 41;
    f.log2_histogram = {};
    f.log2_histogram[3] = f.rows;
    EXPECT_EQ(detail::select_spmm_config(f).shape, (detail::RbShape{32, 32, 4})) << detail::to_string(detail::select_spmm_config(f));

    f.rows = f.cols = 82168;
    f.nnz = 948464;
    f.max_row = 2511;
    f.log2_histogram = {};
    f.log2_histogram[0] = 3727;
    f.log2_histogram[4] = f.rows - 3727 - 4;
    f.log2_histogram[12] = 4;
    EXPECT_EQ(detail::select_spmm_config(f).shape, (detail::RbShape{4, 4, 4})) << detail::to_string(detail::select_spmm_config(f));

    f.rows = f.cols = 6301;
    f.nnz = 20777;
    f.max_row = 48;
    f.n = 128;
    f.log2_histogram = {};
    f.log2_histogram[0] = 3836;
    f.log2_histogram[4] = f.rows - 3836;
    EXPECT_EQ(detail::select_spmm_config(f).shape, (detail::RbShape{16, 1, 4})) << detail::to_string(detail::select_spmm_config(f));
}

// The features of a matrix whose rows all have `per_row` non-zeros but one of `max_row`.
detail::SpmmFeatures one_long_row(index_t rows, index_t per_row, index_t max_row, index_t n, int value_bytes = 4) {
    detail::SpmmFeatures f;
    f.rows = f.cols = rows;
    f.nnz = per_row * (rows - 1) + max_row;
    f.n = n;
    f.max_row = max_row;
    f.log2_histogram[static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(per_row)))] = rows - 1;
    f.log2_histogram[static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(max_row)))] += 1;
    f.value_bytes = value_bytes;
    f.split_allowed = value_bytes >= 4;
    return f;
}

// At n >= 32 a small matrix takes groups of 16 lanes, two rows a warp, the columns on up to 16
// of them and the grid covering n in more column tiles. Small: rows that do not fill the device
// (bcsstk13's shape: 2003 rows, 42 a row, 95 at most, up to n = 512, where 2003 rows x 128 lanes
// fill it), or fewer than 32768 rows of under 16 a row on average.
TEST(SpmmConfig, SelectorGivesSmallMatricesSixteenLaneGroups) {
    const auto shape_at = [](const detail::SpmmFeatures& f) {
        const auto c = detail::select_spmm_config(f);
        EXPECT_TRUE(detail::is_compiled(c.shape)) << detail::to_string(c);
        return c.shape;
    };
    EXPECT_EQ(shape_at(one_long_row(2003, 42, 95, 128)), (detail::RbShape{16, 1, 4}));
    EXPECT_EQ(shape_at(one_long_row(2003, 42, 95, 64)), (detail::RbShape{16, 1, 4}));
    EXPECT_EQ(shape_at(one_long_row(2003, 42, 95, 32)), (detail::RbShape{16, 2, 4}));  // 8 column lanes
    EXPECT_EQ(shape_at(one_long_row(2003, 42, 95, 512)), (detail::RbShape{32, 1, 4}));
    EXPECT_EQ(shape_at(one_long_row(2003, 42, 95, 128, 8)), (detail::RbShape{16, 1, 2}));  // f64: two a lane
    EXPECT_EQ(shape_at(one_long_row(2003, 42, 95, 100)), (detail::RbShape{16, 1, 4}));     // 2 tiles, the last one 36 wide
    EXPECT_EQ(shape_at(one_long_row(2003, 42, 95, 33)), (detail::RbShape{16, 1, 1}));      // odd n: scalar lanes
    EXPECT_EQ(shape_at(one_long_row(2003, 42, 95, 7)), (detail::RbShape{8, 1, 1}));        // 8 scalar column lanes: no r = 2 shape
    EXPECT_EQ(shape_at(one_long_row(472, 5, 41, 512)), (detail::RbShape{16, 1, 4}));
    // At n = 4, rows of at most 7 stay on one lane (minnesota's shape: 2642 rows of up to 5).
    EXPECT_EQ(shape_at(one_long_row(2642, 2, 5, 4)), (detail::RbShape{1, 1, 4}));
    // 20000 rows of 8 fill the device with 32-lane groups but stay small; 100000 do not (at n = 512:
    // at n = 128 large matrices of even rows take 16 lanes too, SelectorGivesLargeEvenMatricesTwoTilesAt128).
    EXPECT_EQ(shape_at(one_long_row(20000, 8, 12, 512)), (detail::RbShape{16, 1, 4}));
    EXPECT_EQ(shape_at(one_long_row(100000, 8, 12, 512)), (detail::RbShape{32, 1, 4}));
    // A million rows of 42 fill the device.
    EXPECT_EQ(shape_at(one_long_row(1000000, 42, 95, 512)), (detail::RbShape{32, 1, 4}));

    // Long rows still split in the short rows' launch, on the same column tile (chameleon's
    // shape: 2277 rows, 16 a row, rows past 64 split).
    const auto c = detail::select_spmm_config(one_long_row(2277, 16, 2000, 128));
    EXPECT_EQ(c.shape, (detail::RbShape{16, 1, 4})) << detail::to_string(c);
    EXPECT_TRUE(detail::splits_in_one_launch(c)) << detail::to_string(c);
}

// At n = 1 a power-law graph of short mean rows runs the merge path (R-MAT 20's shape: a million
// rows of 16 on average; email-Enron's: 36692 rows of 10, 1383 at most), even rows and long mean
// rows (squirrel's 42) the row kernels, as do other widths, f16 and max.
TEST(SpmmConfig, SelectorTakesTheMergePathForPowerLawSpmv) {
    EXPECT_EQ(detail::to_string(detail::select_spmm_config(one_long_row(1000000, 16, 40000, 1))), "mp.v1.e4");
    EXPECT_EQ(detail::to_string(detail::select_spmm_config(one_long_row(36692, 10, 1383, 1))), "mp.v1.e4");
    EXPECT_EQ(detail::to_string(detail::select_spmm_config(one_long_row(36692, 10, 1383, 1, 8))), "mp.v1.e4");  // f64
    for (const auto& f : {one_long_row(5201, 42, 1900, 1), one_long_row(1000000, 16, 16, 1), one_long_row(36692, 10, 1383, 4),
                          one_long_row(36692, 10, 1383, 1, 2), one_long_row(2000, 10, 1383, 1)})
        EXPECT_FALSE(detail::select_spmm_config(f).merge_path) << detail::to_string(detail::select_spmm_config(f));
    auto max = one_long_row(36692, 10, 1383, 1);
    max.split_allowed = false;  // max and min reductions
    EXPECT_FALSE(detail::select_spmm_config(max).merge_path);
}

// At n = 128 to 511 a small power-law graph splits rows past 32 non-zeros (squirrel's shape: 5201
// rows, 38 a row, 1900 at most), where other n keep four times the mean; rows of even length (a FEM
// matrix: bcsstk33's 8738 rows, 67 a row, 141 at most) take no long bin, and neither do large
// matrices, nor sums that cannot split (f16).
TEST(SpmmConfig, SelectorSplitsSkewedSmallMatricesPast32AtWideN) {
    const auto squirrel = one_long_row(5201, 38, 1900, 128);
    const auto wide = detail::select_spmm_config(squirrel);
    EXPECT_TRUE(wide.split_long) << detail::to_string(wide);
    EXPECT_EQ(wide.long_threshold, 32) << detail::to_string(wide);
    EXPECT_TRUE(detail::splits_in_one_launch(wide)) << detail::to_string(wide);
    EXPECT_EQ(detail::long_row_threshold(squirrel), 32);  // the analysis cuts where the selector does

    const auto four_means = static_cast<index_t>(4 * squirrel.mean_row());
    EXPECT_EQ(detail::select_spmm_config(one_long_row(5201, 38, 1900, 512)).long_threshold, four_means);  // measured: no gain at 512
    const auto narrow = detail::select_spmm_config(one_long_row(5201, 38, 1900, 32));
    EXPECT_EQ(narrow.long_threshold, four_means) << detail::to_string(narrow);
    const auto half = one_long_row(5201, 38, 1900, 128, 2);  // f16: no split
    EXPECT_EQ(detail::long_row_threshold(half), four_means);
    EXPECT_FALSE(detail::select_spmm_config(half).split_long);

    EXPECT_FALSE(detail::select_spmm_config(one_long_row(8738, 67, 141, 128)).long_shape);
    const auto large = detail::select_spmm_config(one_long_row(1000000, 16, 2500, 128));
    EXPECT_EQ(large.long_threshold, 256) << detail::to_string(large);
}

// A matrix that fills the device at n = 128 in f32 with even rows (Laplace 128^3's shape: 2.1M
// rows of 7) takes two column tiles of 16 lanes; skewed rows (R-MAT's), other widths and f64 keep
// one tile of 32.
TEST(SpmmConfig, SelectorGivesLargeEvenMatricesTwoTilesAt128) {
    const auto laplace = one_long_row(2097152, 7, 7, 128);
    EXPECT_EQ(detail::select_spmm_config(laplace).shape, (detail::RbShape{16, 1, 4})) << detail::to_string(detail::select_spmm_config(laplace));
    EXPECT_FALSE(detail::select_spmm_config(laplace).long_shape);
    EXPECT_EQ(detail::select_spmm_config(one_long_row(192000, 77, 81, 128)).shape, (detail::RbShape{16, 1, 4}));  // elasticity 40
    const auto rmat = detail::select_spmm_config(one_long_row(1048576, 16, 60000, 128));
    EXPECT_EQ(rmat.shape, (detail::RbShape{32, 1, 4})) << detail::to_string(rmat);
    EXPECT_EQ(detail::select_spmm_config(one_long_row(2097152, 7, 7, 256)).shape, (detail::RbShape{32, 1, 4}));
    EXPECT_EQ(detail::select_spmm_config(one_long_row(2097152, 7, 7, 64)).shape, (detail::RbShape{16, 1, 4}));  // 16 column lanes cover n
    const auto f64 = detail::select_spmm_config(one_long_row(2097152, 7, 7, 128, 8));
    EXPECT_EQ(f64.shape.column_lanes(), 32) << detail::to_string(f64);
}

// Whatever the selector picks, for any n from 1 to 1024 and every value size, is a configuration
// the parser reads back and the kernels launch: a compiled shape whose vector divides n and
// loads at most 16 bytes, a column grid within CUDA's 65535, split long rows on a 32-lane shape
// over the short rows' tile (one launch), and no split where the sum cannot take one.
TEST(SpmmConfig, SelectorConfigsParseAndLaunchForEveryN) {
    for (const int value_bytes : {2, 4, 8})
        for (const auto& [rows, per_row, max_row] : std::vector<std::array<index_t, 3>>{
                 {34, 4, 17}, {472, 5, 41}, {2003, 42, 95}, {2277, 16, 2000}, {8738, 67, 141}, {82168, 11, 2511}, {1000000, 16, 32}})
            for (index_t n = 1; n <= 1024; ++n) {
                const detail::SpmmFeatures f = one_long_row(rows, per_row, max_row, n, value_bytes);
                const auto c = detail::select_spmm_config(f);
                const std::string text = detail::to_string(c);
                ASSERT_TRUE(detail::is_compiled(c.shape)) << text << " n = " << n;
                ASSERT_EQ(n % c.shape.vec, 0) << text << " n = " << n;
                ASSERT_LE(c.shape.vec * value_bytes, 16) << text << " n = " << n;
                ASSERT_LE((n + c.shape.tile() - 1) / c.shape.tile(), 65535) << text;
                ASSERT_EQ(detail::parse_spmm_config(text), c) << text << " n = " << n;
                if (c.long_shape) {
                    ASSERT_TRUE(detail::is_compiled(*c.long_shape)) << text << " n = " << n;
                    ASSERT_EQ(c.long_shape->tile(), c.shape.tile()) << text << " n = " << n;
                }
                if (c.split_long) {
                    ASSERT_TRUE(f.split_allowed) << text << " n = " << n;
                    ASSERT_TRUE(detail::splits_in_one_launch(c)) << text << " n = " << n;
                }
            }
}

}  // namespace
}  // namespace spk
