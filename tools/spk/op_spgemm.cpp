// SpGEMM for the command line: C = A ⊕.⊗ B (B defaults to A, or Aᵀ when A is not square),
// optionally under a structural mask, in f32 or f64 (OpConfig::values). run() does both phases,
// symbolic and numeric.
#include <type_traits>

#include "matrix_output.hpp"
#include "operation.hpp"

namespace spk::cli {

namespace {

// Scalar products A(i,k) B(k,j) the product forms.
template <class V>
double products(const Csr<V, std::int32_t>& a, const Csr<V, std::int32_t>& b) {
    double total = 0;
    const auto brp = b.row_ptr().to_vector();
    for (const std::int32_t k : a.col_idx().to_vector()) total += brp[static_cast<std::size_t>(k) + 1] - brp[static_cast<std::size_t>(k)];
    return total;
}

template <class V>
class SpgemmOp final : public Operation {
    using Csr32 = Csr<V, std::int32_t>;

public:
    // a, b: spgemm_operands
    SpgemmOp(const Executor& exec, const OpConfig& config, std::pair<Csr32, Csr32> operands, const Matrix* mask)
        : exec_(exec), config_(config), a_(std::move(operands.first)), b_(std::move(operands.second)), products_(products(a_, b_)) {
        if (mask) mask_ = matrix_on<V>(exec, *mask);
    }

    std::string describe() const override {
        std::string d = "spgemm " + std::string(to_string(config_.semiring));
        if (mask_) d += config_.complement_mask ? " mask=!M" : " mask=M";
        if (!std::is_same_v<V, float>) d += " " + std::string(to_string(value_traits<V>::id));
        return d;
    }
    void enqueue() override {
        SpgemmOptions options;
        options.semiring = config_.semiring;
        options.complement_mask = config_.complement_mask;
        std::optional<CsrView<const V, std::int32_t>> mask;
        if (mask_) mask = mask_->view();
        c_ = spgemm<V, std::int32_t>(exec_, a_.view(), b_.view(), options, mask);
    }
    void run() override {
        enqueue();
        exec_.synchronize();
    }
    OpOutput output() const override { return sparse_output(c_); }
    std::optional<index_t> result_nnz() const override { return c_.nnz(); }
    void save(const std::string& path) const override { save_matrix(path, c_); }
    double flops() const override { return 2.0 * products_; }
    double bytes() const override {
        constexpr int v = sizeof(V);
        return csr_bytes(a_.rows(), a_.nnz(), v) + csr_bytes(b_.rows(), b_.nnz(), v) + csr_bytes(c_.rows(), c_.nnz(), v) +
               (mask_ ? csr_bytes(mask_->rows(), mask_->nnz(), 0) : 0.0);
    }

private:
    Executor exec_;
    OpConfig config_;
    Csr32 a_, b_;
    std::optional<Csr32> mask_;
    Csr32 c_;
    double products_;
};

template <class V>
std::unique_ptr<Operation> make_spgemm_of(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    return std::make_unique<SpgemmOp<V>>(exec, config, spgemm_operands<V>(exec, inputs), inputs.mask.get());
}

}  // namespace

std::unique_ptr<Operation> make_spgemm(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    if (config.values == ValueType::f64) return make_spgemm_of<double>(exec, config, inputs);
    return make_spgemm_of<float>(exec, config, inputs);
}

}  // namespace spk::cli
