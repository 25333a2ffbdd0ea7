// FusedMM for the command line, with the model presets of the first paper's experiments:
//   gcn        s = a_ij, no edge function, E_i = sum_j a_ij Z_j           (graph convolution)
//   attention  s = <X_i, Y_j> / sqrt(k), row softmax, E_i = sum_j w_ij Z_j (dot-product attention)
//   gat        s = leaky_relu(x_i + y_j, 0.2), row softmax, sum            (graph attention; X, Y one scalar per node and head)
//   force2vec  s = sigmoid(-|X_i - Y_j|^2), E_i = sum_j w_ij Z_j          (force-directed embedding)
// With --backward the operation is the backward pass instead: from a forward pass's saved
// statistics (computed once, untimed) and a random dE, the gradients a preset's training needs:
// dX, dY, dZ, and dA where the scores are A's values (gcn). Its output is the gradients stacked
// into one column, so that `spk verify --backward` compares them across backends.
#include <cmath>

#include "command.hpp"
#include "matrix_output.hpp"
#include "operation.hpp"

namespace spk::cli {

FusedOptions fused_preset_options(const OpConfig& c) {
    FusedOptions o;
    o.heads = c.heads;
    o.backward_edge_terms = c.edge_terms;
    if (!c.kernel_config.empty()) o.config = c.kernel_config;
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
          plan_(exec, a_.view(), fused_preset_options(config)) {
        // The saved statistics' arrays, allocated once: the timed forward writes into them, as a
        // training loop's does, instead of allocating (cudaMalloc and cudaFree wait for the device).
        saved_ = plan_.forward(x_.view(), y_.view(), z_.view(), e_.view());
        if (!config.backward) return;
        de_ = random_dense(exec, a.rows(), config.heads * config.k, config.seed + 3);
        dx_ = Dense<float>(exec, x_.rows(), x_.cols());
        dy_ = Dense<float>(exec, y_.rows(), y_.cols());
        dz_ = Dense<float>(exec, z_.rows(), z_.cols());
        if (config.preset == "gcn") da_ = Dense<float>(exec, a.nnz(), 1);
        exec.synchronize();
    }

    std::string describe() const override {
        return "fusedmm " + config_.preset + " k=" + std::to_string(config_.k) + " heads=" + std::to_string(config_.heads) +
               (config_.backward ? " backward" : "") + (config_.edge_terms ? " (edge terms)" : "") +
               (config_.kernel_config.empty() ? "" : " config=" + config_.kernel_config);
    }
    void enqueue() override {
        if (config_.backward)
            // E given, as a training loop has it: under softmax the CUDA backward takes σ from it.
            plan_.backward(de_.view(), saved_, x_.view(), y_.view(), z_.view(), dx_.view(), dy_.view(), dz_.view(), da_.view(), e_.view());
        else
            plan_.forward(x_.view(), y_.view(), z_.view(), e_.view(), saved_.out());
    }
    void run() override {
        enqueue();
        exec_.synchronize();
    }
    OpOutput output() const override {
        if (!config_.backward) return dense_output(e_);
        // dX, dY, dZ and dA (each row-major) one after the other, as one column.
        OpOutput out;
        for (const Dense<float>* g : {&dx_, &dy_, &dz_, &da_}) {
            if (g->rows() == 0 || g->cols() == 0) continue;
            const std::vector<double> part = dense_output(*g).values;
            out.values.insert(out.values.end(), part.begin(), part.end());
        }
        out.rows = static_cast<index_t>(out.values.size());
        out.cols = 1;
        return out;
    }
    double checksum() const override {
        if (!config_.backward) return dense_checksum(e_);
        double sum = 0;
        for (const Dense<float>* g : {&dx_, &dy_, &dz_, &da_}) sum += dense_checksum(*g);
        return sum;
    }
    void save(const std::string& path) const override {
        if (!config_.backward) return save_dense(path, e_);
        const OpOutput out = output();
        const Dense<float> stacked(Executor::cpu(), out.rows, 1, std::vector<float>(out.values.begin(), out.values.end()));
        save_dense(path, stacked);
    }
    // Per stored entry and head: the score (2 flops per dot element, 3 per squared distance)
    // and the weighted sum into E (2 per element); edge functions and softmax are not counted.
    // Backward: the score again, dα = <dE_i, Z_j> and dZ_j += α dE_i (2 per element each), and
    // ds times Y_j into dX, times X_i into dY (2 per element each, 3 for squared distances, 1
    // for gat's scalars); edge derivatives, softmax and σ are not counted.
    double flops() const override {
        const double sw = static_cast<double>(fused_score_width(config_)), k = static_cast<double>(config_.k);
        const bool force2vec = config_.preset == "force2vec", gat = config_.preset == "gat";
        const double score = force2vec ? 3 * sw : gat ? 1 : 2 * sw;
        const double per_entry = config_.backward ? score + 4 * k + (force2vec ? 6 * sw : gat ? 2 : 4 * sw) : score + 2 * k;
        return static_cast<double>(a_.nnz()) * config_.heads * per_entry;
    }
    // Forward: A, X, Y, Z read and E written once. Backward: A, X, Y, Z, dE and the saved
    // statistics read, dX, dY, dZ (and dA) written once.
    double bytes() const override {
        const index_t sw = config_.heads * fused_score_width(config_), zw = config_.heads * config_.k;
        const double inputs = csr_bytes(a_.rows(), a_.nnz()) + dense_bytes(a_.rows(), sw) + dense_bytes(a_.cols(), sw) +
                              dense_bytes(a_.cols(), zw) + dense_bytes(a_.rows(), zw);  // E's or dE's size
        if (!config_.backward) return inputs;
        const double stats =
            dense_bytes(saved_.row_max.rows(), saved_.row_max.cols()) + dense_bytes(saved_.row_sum.rows(), saved_.row_sum.cols());
        const double grads =
            dense_bytes(a_.rows(), sw) + dense_bytes(a_.cols(), sw) + dense_bytes(a_.cols(), zw) + dense_bytes(da_.rows(), da_.cols());
        return inputs + stats + grads;
    }

private:
    Executor exec_;
    OpConfig config_;
    Matrix a_;
    Dense<float> x_, y_, z_, e_;
    FusedPlan<float, std::int32_t> plan_;
    // --backward only: the forward's statistics, dE and the gradients.
    FusedSaved<float, std::int32_t> saved_;
    Dense<float> de_, dx_, dy_, dz_, da_;
};

}  // namespace

std::unique_ptr<Operation> make_fusedmm(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    return std::make_unique<FusedOp>(exec, config, *inputs.a);
}

}  // namespace spk::cli
