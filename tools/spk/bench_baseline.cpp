#include "bench_baseline.hpp"

#include "baselines/baselines.hpp"
#include "format.hpp"

namespace spk::cli {

std::optional<BaselineTime> vendor_baseline(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup,
                                            std::int64_t reps) {
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

double device_copy_bandwidth(const Executor& exec) { return baselines::copy_bandwidth(exec); }

double device_seconds(const Executor& exec, Operation& op, std::int64_t warmup, std::int64_t reps) {
    return baselines::time_device_ms(
               exec, [&] { op.enqueue(); }, static_cast<int>(warmup), static_cast<int>(reps)) /
           1e3;
}

}  // namespace spk::cli
