// MTTKRP on the two real tensors in the shared folder: every backend vs the reference in every
// mode at R = 16, and the known totals (all-ones factors sum the tensor's values).
#include <cmath>
#include <filesystem>

#include "ops/tensor_test_inputs.hpp"
#include "spk/io.hpp"
#include "spk/tensor.hpp"
#include "support/test_support.hpp"

namespace spk::test {
namespace {

struct RealTensor {
    const char* file;
    std::array<index_t, 3> dims;
    index_t nnz;
    double value_sum;
};

// From the folder's README: collegemsg is sender x receiver x day with message counts summing
// to 59835; wn18rr is head x relation x tail with binary entries.
const RealTensor kTensors[] = {{"collegemsg.tns", {1899, 1899, 194}, 33837, 59835.0},
                               {"wn18rr.tns.gz", {40943, 11, 40943}, 93003, 93003.0}};

void PrintTo(const RealTensor& t, std::ostream* os) { *os << t.file; }

class MttkrpOnRealTensors : public ::testing::TestWithParam<RealTensor> {};

template <class V>
CooTensor3<V, std::int32_t> load(const RealTensor& t) {
    const std::string path = matrix_dir() + "/" + t.file;
    if (!std::filesystem::exists(path)) return {};
    return read_frostt<V, std::int32_t>(path);
}

TEST_P(MttkrpOnRealTensors, BackendsMatchReferenceInEveryMode) {
    const RealTensor& t = GetParam();
    const auto x = load<double>(t);
    if (x.nnz() == 0) GTEST_SKIP() << t.file << " not found in " << matrix_dir();
    ASSERT_EQ(x.dims, t.dims);
    ASSERT_EQ(x.nnz(), t.nnz);
    const index_t rank = 16;
    const auto factors = random_factors<double>(x.dims, rank, seed(std::string("mttkrp ") + t.file));
    const MttkrpPlan<double, std::int32_t> reference(Executor::reference(), x);
    EXPECT_EQ(reference.nnz(), t.nnz);  // no repeated coordinates in these files
    for (int mode = 0; mode < 3; ++mode) {
        Dense<double> expected(Executor::cpu(), x.dims[static_cast<std::size_t>(mode)], rank);
        reference.run(mode, views(factors), expected.view());
        const auto want = to_doubles(expected);
        double scale = 1.0;
        for (double e : want) scale = std::max(scale, std::abs(e));
        for (const Executor& exec : host_backends()) {
            SCOPED_TRACE(exec.name() + ", mode " + std::to_string(mode));
            const MttkrpPlan<double, std::int32_t> plan(exec, x, {mode});
            Dense<double> out(Executor::cpu(), x.dims[static_cast<std::size_t>(mode)], rank);
            plan.run(mode, views(factors), out.view());
            EXPECT_TRUE(all_close(to_doubles(out), want, 1e-10, 1e-10 * scale, rank));
        }
    }
}

TEST_P(MttkrpOnRealTensors, AllOnesFactorsSumTheValues) {
    const RealTensor& t = GetParam();
    const auto x = load<float>(t);
    if (x.nnz() == 0) GTEST_SKIP() << t.file << " not found in " << matrix_dir();
    const index_t rank = 3;
    std::array<Dense<float>, 3> ones;
    for (std::size_t m = 0; m < 3; ++m)
        ones[m] = Dense<float>(Executor::cpu(), x.dims[m], rank, std::vector<float>(static_cast<std::size_t>(x.dims[m] * rank), 1.0f));
    const MttkrpPlan<float, std::int32_t> plan(Executor::cpu(2), x);
    for (int mode = 0; mode < 3; ++mode) {
        Dense<float> out(Executor::cpu(), x.dims[static_cast<std::size_t>(mode)], rank);
        plan.run(mode, views(ones), out.view());
        const auto got = to_doubles(out);
        for (index_t r = 0; r < rank; ++r) {
            double total = 0;
            for (index_t i = 0; i < out.rows(); ++i) total += got[static_cast<std::size_t>(i * rank + r)];
            EXPECT_EQ(total, t.value_sum) << "mode " << mode << ", column " << r;  // integer-valued, exact in float per row
        }
    }
}

INSTANTIATE_TEST_SUITE_P(SharedTensors, MttkrpOnRealTensors, ::testing::ValuesIn(kTensors),
                         [](const auto& info) { return std::string(info.param.file).substr(0, std::string(info.param.file).find('.')); });

}  // namespace
}  // namespace spk::test
