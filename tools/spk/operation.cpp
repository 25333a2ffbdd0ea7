#include "operation.hpp"

#include <algorithm>
#include <cstdint>

#include "command.hpp"
#include "spk/error.hpp"

namespace spk::cli {

bool is_tensor_op(std::string_view op) { return op == "mttkrp" || op == "ttm"; }

double OpOutput::checksum() const {
    if (count) return static_cast<double>(*count);
    double s = 0;
    for (const double v : values) s += v;
    return s;
}

namespace {

// splitmix64's finaliser: a well-mixed 64-bit value from a counter.
std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace

Dense<float> random_dense(const Executor& exec, index_t rows, index_t cols, std::uint64_t seed) {
    // Counter-based, so that every core fills its share: a suite's dense inputs reach gigabytes
    // (1M rows x 4 heads x 128), which one sequential generator takes tens of seconds to fill.
    std::vector<float> host(static_cast<std::size_t>(rows * cols));
    const std::int64_t count = static_cast<std::int64_t>(host.size());
    const std::uint64_t base = mix(seed) * 0x9e3779b97f4a7c15ULL;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
        const std::uint64_t bits = mix(base + static_cast<std::uint64_t>(i)) >> 40;  // 24 random bits
        host[static_cast<std::size_t>(i)] = static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f;  // in [-1, 1)
    }
    return Dense<float>(exec, rows, cols, host);
}

double dense_checksum(const Dense<float>& d) {
    const std::vector<float> host = d.values().to_vector();  // rows x cols, no padding
    const std::int64_t count = static_cast<std::int64_t>(host.size());
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (std::int64_t i = 0; i < count; ++i) sum += host[static_cast<std::size_t>(i)];
    return sum;
}

OpOutput dense_output(const Dense<float>& d) {
    OpOutput out;
    out.rows = d.rows();
    out.cols = d.cols();
    const std::vector<float> host = d.values().to_vector();
    out.values.resize(host.size());
    // Row-major in the output whatever the layout was.
    for (index_t i = 0; i < d.rows(); ++i)
        for (index_t j = 0; j < d.cols(); ++j) {
            const std::size_t src = static_cast<std::size_t>(d.layout() == Layout::row_major ? i * d.ld() + j : j * d.ld() + i);
            out.values[static_cast<std::size_t>(i * d.cols() + j)] = host[src];
        }
    return out;
}

template <class V>
OpOutput sparse_output(const Csr<V, std::int32_t>& m) {
    OpOutput out;
    out.rows = m.rows();
    out.cols = m.cols();
    out.sparse = true;
    const auto rp = m.row_ptr().to_vector();
    const auto ci = m.col_idx().to_vector();
    const auto vals = m.values().to_vector();
    out.row_ptr.assign(rp.begin(), rp.end());
    out.col_idx.assign(ci.begin(), ci.end());
    out.values.assign(vals.begin(), vals.end());
    return out;
}
template OpOutput sparse_output(const Csr<float, std::int32_t>&);
template OpOutput sparse_output(const Csr<double, std::int32_t>&);

double csr_bytes(index_t rows, index_t nnz, int value_bytes) {
    return 4.0 * static_cast<double>(rows + 1) + (4.0 + value_bytes) * static_cast<double>(nnz);
}
double dense_bytes(index_t rows, index_t cols) { return 4.0 * static_cast<double>(rows) * static_cast<double>(cols); }

std::unique_ptr<Operation> make_operation(const Executor& exec, const OpConfig& config, const OpInputs& inputs) {
    if (is_tensor_op(config.op)) {
        if (!inputs.tensor) invalid_argument(config.op + ": needs a tensor (a FROSTT .tns file)");
        return make_tensor_op(exec, config, inputs);
    }
    if (!inputs.a) invalid_argument(config.op + ": needs a matrix");
    if (config.op == "spmm") return make_spmm(exec, config, inputs);
    if (config.op == "sddmm") return make_sddmm(exec, config, inputs);
    if (config.op == "fusedmm") return make_fusedmm(exec, config, inputs);
    if (config.op == "spgemm") return make_spgemm(exec, config, inputs);
    if (config.op == "tc") return make_tc(exec, config, inputs);
    throw UsageError("unknown operation '" + config.op + "' (spmm, sddmm, fusedmm, spgemm, tc, mttkrp, ttm)");
}

}  // namespace spk::cli
