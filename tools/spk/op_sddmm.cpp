// SDDMM for the command line: out(p, h) = A(i,j) <X_i,h, Y_j,h> with X, Y random, width k per head.
#include "matrix_output.hpp"
#include "operation.hpp"
#include "spk/sddmm.hpp"

namespace spk::cli {

namespace {

class SddmmOp final : public Operation {
public:
    SddmmOp(const Executor& exec, const OpConfig& config, const Matrix& a)
        : exec_(exec),
          config_(config),
          a_(a.to(exec)),
          x_(random_dense(exec, a.rows(), config.heads * config.k, config.seed)),
          y_(random_dense(exec, a.cols(), config.heads * config.k, config.seed + 1)),
          out_(exec, a.nnz(), config.heads) {}

    std::string describe() const override {
        return "sddmm k=" + std::to_string(config_.k) + " heads=" + std::to_string(config_.heads) +
               (config_.kernel_config.empty() ? "" : " config=" + config_.kernel_config);
    }
    void enqueue() override {
        sddmm<float, std::int32_t>(exec_, a_.view(), x_.view(), y_.view(), out_.view(),
                                   {.scale_by_a = true, .heads = config_.heads, .config = config_.kernel_config});
    }
    void run() override {
        enqueue();
        exec_.synchronize();
    }
    OpOutput output() const override { return dense_output(out_); }
    double checksum() const override { return dense_checksum(out_); }
    void save(const std::string& path) const override { save_dense(path, out_); }
    double flops() const override { return 2.0 * static_cast<double>(a_.nnz()) * static_cast<double>(config_.heads * config_.k); }
    double bytes() const override {
        const index_t width = config_.heads * config_.k;
        return csr_bytes(a_.rows(), a_.nnz()) + dense_bytes(a_.rows(), width) + dense_bytes(a_.cols(), width) +
               dense_bytes(a_.nnz(), config_.heads);
    }

private:
    Executor exec_;
    OpConfig config_;
    Matrix a_;
    Dense<float> x_, y_, out_;
};

}  // namespace

std::unique_ptr<Operation> make_sddmm(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    return std::make_unique<SddmmOp>(exec, config, *inputs.a);
}

}  // namespace spk::cli
