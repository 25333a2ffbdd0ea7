// Executors and arrays: allocation, copies between spaces, errors for missing devices.
#include "core/cuda_runtime.hpp"
#include "support/test_support.hpp"

namespace spk {
namespace {

TEST(Executor, CpuThreadsDefaultToAllAndRejectNegative) {
    EXPECT_GE(Executor::cpu().threads(), 1);
    EXPECT_EQ(Executor::cpu(3).threads(), 3);
    try {
        (void)Executor::cpu(-1);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find("threads"), std::string::npos);
    }
}

TEST(Executor, CudaWithoutDeviceIsAClearError) {
    if (test::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
    try {
        (void)Executor::cuda(0);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        const bool built = detail::cuda::built_with_cuda();
        EXPECT_EQ(e.kind(), built ? ErrorKind::Device : ErrorKind::Unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find(built ? "does not exist" : "without CUDA"), std::string::npos) << e.what();
    }
}

TEST(Array, HostCopiesAndMoves) {
    const Executor cpu = Executor::cpu();
    Array<double> a(cpu, std::vector<double>{1.0, 2.0, 3.0});
    Array<double> b = a.to(cpu);
    EXPECT_EQ(b.to_vector(), (std::vector<double>{1.0, 2.0, 3.0}));
    Array<double> c = std::move(b);
    EXPECT_EQ(c.size(), 3u);
    EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from arrays are empty by contract
    Array<double> empty(cpu, 0);
    EXPECT_TRUE(empty.empty());
    EXPECT_EQ(empty.data(), nullptr);
}

TEST(Array, HostAllocationFailureIsOutOfMemory) {
    try {
        Array<double> huge(Executor::cpu(), std::size_t{1} << 61);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory);
    }
}

}  // namespace
}  // namespace spk
