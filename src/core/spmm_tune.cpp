// Tune::cache looks the configuration up; Tune::measure times each candidate on random dense
// operands of the plan's shape (median of a few runs after a warm-up, CUDA events) and records
// the fastest.
#include "core/spmm_tune.hpp"

#include <algorithm>
#include <random>
#include <vector>

#include "core/cuda_runtime.hpp"
#include "core/instantiate.hpp"
#include "tune/tuning_cache.hpp"

namespace spk::detail {

namespace {

constexpr int tune_warmup = 2, tune_reps = 5;

template <class V>
Dense<V> random_operand(const Executor& exec, index_t rows, index_t cols, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<V> host(static_cast<std::size_t>(rows * cols));
    for (auto& x : host) x = value_cast<V>(dist(rng));
    return Dense<V>(Executor::cpu(), rows, cols, host).to(exec);
}

// Timed as the bench times (CUDA events; short calls in batches, cuda_runtime.hpp): one call
// between a host clock and a synchronisation measured the launch's latency on an idle device,
// 7-9 us a call on the small matrices whatever the kernel (stop 23), so their choice was noise.
template <class V, class I>
double median_seconds(const Executor& exec, const cuda::SpmmState& state, const SpmmArgs<V, I>& args) {
    std::vector<double> times =
        cuda::time_calls_ms(exec.device(), exec.stream(), [&] { cuda::spmm(exec, state, args); }, tune_warmup, tune_reps);
    std::nth_element(times.begin(), times.begin() + static_cast<long>(times.size() / 2), times.end());
    return times[times.size() / 2] / 1e3;
}

std::string variant_of(const SpmmOptions& o) { return std::string(to_string(o.reduce)) + (o.deterministic ? ".deterministic" : ""); }

}  // namespace

template <class V, class I>
std::shared_ptr<const cuda::SpmmState> plan_cuda_spmm(const Executor& exec, CsrView<const V, I> a, index_t n, const SpmmOptions& options) {
    auto chosen = cuda::spmm_analyse(exec, a, n, options);
    if (!options.config.empty() || options.tune == Tune::select) return chosen;

    const SpmmFeatures& features = cuda::spmm_features(*chosen);
    const TuningKey key{cuda::device_name(exec.device()),
                        "spmm",
                        std::string(value_traits<V>::name) + "." + std::string(index_traits<I>::name),
                        n,
                        variant_of(options),
                        fingerprint(features)};
    TuningCache cache(tuning_cache_path());
    const auto with_config = [&](const std::string& config) {
        SpmmOptions o = options;
        o.config = config;
        return cuda::spmm_analyse(exec, a, n, o);
    };
    if (options.tune == Tune::cache) {
        if (const auto hit = cache.find(key)) return with_config(*hit);
        return chosen;
    }

    const Dense<V> b = random_operand<V>(exec, a.cols, n, 1);
    Dense<V> c = random_operand<V>(exec, a.rows, n, 2);
    const SpmmArgs<V, I> args{a, b.view(), c.view(), {}, options.reduce, options.alpha, 0.0};
    double best = median_seconds(exec, *chosen, args);
    for (const auto& candidate : spmm_candidates(features)) {
        const std::string text = to_string(candidate);
        if (text == cuda::spmm_describe(*chosen)) continue;
        std::shared_ptr<const cuda::SpmmState> state;
        try {
            state = with_config(text);
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::InvalidArgument) throw;
            continue;  // a candidate these options exclude (e.g. split rows when deterministic)
        }
        const double t = median_seconds(exec, *state, args);
        if (t < best) {
            best = t;
            chosen = state;
        }
    }
    cache.record(key, cuda::spmm_describe(*chosen));
    return chosen;
}

#define SPK_INSTANTIATE(V, I) \
    template std::shared_ptr<const cuda::SpmmState> plan_cuda_spmm(const Executor&, CsrView<const V, I>, index_t, const SpmmOptions&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk::detail
