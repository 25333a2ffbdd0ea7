// warp_bitonic_sort (src/cuda/spgemm/warp_sort.cuh) against std::sort: 32 * E words a warp, for
// each E the SpGEMM kernels use and both word types, on random words with many repeats.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "cuda/spgemm/warp_sort.cuh"
#include "support/test_support.hpp"

namespace spk::detail::cuda::spgemm {
namespace {

// Each warp sorts its 32 * E words of in (word t of lane l read from place t * 32 + l, so that
// the placement differs from the sorted one) and writes place l * E + t of its slice of out.
template <int E, class W>
__global__ void sort_warps(const W* in, W* out) {
    const int lane = static_cast<int>(threadIdx.x & 31);
    const long long base = static_cast<long long>((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * 32 * E;
    W word[E];
#pragma unroll
    for (int t = 0; t < E; ++t) word[t] = in[base + t * 32 + lane];
    warp_bitonic_sort(word);
#pragma unroll
    for (int t = 0; t < E; ++t) out[base + lane * E + t] = word[t];
}

template <int E, class W>
void expect_sorted_like_std(std::uint64_t seed) {
    SCOPED_TRACE("E = " + std::to_string(E) + ", " + std::to_string(8 * sizeof(W)) + "-bit words");
    constexpr int warps = 64, n = warps * 32 * E;
    std::mt19937_64 rng(seed);
    std::vector<W> host(n);
    for (int i = 0; i < n; ++i) {  // a third of the words from a small range (repeats), the rest anywhere, some the largest
        const std::uint64_t r = rng();
        host[static_cast<std::size_t>(i)] = i % 3 == 0 ? static_cast<W>(r % 7) : i % 11 == 0 ? ~W(0) : static_cast<W>(r);
    }
    W* in = nullptr;
    W* out = nullptr;
    ASSERT_EQ(cudaMalloc(&in, n * sizeof(W)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, n * sizeof(W)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(in, host.data(), n * sizeof(W), cudaMemcpyHostToDevice), cudaSuccess);
    sort_warps<E, W><<<warps / 4, 128>>>(in, out);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<W> got(n);
    ASSERT_EQ(cudaMemcpy(got.data(), out, n * sizeof(W), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaFree(in), cudaSuccess);
    EXPECT_EQ(cudaFree(out), cudaSuccess);
    for (int w = 0; w < warps; ++w) {
        const auto first = host.begin() + static_cast<std::ptrdiff_t>(w) * 32 * E;
        std::vector<W> want(first, first + 32 * E);
        std::sort(want.begin(), want.end());
        const auto got_first = got.begin() + static_cast<std::ptrdiff_t>(w) * 32 * E;
        ASSERT_TRUE(std::equal(want.begin(), want.end(), got_first)) << "warp " << w;
    }
}

class WarpSort : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
};

TEST_F(WarpSort, MatchesStdSortForEveryWidthAndWordType) {
    const std::uint64_t seed = test::seed("cuda_warp_sort");
    expect_sorted_like_std<1, unsigned>(seed);
    expect_sorted_like_std<2, unsigned>(seed + 1);
    expect_sorted_like_std<4, unsigned>(seed + 2);
    expect_sorted_like_std<8, unsigned>(seed + 3);
    expect_sorted_like_std<4, unsigned long long>(seed + 4);
    expect_sorted_like_std<8, unsigned long long>(seed + 5);
}

}  // namespace
}  // namespace spk::detail::cuda::spgemm
