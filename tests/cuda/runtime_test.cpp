// The CUDA runtime services: device properties read once, stream-ordered workspaces from the
// pool, and allocation failures that arrive as OutOfMemory with the pool still usable after.
#include <vector>

#include "core/cuda_runtime.hpp"
#include "cuda/common/workspace.hpp"
#include "support/test_support.hpp"

namespace spk {
namespace {

class CudaRuntime : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
};

TEST_F(CudaRuntime, PropertiesAreReadOnceAndMakeSense) {
    const auto& p = detail::cuda::device_properties(0);
    EXPECT_EQ(&p, &detail::cuda::device_properties(0));  // the same cached record
    EXPECT_FALSE(p.name.empty());
    EXPECT_GT(p.sm_count, 0);
    EXPECT_GT(p.l2_bytes, 0u);
    EXPECT_GE(p.shared_per_block_optin, 48u * 1024);
    EXPECT_GT(p.global_bytes, p.l2_bytes);
    EXPECT_EQ(detail::cuda::device_name(0), p.name);
}

TEST_F(CudaRuntime, WorkspacesHoldDataAndReturnToThePool) {
    const Executor gpu = Executor::cuda(0);
    std::vector<int> host(1000);
    for (int k = 0; k < 1000; ++k) host[static_cast<std::size_t>(k)] = 3 * k + 1;
    for (int round = 0; round < 3; ++round) {  // freed memory is handed out again
        detail::cuda::Workspace<int> w(gpu, host.size());
        ASSERT_NE(w.data(), nullptr);
        copy_bytes(w.data(), MemorySpace::cuda(0), host.data(), MemorySpace::host(), host.size() * sizeof(int));
        std::vector<int> back(host.size(), 0);
        gpu.synchronize();
        copy_bytes(back.data(), MemorySpace::host(), w.data(), MemorySpace::cuda(0), back.size() * sizeof(int));
        EXPECT_EQ(back, host);
    }
    detail::cuda::Workspace<int> moved(gpu, 10);
    detail::cuda::Workspace<int> target = std::move(moved);
    EXPECT_EQ(target.size(), 10u);
    EXPECT_TRUE(moved.empty());  // moved-from workspaces are empty
    EXPECT_TRUE(detail::cuda::Workspace<int>(gpu, 0).empty());
}

TEST_F(CudaRuntime, ImpossibleRequestsAreOutOfMemoryAndLeaveThePoolUsable) {
    const Executor gpu = Executor::cuda(0);
    const std::size_t huge = std::size_t{1} << 50;  // a petabyte
    test::expect_error([&] { detail::cuda::Workspace<char> w(gpu, huge); }, ErrorKind::OutOfMemory, "cudaMallocFromPoolAsync");
    test::expect_error([&] { Array<char> a(gpu, huge); }, ErrorKind::OutOfMemory, "cudaMalloc");
    detail::cuda::Workspace<double> fine(gpu, 1 << 20);
    EXPECT_NE(fine.data(), nullptr);
    gpu.synchronize();
}

}  // namespace
}  // namespace spk
