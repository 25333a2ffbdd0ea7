// Triangle counting for the command line: the undirected simple graph under A.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "operation.hpp"
#include "spk/error.hpp"

namespace spk::cli {

namespace {

// Distinct undirected edges {r, c}, r != c, of the pattern (host memory): what triangle counting walks.
double undirected_edges(const Matrix& host) {
    std::vector<std::uint64_t> pairs;
    pairs.reserve(static_cast<std::size_t>(host.nnz()));
    for (index_t r = 0; r < host.rows(); ++r)
        for (index_t q = host.row_ptr()[r]; q < host.row_ptr()[r + 1]; ++q) {
            const auto c = static_cast<std::uint64_t>(host.col_idx()[q]), row = static_cast<std::uint64_t>(r);
            if (c != row) pairs.push_back(std::min(row, c) << 32 | std::max(row, c));
        }
    std::sort(pairs.begin(), pairs.end());
    return static_cast<double>(std::unique(pairs.begin(), pairs.end()) - pairs.begin());
}

class TcOp final : public Operation {
public:
    TcOp(const Executor& exec, const Matrix& a) : exec_(exec), a_(a.to(exec)) {}

    std::string describe() const override { return "tc"; }
    void run() override {
        count_ = triangle_count<float, std::int32_t>(exec_, a_.view());
        exec_.synchronize();
    }
    OpOutput output() const override {
        OpOutput out;
        out.rows = out.cols = 1;
        out.count = count_;
        out.values = {static_cast<double>(count_)};
        return out;
    }
    void save(const std::string& path) const override {
        invalid_argument("-o '" + path + "': tc has a single number as its result; it is printed, not written");
    }
    double flops() const override { return 0; }
    double edges() const override {  // counted on first use: only bench asks, after its timed runs
        if (edges_ < 0) edges_ = undirected_edges(a_.to(Executor::cpu()));
        return edges_;
    }
    double bytes() const override { return csr_bytes(a_.rows(), a_.nnz()) - 4.0 * static_cast<double>(a_.nnz()); }  // pattern only

private:
    Executor exec_;
    Matrix a_;
    std::uint64_t count_ = 0;
    mutable double edges_ = -1;  // not yet counted
};

}  // namespace

std::unique_ptr<Operation> make_tc(const Executor& exec, const OpConfig&, const OpInputs& inputs) {
    return std::make_unique<TcOp>(exec, *inputs.a);
}

}  // namespace spk::cli
