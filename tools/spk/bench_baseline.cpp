#include "bench_baseline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "baselines/baselines.hpp"
#include "format.hpp"
#include "spk/error.hpp"

namespace spk::cli {

namespace {

// cuSPARSE SDDMM on the inputs op_sddmm.cpp builds (X and Y random, k features); one head only.
std::optional<BaselineTime> sddmm_baseline(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup,
                                           std::int64_t reps) {
    if (config.heads != 1 || !inputs.a) return std::nullopt;
    const Matrix a = inputs.a->to(exec);
    const Dense<float> x = random_dense(exec, a.rows(), config.k, config.seed);
    const Dense<float> y = random_dense(exec, a.cols(), config.k, config.seed + 1);
    Array<float> out(exec, static_cast<std::size_t>(a.nnz()));
    const auto timings =
        baselines::cusparse_sddmm(exec, a.view(), x.view(), y.view(), out.data(), static_cast<int>(warmup), static_cast<int>(reps));
    const baselines::Timing& t = timings.front();
    if (!t.ok) return std::nullopt;
    return BaselineTime{t.name, t.ms / 1e3, t.name + "=" + millis(t.ms / 1e3) + "ms(+" + millis(t.preprocess_ms / 1e3) + "ms prep)"};
}

// spk's own SpGEMM figures beside cuSPARSE's: the numeric phase alone through a plan (new values,
// same patterns: what a reuse costs), and the device memory of one whole product: the pool's
// high-water mark (the symbolic phase's and the numeric phase's workspaces, the plan's row arrays
// among them) plus C, which lives outside the pool. A and B, the same for both, are not counted. The plan's
// first recompute, which keeps C's columns and each product's place for the later ones, is timed
// alone, with the device memory it leaves held. The whole product is also timed in its two halves:
// the plan (binning and the symbolic phase, C's row offsets read back) and compute() (the numeric
// phase into a new C), which tells where a slow product spends its time without a profiler, and
// C's allocation alone (its three arrays allocated and freed, as every whole product does: cudaMalloc
// and a synchronising cudaFree), which moves from machine to machine more than the kernels do.
struct SpgemmFigures {
    double plan_seconds = 0;     // 0: not measured (no room for a second product)
    double compute_seconds = 0;
    double alloc_seconds = 0;
    double reuse_seconds = 0;
    double first_reuse_seconds = 0;
    double reuse_kept_bytes = 0;
    // The reuse with each way of keeping what it needs (SpgemmReuse: places, entries, search), each
    // through a plan of its own; 0: not measured (no room beside the first plan).
    double places_reuse_seconds = 0, entries_reuse_seconds = 0, search_reuse_seconds = 0;
    double peak_bytes = 0;
    std::string path;  // SpgemmPlan::config(): "scalar" or "blocks BRxBKxBC"
};

template <class V>
SpgemmFigures spgemm_spk_figures(const Executor& exec, const Csr<V, std::int32_t>& a, const Csr<V, std::int32_t>& b, std::int64_t warmup,
                                 std::int64_t reps) {
    std::optional<SpgemmPlan<V, std::int32_t>> plan;
    Csr<V, std::int32_t> c;
    const std::size_t pool = baselines::pool_peak_bytes(exec, [&] {
        plan.emplace(exec, a.view(), b.view());
        c = plan->compute();
    });
    SpgemmFigures f;
    f.path = plan->config();
    f.peak_bytes = static_cast<double>(pool) + csr_bytes(c.rows(), c.nnz(), sizeof(V));
    const auto w = static_cast<int>(warmup), r = static_cast<int>(reps);
    try {  // a second plan and a second C beside the first: products that fit once may not fit twice
        f.plan_seconds = baselines::time_device_ms(exec, [&] { const SpgemmPlan<V, std::int32_t> p(exec, a.view(), b.view()); }, w, r) / 1e3;
        f.compute_seconds = baselines::time_device_ms(exec, [&] { const Csr<V, std::int32_t> c2 = plan->compute(); }, w, r) / 1e3;
        f.alloc_seconds = baselines::time_device_ms(exec, [&] { const Csr<V, std::int32_t> c2(exec, c.rows(), c.cols(), c.nnz()); }, w, r) / 1e3;
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::OutOfMemory) throw;
        f.plan_seconds = f.compute_seconds = f.alloc_seconds = 0;  // reported as n/a
    }
    const auto recompute = [&] { plan->recompute(a.values().data(), b.values().data(), c.values().data()); };
    const std::size_t held = device_memory_use(exec.device()).current;
    f.first_reuse_seconds = baselines::time_device_ms(exec, recompute, 0, 1) / 1e3;
    f.reuse_kept_bytes = static_cast<double>(device_memory_use(exec.device()).current) - static_cast<double>(held);
    f.reuse_seconds = baselines::time_device_ms(exec, recompute, w, r) / 1e3;
    // The reuse with each layout in turn, through plans of their own beside the first (skipped
    // where they do not fit). At least one warm-up call each: the first keeps what the layout needs.
    const auto reuse_with = [&](SpgemmReuse layout) {
        try {
            SpgemmOptions options;
            options.reuse = layout;
            const SpgemmPlan<V, std::int32_t> other(exec, a.view(), b.view(), options);
            Csr<V, std::int32_t> c_other = other.compute();
            const auto recompute_other = [&] { other.recompute(a.values().data(), b.values().data(), c_other.values().data()); };
            return baselines::time_device_ms(exec, recompute_other, std::max(w, 1), r) / 1e3;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::OutOfMemory) throw;
            return 0.0;
        }
    };
    f.places_reuse_seconds = reuse_with(SpgemmReuse::places);
    f.entries_reuse_seconds = reuse_with(SpgemmReuse::entries);
    f.search_reuse_seconds = reuse_with(SpgemmReuse::search);
    return f;
}

// "spk.path=... spk.plan=... spk.compute=... spk.alloc=... spk.reuse=...(first ..., keeps ...) spk.reuse_places=...
// spk.reuse_entries=... spk.reuse_search=... spk.peak=..." (the path with '-' for its space: one word).
std::string describe(const SpgemmFigures& f) {
    const auto phase = [](double seconds) { return seconds > 0 ? millis(seconds) + "ms" : std::string("n/a"); };
    std::string path = f.path;
    std::replace(path.begin(), path.end(), ' ', '-');
    return "spk.path=" + path + " spk.plan=" + phase(f.plan_seconds) + " spk.compute=" + phase(f.compute_seconds) + " spk.alloc=" + phase(f.alloc_seconds) + " spk.reuse=" + millis(f.reuse_seconds) +
           "ms(first " + millis(f.first_reuse_seconds) + "ms, keeps " + bytes(f.reuse_kept_bytes) + ") spk.reuse_places=" +
           phase(f.places_reuse_seconds) + " spk.reuse_entries=" + phase(f.entries_reuse_seconds) + " spk.reuse_search=" +
           phase(f.search_reuse_seconds) + " spk.peak=" + bytes(f.peak_bytes);
}

// Whether spgemm_spk_figures and cuSPARSE's SpGEMM apply: plus_times, no mask, on a device.
bool plain_spgemm_on_device(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    return exec.backend() == Backend::cuda && config.op == "spgemm" && inputs.a && !inputs.mask && config.semiring == Semiring::plus_times;
}

// cuSPARSE SpGEMM on the operands op_spgemm.cpp uses (B: A when square, else Aᵀ; values of type
// V, as read for f64); no mask or semiring (cuSPARSE has neither). The fastest full
// product is the baseline; reuse is listed.
template <class V>
std::optional<BaselineTime> spgemm_baseline_of(const Executor& exec, const OpInputs& inputs, std::int64_t warmup, std::int64_t reps,
                                               double spk_seconds) {
    const auto [a, b] = spgemm_operands<V>(exec, inputs);
    const SpgemmFigures spk = spgemm_spk_figures(exec, a, b, warmup, reps);
    const std::string spk_all = describe(spk);
    const auto timings = baselines::cusparse_spgemm(exec, a.view(), b.view(), static_cast<int>(warmup), static_cast<int>(reps));
    std::optional<BaselineTime> best;
    std::string all;
    std::vector<std::pair<std::string, double>> ratios;
    for (const auto& t : timings) {
        all += (all.empty() ? "" : " ") + t.name + "=" + (t.ok ? millis(t.ms / 1e3) + "ms" : "n/a(" + t.note + ")");
        if (t.ok && t.peak_bytes > 0) all += "(peak " + std::to_string(t.peak_bytes >> 20) + " MiB)";
        if (!t.ok) continue;
        if (t.name == "cusparse.spgemm.reuse") {
            ratios.emplace_back("numeric reuse vs cusparse-reuse", t.ms / 1e3 / spk.reuse_seconds);
            continue;
        }
        if (t.name == "cusparse.spgemm.alg1") {
            ratios.emplace_back("vs cusparse-alg1", t.ms / 1e3 / spk_seconds);
            if (t.peak_bytes > 0) ratios.emplace_back("peak memory vs cusparse-alg1", static_cast<double>(t.peak_bytes) / spk.peak_bytes);
        }
        if (!best || t.ms / 1e3 < best->seconds) best = BaselineTime{t.name, t.ms / 1e3, {}};
    }
    ratios.emplace_back("numeric reuse vs full product", spk_seconds / spk.reuse_seconds);
    if (!best) {
        std::fprintf(stderr, "spk bench: spgemm: no cuSPARSE baseline: %s %s\n", all.c_str(), spk_all.c_str());
        return std::nullopt;
    }
    best->all = all + " " + spk_all;
    best->ratios = std::move(ratios);
    return best;
}

std::optional<BaselineTime> spgemm_baseline(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup,
                                            std::int64_t reps, double spk_seconds) {
    if (!plain_spgemm_on_device(exec, config, inputs)) return std::nullopt;
    if (config.values == ValueType::f64) return spgemm_baseline_of<double>(exec, inputs, warmup, reps, spk_seconds);
    return spgemm_baseline_of<float>(exec, inputs, warmup, reps, spk_seconds);
}

// Largest |got - expected| over the largest |expected|: a norm-wise relative difference, which
// stays meaningful where single entries of E are near zero. NaN where either has a NaN. Both are
// the raw arrays of dense matrices of one shape and layout (floats compared as they are: E can
// hold half a billion values, and widening them to doubles first took seconds a case).
double max_relative_difference(const std::vector<float>& got, const std::vector<float>& expected) {
    if (got.size() != expected.size()) return std::numeric_limits<double>::infinity();
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double d = std::abs(static_cast<double>(got[i]) - static_cast<double>(expected[i]));
        if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
        diff = std::max(diff, d);
        scale = std::max(scale, std::abs(static_cast<double>(expected[i])));
    }
    return scale > 0 ? diff / scale : diff;
}

// The unfused cuSPARSE pipeline (SDDMM, edge function and row softmax, SpMM) on the inputs
// op_fusedmm.cpp builds (same presets, same seeds). Its result is checked against spk's forward
// pass on the same inputs: a baseline that computes something else would make its time
// meaningless. Peak memory is listed for both: the pipeline's intermediates and cuSPARSE's
// workspaces; spk's FusedSaved (what its forward pass allocates for row-major inputs) and its
// stream-ordered workspaces, on a plan's later calls (what a training loop sees; the ratios use
// it) and on its first (which also holds the long-row search). The inputs and E, the same for
// both, are not counted.
std::optional<BaselineTime> fusedmm_baseline(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup,
                                             std::int64_t reps) {
    if (!inputs.a) return std::nullopt;
    const FusedOptions options = fused_preset_options(config);
    if (options.aggregate == Aggregate::max) return std::nullopt;  // cuSPARSE SpMM only sums
    const Matrix a = inputs.a->to(exec);
    const index_t sw = config.heads * fused_score_width(config), zw = config.heads * config.k;
    const Dense<float> x = random_dense(exec, a.rows(), sw, config.seed);
    const Dense<float> y = random_dense(exec, a.cols(), sw, config.seed + 1);
    const Dense<float> z = random_dense(exec, a.cols(), zw, config.seed + 2);

    Dense<float> spk_e(exec, a.rows(), zw);
    std::size_t spk_bytes = 0, spk_first_bytes = 0;
    {
        const FusedPlan<float, std::int32_t> plan(exec, a.view(), options);
        FusedSaved<float, std::int32_t> saved;
        const std::size_t first =
            baselines::pool_peak_bytes(exec, [&] { saved = plan.forward(x.view(), y.view(), z.view(), spk_e.view()); });
        const std::size_t later =
            baselines::pool_peak_bytes(exec, [&] { plan.forward(x.view(), y.view(), z.view(), spk_e.view(), saved.out()); });
        const auto size_of = [](const auto& d) { return d.values().size() * sizeof(*d.values().data()); };
        const std::size_t kept = size_of(saved.row_max) + size_of(saved.row_sum) + size_of(saved.argmax) + size_of(saved.attention);
        spk_bytes = later + kept;
        spk_first_bytes = first + kept;
    }
    const std::vector<float> expected = spk_e.values().to_vector();

    // A variant whose result differs from spk's is listed (and reported) but is no baseline.
    Dense<float> e(exec, a.rows(), zw);
    std::vector<std::string> mismatched;
    const auto compare = [&](baselines::Timing& t) {
        exec.synchronize();
        const double rel = max_relative_difference(e.values().to_vector(), expected);  // e: spk_e's shape and layout
        const bool mismatch = !(rel <= 1e-3);
        t.note += (t.note.empty() ? "" : "; ") + std::string("max rel diff vs spk ") + sci(rel) + (mismatch ? " MISMATCH" : "");
        if (!mismatch) return;
        mismatched.push_back(t.name);
        std::fprintf(stderr, "spk bench: fusedmm: %s differs from spk's result (max relative difference %s)\n", t.name.c_str(),
                     sci(rel).c_str());
    };
    const auto timings = baselines::cusparse_fusedmm(exec, a.view(), x.view(), y.view(), z.view(), e.view(), options,
                                                     static_cast<int>(warmup), static_cast<int>(reps), compare);
    std::optional<BaselineTime> best;
    std::string all;
    for (const auto& t : timings) {
        all += (all.empty() ? "" : " ") + t.name + "=";
        if (t.ok)
            all += millis(t.ms / 1e3) + "ms(+" + millis(t.preprocess_ms / 1e3) + "ms prep, peak " +
                   bytes(static_cast<double>(t.peak_bytes)) + ", " + t.note + ")";
        else
            all += "n/a(" + t.note + ")";
        const bool wrong = std::find(mismatched.begin(), mismatched.end(), t.name) != mismatched.end();
        if (t.ok && !wrong && (!best || t.ms / 1e3 < best->seconds)) best = BaselineTime{t.name, t.ms / 1e3, {}};
    }
    if (!best) {
        std::fprintf(stderr, "spk bench: fusedmm: no cuSPARSE baseline: %s\n", all.c_str());
        return std::nullopt;
    }
    best->all =
        all + " spk.peak=" + bytes(static_cast<double>(spk_bytes)) + " (first call " + bytes(static_cast<double>(spk_first_bytes)) + ")";
    // The reading: spk's peak lower than the pipeline's by at least its nnz-sized intermediates, i.e. the second
    // ratio at least 1. The pipeline holds one: its scores, one f32 an entry, reused by every head (a pipeline holding
    // every head's at once would only make the goal easier).
    const double intermediates = static_cast<double>(a.nnz()) * sizeof(float);
    for (const auto& t : timings)
        if (t.name == best->name && spk_bytes > 0) {
            const auto pipeline = static_cast<double>(t.peak_bytes);
            best->ratios.emplace_back("peak memory vs cusparse-best", pipeline / static_cast<double>(spk_bytes));
            best->ratios.emplace_back("peak memory plus intermediates vs cusparse-best",
                                      pipeline / (static_cast<double>(spk_bytes) + intermediates));
        }
    return best;
}

}  // namespace

std::optional<BaselineTime> vendor_baseline(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup,
                                            std::int64_t reps, double spk_seconds) {
    if (exec.backend() == Backend::cuda && config.op == "sddmm") return sddmm_baseline(exec, config, inputs, warmup, reps);
    if (exec.backend() == Backend::cuda && config.op == "spgemm") return spgemm_baseline(exec, config, inputs, warmup, reps, spk_seconds);
    if (exec.backend() == Backend::cuda && config.op == "fusedmm") return fusedmm_baseline(exec, config, inputs, warmup, reps);
    if (exec.backend() != Backend::cuda || config.op != "spmm" || config.reduce != Reduce::sum || !inputs.a) return std::nullopt;
    const Matrix a = inputs.a->to(exec);
    const Dense<float> b = random_dense(exec, a.cols(), config.n, config.seed);
    Dense<float> c(exec, a.rows(), config.n);
    const auto timings = baselines::cusparse_spmm(exec, a.view(), b.view(), c.view(), static_cast<int>(warmup), static_cast<int>(reps));
    std::optional<BaselineTime> best;
    std::string all;
    for (const auto& t : timings) {
        all += (all.empty() ? "" : " ") + t.name + "=" + (t.ok ? millis(t.ms / 1e3) + "ms" : "n/a");
        if (t.ok && t.preprocess_ms > 0) all += "(+" + millis(t.preprocess_ms / 1e3) + "ms prep)";
        if (t.ok && (!best || t.ms / 1e3 < best->seconds)) best = BaselineTime{t.name, t.ms / 1e3, {}};
    }
    if (best) best->all = all;
    return best;
}

std::string own_figures(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup, std::int64_t reps) {
    if (!plain_spgemm_on_device(exec, config, inputs)) return {};
    if (config.values == ValueType::f64) {
        const auto [a, b] = spgemm_operands<double>(exec, inputs);
        return describe(spgemm_spk_figures(exec, a, b, warmup, reps));
    }
    const auto [a, b] = spgemm_operands<float>(exec, inputs);
    return describe(spgemm_spk_figures(exec, a, b, warmup, reps));
}

double device_copy_bandwidth(const Executor& exec) { return baselines::copy_bandwidth(exec); }

void set_device_graph_replay(bool on) { baselines::set_graph_replay(on); }

std::shared_ptr<void> make_device_stream(const Executor& exec) { return baselines::make_stream(exec.device()); }

std::vector<double> device_seconds(const Executor& exec, Operation& op, std::int64_t warmup, std::int64_t reps) {
    std::vector<double> times = baselines::time_device_runs_ms(exec, [&] { op.enqueue(); }, static_cast<int>(warmup), static_cast<int>(reps));
    for (double& t : times) t /= 1e3;
    return times;
}

}  // namespace spk::cli
