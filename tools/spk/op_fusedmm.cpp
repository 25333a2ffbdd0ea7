// FusedMM for the command line, with the model presets of the first paper's experiments:
//   gcn        s = a_ij, no edge function, E_i = sum_j a_ij Z_j           (graph convolution)
//   attention  s = <X_i, Y_j> / sqrt(k), row softmax, E_i = sum_j w_ij Z_j (dot-product attention)
//   gat        s = leaky_relu(x_i + y_j, 0.2), row softmax, sum            (graph attention; X, Y one scalar per node and head)
//   force2vec  s = sigmoid(-|X_i - Y_j|^2), E_i = sum_j w_ij Z_j          (force-directed embedding)
#include <cmath>

#include "command.hpp"
#include "matrix_output.hpp"
#include "operation.hpp"

namespace spk::cli {

FusedOptions fused_preset_options(const OpConfig& c) {
    FusedOptions o;
    o.heads = c.heads;
    if (c.preset == "gcn") {
        o.score = Score::value;
    } else if (c.preset == "attention") {
        o.score = Score::dot;
        o.edge = Edge::scale(1.0f / std::sqrt(static_cast<float>(c.k)));
        o.normalize = Normalize::softmax;
    } else if (c.preset == "gat") {
        o.score = Score::add;
        o.edge = Edge::leaky_relu(0.2f);
        o.normalize = Normalize::softmax;
    } else if (c.preset == "force2vec") {
        o.score = Score::neg_sqdist;
        o.edge = Edge::sigmoid();
    } else {
        throw UsageError("--preset: '" + c.preset + "' is not one of gcn, attention, gat, force2vec");
    }
    return o;
}

index_t fused_score_width(const OpConfig& c) { return c.preset == "gcn" ? 0 : c.preset == "gat" ? 1 : c.k; }

namespace {

class FusedOp final : public Operation {
public:
    FusedOp(const Executor& exec, const OpConfig& config, const Matrix& a)
        : exec_(exec),
          config_(config),
          a_(a.to(exec)),
          x_(random_dense(exec, a.rows(), config.heads * fused_score_width(config), config.seed)),
          y_(random_dense(exec, a.cols(), config.heads * fused_score_width(config), config.seed + 1)),
          z_(random_dense(exec, a.cols(), config.heads * config.k, config.seed + 2)),
          e_(exec, a.rows(), config.heads * config.k),
          plan_(exec, a_.view(), fused_preset_options(config)) {}

    std::string describe() const override {
        return "fusedmm " + config_.preset + " k=" + std::to_string(config_.k) + " heads=" + std::to_string(config_.heads);
    }
    void run() override {
        plan_.forward(x_.view(), y_.view(), z_.view(), e_.view());
        exec_.synchronize();
    }
    OpOutput output() const override { return dense_output(e_); }
    void save(const std::string& path) const override { save_dense(path, e_.view()); }
    // Per stored entry and head: the score (2 flops per dot element, 3 per squared distance)
    // and the weighted sum into E (2 per element); edge functions and softmax are not counted.
    double flops() const override {
        const double sw = static_cast<double>(fused_score_width(config_));
        const double score = config_.preset == "force2vec" ? 3 * sw : config_.preset == "gat" ? 1 : 2 * sw;
        return static_cast<double>(a_.nnz()) * config_.heads * (score + 2.0 * static_cast<double>(config_.k));
    }
    double bytes() const override {
        const index_t sw = config_.heads * fused_score_width(config_), zw = config_.heads * config_.k;
        return csr_bytes(a_.rows(), a_.nnz()) + dense_bytes(a_.rows(), sw) + dense_bytes(a_.cols(), sw) + dense_bytes(a_.cols(), zw) +
               dense_bytes(a_.rows(), zw);
    }

private:
    Executor exec_;
    OpConfig config_;
    Matrix a_;
    Dense<float> x_, y_, z_, e_;
    FusedPlan<float, std::int32_t> plan_;
};

}  // namespace

std::unique_ptr<Operation> make_fusedmm(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    return std::make_unique<FusedOp>(exec, config, *inputs.a);
}

}  // namespace spk::cli
