// Triangle counting for the command line: the undirected simple graph under A.
#include "operation.hpp"
#include "spk/error.hpp"

namespace spk::cli {

namespace {

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
    double bytes() const override { return csr_bytes(a_.rows(), a_.nnz()) - 4.0 * static_cast<double>(a_.nnz()); }  // pattern only

private:
    Executor exec_;
    Matrix a_;
    std::uint64_t count_ = 0;
};

}  // namespace

std::unique_ptr<Operation> make_tc(const Executor& exec, const OpConfig&, const OpInputs& inputs) {
    return std::make_unique<TcOp>(exec, *inputs.a);
}

}  // namespace spk::cli
