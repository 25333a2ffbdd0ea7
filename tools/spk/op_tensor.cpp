// MTTKRP and TTM for the command line, on a 3-way tensor with random factor matrices of rank R.
#include <array>

#include "command.hpp"
#include "matrix_output.hpp"
#include "operation.hpp"
#include "spk/tensor.hpp"

namespace spk::cli {

namespace {

double tensor_bytes(index_t nnz) { return 16.0 * static_cast<double>(nnz); }  // three i32 indices and an f32 value

class MttkrpOp final : public Operation {
public:
    MttkrpOp(const Executor& exec, const OpConfig& config, const Tensor& x)
        : exec_(exec),
          config_(config),
          plan_(exec, x, {config.mode}),
          out_(exec, x.dims[static_cast<std::size_t>(config.mode)], config.rank) {
        for (int m = 0; m < 3; ++m)
            if (m != config.mode)
                factors_[static_cast<std::size_t>(m)] =
                    random_dense(exec, x.dims[static_cast<std::size_t>(m)], config.rank, config.seed + static_cast<std::uint64_t>(m));
    }

    std::string describe() const override {
        return "mttkrp mode=" + std::to_string(config_.mode) + " rank=" + std::to_string(config_.rank);
    }
    void enqueue() override { plan_.run(config_.mode, {factors_[0].view(), factors_[1].view(), factors_[2].view()}, out_.view()); }
    void run() override {
        enqueue();
        exec_.synchronize();
    }
    OpOutput output() const override { return dense_output(out_); }
    double checksum() const override { return dense_checksum(out_); }
    void save(const std::string& path) const override { save_dense(path, out_); }
    // Per non-zero and rank column: two multiplications and an addition.
    double flops() const override { return 3.0 * static_cast<double>(plan_.nnz()) * static_cast<double>(config_.rank); }
    double bytes() const override {
        double b = tensor_bytes(plan_.nnz()) + dense_bytes(out_.rows(), config_.rank);
        for (int m = 0; m < 3; ++m)
            if (m != config_.mode) b += dense_bytes(plan_.dims()[static_cast<std::size_t>(m)], config_.rank);
        return b;
    }

private:
    Executor exec_;
    OpConfig config_;
    MttkrpPlan<float, std::int32_t> plan_;
    std::array<Dense<float>, 3> factors_;
    Dense<float> out_;
};

class TtmOp final : public Operation {
public:
    TtmOp(const Executor& exec, const OpConfig& config, const Tensor& x)
        : exec_(exec),
          config_(config),
          plan_(exec, x, config.mode),
          u_(random_dense(exec, config.rank, x.dims[static_cast<std::size_t>(config.mode)], config.seed)),
          y_(exec, plan_.fibers(), config.rank),
          nnz_(x.nnz()) {}

    std::string describe() const override { return "ttm mode=" + std::to_string(config_.mode) + " rank=" + std::to_string(config_.rank); }
    void enqueue() override { plan_.run(u_.view(), y_.view()); }
    void run() override {
        enqueue();
        exec_.synchronize();
    }
    OpOutput output() const override { return dense_output(y_); }
    double checksum() const override { return dense_checksum(y_); }
    void save(const std::string& path) const override { save_dense(path, y_); }
    double flops() const override { return 2.0 * static_cast<double>(nnz_) * static_cast<double>(config_.rank); }
    double bytes() const override { return tensor_bytes(nnz_) + dense_bytes(u_.rows(), u_.cols()) + dense_bytes(y_.rows(), y_.cols()); }

private:
    Executor exec_;
    OpConfig config_;
    TtmPlan<float, std::int32_t> plan_;
    Dense<float> u_, y_;
    index_t nnz_;
};

}  // namespace

std::unique_ptr<Operation> make_tensor_op(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    if (config.mode < 0 || config.mode > 2)
        throw UsageError("--mode: " + std::to_string(config.mode) + " is not a mode of a 3-way tensor (0, 1, 2)");
    if (config.op == "mttkrp") return std::make_unique<MttkrpOp>(exec, config, *inputs.tensor);
    return std::make_unique<TtmOp>(exec, config, *inputs.tensor);
}

}  // namespace spk::cli
