// Operations run on their executor's device whatever device the caller has made current, and
// leave the caller's current device as they found it (a framework's thread, another executor).
// With one device only the second half applies; the first needs two.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "spk/spk.hpp"
#include "support/test_support.hpp"

namespace spk {
namespace {

int current_device() {
    int device = -1;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    return device;
}

// SpMM (a plan made and run, its configuration read), SDDMM, FusedMM, SpGEMM and triangle
// counting on `device` while the caller keeps `caller` current; each result against the reference.
void run_everything_on(int device, int caller) {
    ASSERT_EQ(cudaSetDevice(caller), cudaSuccess);
    const std::uint64_t seed = test::seed("cuda_device_scope");
    const Executor gpu = Executor::cuda(device), ref = Executor::reference();
    const auto a_host = test::random_csr<float, std::int32_t>(3000, 3000, 8.0, seed);
    const index_t n = 32;
    const Dense<float> b_host = test::random_dense<float>(a_host.cols(), n, seed + 1);

    const auto a = a_host.to(gpu);
    const auto b = b_host.to(gpu);
    EXPECT_EQ(current_device(), caller) << "after copies to device " << device;

    Dense<float> c(gpu, a_host.rows(), n), c_ref(Executor::cpu(), a_host.rows(), n);
    {
        const SpmmPlan<float, std::int32_t> plan(gpu, a.view(), n, SpmmOptions{.config = "rb.g16.r2.v4+rb.g32.r4.v4@16:split"});
        EXPECT_EQ(current_device(), caller) << "after the SpMM plan";
        plan.run(b.cview(), c.view());
        EXPECT_EQ(current_device(), caller) << "after the SpMM run";
        EXPECT_FALSE(plan.config().empty());
        const SpmmPlan<float, std::int32_t> selected(gpu, a.view(), n);
        EXPECT_FALSE(selected.config().empty());  // completes the plan: may launch its analysis again
        EXPECT_EQ(current_device(), caller) << "after the selector";
    }
    spmm(ref, a_host.view(), b_host.cview(), c_ref.view());
    EXPECT_TRUE(test::all_close(test::to_doubles(c.to(Executor::cpu())), test::to_doubles(c_ref), test::rtol_for<float>(), 1e-5, n));

    Dense<float> e(gpu, a_host.nnz(), 1), e_ref(Executor::cpu(), a_host.nnz(), 1);
    sddmm(gpu, a.view(), c.cview(), b.cview(), e.view());
    EXPECT_EQ(current_device(), caller) << "after SDDMM";
    sddmm(ref, a_host.view(), c.to(Executor::cpu()).cview(), b_host.cview(), e_ref.view());
    EXPECT_TRUE(test::all_close(test::to_doubles(e.to(Executor::cpu())), test::to_doubles(e_ref), 1e-4, 1e-3, 1));

    const auto square = spgemm(gpu, a.view(), a.view());
    EXPECT_EQ(current_device(), caller) << "after SpGEMM";
    const auto square_ref = spgemm(ref, a_host.view(), a_host.view());
    EXPECT_EQ(square.nnz(), square_ref.nnz());
    EXPECT_EQ(triangle_count(gpu, a.view()), triangle_count(ref, a_host.view()));
    EXPECT_EQ(current_device(), caller) << "after triangle counting";
    gpu.synchronize();
    EXPECT_EQ(current_device(), caller) << "after synchronize";
}

class CudaDeviceScope : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
    void TearDown() override { (void)cudaSetDevice(0); }
};

TEST_F(CudaDeviceScope, OperationsLeaveTheCallersDeviceCurrent) { run_everything_on(0, 0); }

TEST_F(CudaDeviceScope, OperationsRunOnTheirExecutorsDevice) {
    int devices = 0;
    ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
    if (devices < 2) GTEST_SKIP() << "one CUDA device";
    run_everything_on(1, 0);
    run_everything_on(0, 1);
    EXPECT_EQ(current_device(), 1);
}

}  // namespace
}  // namespace spk
