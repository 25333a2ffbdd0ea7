#pragma once
// The operations `spk run`, `spk verify` and `spk bench` share: each builds its dense inputs
// (random, from a seed, so every backend sees the same numbers), copies everything to the
// executor, does its analysis (plans) at construction and computes in run(), the part
// benchmarks time. Values are f32 and indices i32 throughout the command-line tool, except
// spgemm's values, which may be f64 (--dtype): the published SpGEMM figures it is compared with
// (OpSparse, cuSPARSE in the SpGEMM issue) are f64. Inputs are read as f32 and widened.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "spk/executor.hpp"
#include "spk/fusedmm.hpp"
#include "spk/matrix.hpp"
#include "spk/sparse_tensor.hpp"
#include "spk/spgemm.hpp"
#include "spk/spmm.hpp"

namespace spk::cli {

using Matrix = Csr<float, std::int32_t>;
using Tensor = CooTensor3<float, std::int32_t>;

// The operation names, in the order the help texts list them.
inline constexpr std::string_view op_names[] = {"spmm", "sddmm", "fusedmm", "spgemm", "tc", "mttkrp", "ttm"};
inline constexpr std::string_view fused_presets[] = {"gcn", "attention", "gat", "force2vec"};
bool is_tensor_op(std::string_view op);

struct OpConfig {
    std::string op;
    index_t n = 32;  // spmm: columns of B and C
    index_t k = 32;  // sddmm, fusedmm: feature width per head
    int heads = 1;   // sddmm, fusedmm
    Reduce reduce = Reduce::sum;
    std::string preset = "gcn";  // fusedmm
    Semiring semiring = Semiring::plus_times;
    bool complement_mask = false;
    int mode = 0;       // mttkrp, ttm
    index_t rank = 16;  // mttkrp, ttm
    std::uint64_t seed = 1;
    std::string kernel_config;   // on cuda: spmm's explicit configuration (empty: tune decides), sddmm's mode, fusedmm's (empty: automatic)
    Tune tune = Tune::select;    // spmm on cuda
    bool deterministic = false;  // spmm
    bool backward = false;       // fusedmm: the backward pass (from a forward's saved statistics) instead of the forward
    bool edge_terms = false;     // fusedmm --backward: FusedOptions::backward_edge_terms
    ValueType values = ValueType::f32;  // spgemm: f32 or f64
};
inline constexpr ValueType spgemm_value_types[] = {ValueType::f32, ValueType::f64};

// Host inputs, shared by the operations built on them (verify builds one per backend).
struct OpInputs {
    std::shared_ptr<const Matrix> a;
    std::shared_ptr<const Matrix> b;     // spgemm's right operand (null: A, or Aᵀ when A is not square)
    std::shared_ptr<const Matrix> mask;  // spgemm's mask (null: none)
    std::shared_ptr<const Tensor> tensor;
    // spgemm --dtype f64: A and B as read, in double (a and b hold them rounded to float; null
    // otherwise, and b_f64 null where b is)
    std::shared_ptr<const Csr<double, std::int32_t>> a_f64, b_f64;
};

// A result copied to the host, as doubles, for comparison and summaries.
struct OpOutput {
    index_t rows = 0, cols = 0;
    bool sparse = false;
    std::vector<std::int64_t> row_ptr, col_idx;  // sparse results
    std::vector<double> values;                  // dense row-major, or the sparse values
    std::optional<std::uint64_t> count;          // a scalar count (tc)
    double checksum() const;                     // sum of values, or the count
};

class Operation {
public:
    virtual ~Operation() = default;
    // "spmm n=32 reduce=sum": what was computed, for tables.
    virtual std::string describe() const = 0;
    // Computes (and waits for the device): the part that benchmarks time.
    virtual void run() = 0;
    // Queues the computation without waiting, where the backend allows it (device timing with
    // events around it then excludes the host's wait); by default the same as run().
    virtual void enqueue() { run(); }
    // The last run's result, on the host.
    virtual OpOutput output() const = 0;
    // What bench records of the last run's result: the sum of its values (the count for tc) and,
    // for a sparse result, its stored entries. By default from output(); dense results override
    // checksum() to sum where they lie on the host (dense_checksum), without output()'s copy to
    // doubles: a backward pass's gradients reach gigabytes.
    virtual double checksum() const { return output().checksum(); }
    virtual std::optional<index_t> result_nnz() const { return std::nullopt; }
    // Writes the last run's result (.mtx; sparse results also .spkb).
    virtual void save(const std::string& path) const = 0;
    // Floating-point operations of one run (0 where the count is not meaningful) and the
    // minimum bytes one run must read and write (inputs once, outputs once).
    virtual double flops() const = 0;
    virtual double bytes() const = 0;
    // Undirected edges of the graph a graph operation walks (tc; 0 otherwise): bench reports edges
    // a second, the figure published triangle counts are compared by.
    virtual double edges() const { return 0; }
};

std::unique_ptr<Operation> make_operation(const Executor& exec, const OpConfig& config, const OpInputs& inputs);

// --- helpers for the operation files --------------------------------------------------------
// rows x cols, uniform in [-1, 1], row-major, from seed; allocated on exec.
Dense<float> random_dense(const Executor& exec, index_t rows, index_t cols, std::uint64_t seed);
OpOutput dense_output(const Dense<float>& d);
double dense_checksum(const Dense<float>& d);  // the sum of d's values, in double, on every core
template <class V>
OpOutput sparse_output(const Csr<V, std::int32_t>& m);  // f32 and f64
// fusedmm's presets (op_fusedmm.cpp): the options, and the columns of X and Y per head (none for
// gcn, whose scores are A's values; one for gat; k otherwise). The vendor baseline uses them too.
FusedOptions fused_preset_options(const OpConfig& config);
index_t fused_score_width(const OpConfig& config);
double csr_bytes(index_t rows, index_t nnz, int value_bytes = 4);
// The host matrix m on exec, its values as V (widened from f32 for f64).
template <class V>
Csr<V, std::int32_t> matrix_on(const Executor& exec, const Matrix& m) {
    if constexpr (std::is_same_v<V, float>)
        return m.to(exec);
    else
        return convert_values<V>(m.view()).to(exec);
}  // row_ptr + col_idx + values of an i32 CSR
// An operand on exec as V: the double copy where V is double and the inputs kept one (exact),
// else matrix_on.
template <class V>
Csr<V, std::int32_t> operand_on(const Executor& exec, const Matrix& m, const Csr<double, std::int32_t>* exact) {
    if constexpr (std::is_same_v<V, double>)
        if (exact) return exact->to(exec);
    return matrix_on<V>(exec, m);
}
// spgemm's operands A and B (B: A when square, else Aᵀ) on exec as V, from the inputs' double
// copies where they kept them.
template <class V>
std::pair<Csr<V, std::int32_t>, Csr<V, std::int32_t>> spgemm_operands(const Executor& exec, const OpInputs& inputs) {
    const Csr<double, std::int32_t>* a_exact = inputs.a_f64.get();
    Csr<V, std::int32_t> a = operand_on<V>(exec, *inputs.a, a_exact);
    if (inputs.b) return {std::move(a), operand_on<V>(exec, *inputs.b, inputs.b_f64.get())};
    if (inputs.a->rows() == inputs.a->cols()) return {std::move(a), operand_on<V>(exec, *inputs.a, a_exact)};
    const auto at_exact = a_exact ? std::optional(transpose<double, std::int32_t>(a_exact->view())) : std::nullopt;
    return {std::move(a), operand_on<V>(exec, transpose<float, std::int32_t>(inputs.a->view()), at_exact ? &*at_exact : nullptr)};
}
double dense_bytes(index_t rows, index_t cols);

std::unique_ptr<Operation> make_spmm(const Executor& exec, const OpConfig& config, const OpInputs& inputs);
std::unique_ptr<Operation> make_sddmm(const Executor& exec, const OpConfig& config, const OpInputs& inputs);
std::unique_ptr<Operation> make_fusedmm(const Executor& exec, const OpConfig& config, const OpInputs& inputs);
std::unique_ptr<Operation> make_spgemm(const Executor& exec, const OpConfig& config, const OpInputs& inputs);
std::unique_ptr<Operation> make_tc(const Executor& exec, const OpConfig& config, const OpInputs& inputs);
std::unique_ptr<Operation> make_tensor_op(const Executor& exec, const OpConfig& config, const OpInputs& inputs);

}  // namespace spk::cli
