#include "bench_baseline.hpp"

#include "baselines/baselines.hpp"
#include "format.hpp"

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

// cuSPARSE SpGEMM on the operands op_spgemm.cpp uses (B: A when square, else Aᵀ); no mask or
// semiring (cuSPARSE has neither). The fastest full product is the baseline; reuse is listed.
std::optional<BaselineTime> spgemm_baseline(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup,
                                            std::int64_t reps) {
    if (!inputs.a || inputs.mask || config.semiring != Semiring::plus_times) return std::nullopt;
    const Matrix a = inputs.a->to(exec);
    const Matrix b = inputs.b ? inputs.b->to(exec)
                              : inputs.a->rows() == inputs.a->cols() ? inputs.a->to(exec)
                                                                     : transpose<float, std::int32_t>(inputs.a->view()).to(exec);
    const auto timings = baselines::cusparse_spgemm(exec, a.view(), b.view(), static_cast<int>(warmup), static_cast<int>(reps));
    std::optional<BaselineTime> best;
    std::string all;
    for (const auto& t : timings) {
        all += (all.empty() ? "" : " ") + t.name + "=" + (t.ok ? millis(t.ms / 1e3) + "ms" : "n/a(" + t.note + ")");
        if (t.ok && t.peak_bytes > 0) all += "(peak " + std::to_string(t.peak_bytes >> 20) + " MiB)";
        if (t.ok && t.name != "cusparse.spgemm.reuse" && (!best || t.ms / 1e3 < best->seconds)) best = BaselineTime{t.name, t.ms / 1e3, {}};
    }
    if (best) best->all = all;
    return best;
}

}  // namespace

std::optional<BaselineTime> vendor_baseline(const Executor& exec, const OpConfig& config, const OpInputs& inputs, std::int64_t warmup,
                                            std::int64_t reps) {
    if (exec.backend() == Backend::cuda && config.op == "sddmm") return sddmm_baseline(exec, config, inputs, warmup, reps);
    if (exec.backend() == Backend::cuda && config.op == "spgemm") return spgemm_baseline(exec, config, inputs, warmup, reps);
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
