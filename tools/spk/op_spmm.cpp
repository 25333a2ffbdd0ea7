// SpMM for the command line: C = reduce_j A(i,j) B(j,:), B random cols(A) x n.
#include "format.hpp"
#include "matrix_output.hpp"
#include "operation.hpp"
#include "stopwatch.hpp"

namespace spk::cli {

namespace {

SpmmOptions options(const OpConfig& config) {
    SpmmOptions o;
    o.reduce = config.reduce;
    o.config = config.kernel_config;
    o.tune = config.tune;
    o.deterministic = config.deterministic;
    return o;
}

class SpmmOp final : public Operation {
public:
    SpmmOp(const Executor& exec, const OpConfig& config, const Matrix& a)
        : exec_(exec),
          config_(config),
          a_(a.to(exec)),
          b_(random_dense(exec, a.cols(), config.n, config.seed)),
          c_(exec, a.rows(), config.n),
          plan_(make_plan()) {}

    // On CUDA the description names the kernel configuration and the plan's analysis time.
    std::string describe() const override {
        std::string s = "spmm n=" + std::to_string(config_.n) + " reduce=" + std::string(to_string(config_.reduce));
        if (config_.deterministic) s += " deterministic";
        if (exec_.backend() == Backend::cuda) s += " [" + plan_.config() + ", plan " + millis(plan_seconds_) + " ms]";
        return s;
    }
    void enqueue() override { plan_.run(b_.view(), c_.view()); }
    void run() override {
        enqueue();
        exec_.synchronize();
    }
    OpOutput output() const override { return dense_output(c_); }
    double checksum() const override { return dense_checksum(c_); }
    void save(const std::string& path) const override { save_dense(path, c_); }
    double flops() const override { return 2.0 * static_cast<double>(a_.nnz()) * static_cast<double>(config_.n); }
    double bytes() const override {
        return csr_bytes(a_.rows(), a_.nnz()) + dense_bytes(a_.cols(), config_.n) + dense_bytes(a_.rows(), config_.n);
    }

private:
    Executor exec_;
    OpConfig config_;
    Matrix a_;
    Dense<float> b_, c_;
    double plan_seconds_ = 0;
    SpmmPlan<float, std::int32_t> plan_;

    SpmmPlan<float, std::int32_t> make_plan() {
        // The first plan of a process also loads the analysis kernels: time a second one.
        if (exec_.backend() == Backend::cuda && config_.tune == Tune::select)
            SpmmPlan<float, std::int32_t>(exec_, a_.view(), config_.n, options(config_));
        // The plan is timed until it is ready to run: config() completes a plan whose analysis was
        // only queued, as its first run would.
        const Stopwatch clock;
        SpmmPlan<float, std::int32_t> plan(exec_, a_.view(), config_.n, options(config_));
        (void)plan.config();
        exec_.synchronize();
        plan_seconds_ = clock.seconds();
        return plan;
    }
};

}  // namespace

std::unique_ptr<Operation> make_spmm(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    return std::make_unique<SpmmOp>(exec, config, *inputs.a);
}

}  // namespace spk::cli
