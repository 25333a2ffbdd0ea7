// Segment-group primitives on the device against host computations, for every group size.
#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "cuda/common/check.cuh"
#include "cuda/common/segment_group.cuh"
#include "cuda/common/strided_shuffle.cuh"
#include "cuda/common/values.cuh"
#include "support/test_support.hpp"

namespace spk::detail::cuda {
namespace {

template <int R, class T>
__global__ void group_sum_kernel(const T* in, accum_t<T>* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = group_sum<R>(to_accum(in[i]));
}

template <int R>
__global__ void group_max_kernel(const float* in, float* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = group_reduce<R>(in[i], [](float a, float b) { return a > b ? a : b; });
}

// Lane i holds values in[i * U + u], u < U.
template <int R, int U>
__global__ void transpose_sum_kernel(const double* in, double* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = in[i * U + u];
    out[i] = group_transpose_sum<R, U>(v);
}

template <int R>
__global__ void segment_sum_kernel(const double* in, const int* keys, double* out, double* totals) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const double v = segment_reduce<R>(in[i], keys[i], [](double a, double b) { return a + b; });
    out[i] = segment_head<R>(keys[i]) ? v : 0.0;
    group_atomic_add<R>(&totals[keys[i]], keys[i], in[i]);
}

// Thread i writes, for every step, what strided_shfl<G, R> gives it: out[i * (G / R) + step].
template <int G, int R, class T>
__global__ void strided_shfl_kernel(const T* in, T* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const T mine = in[i];
#pragma unroll
    for (int step = 0; step < G / R; ++step) out[i * (G / R) + step] = strided_shfl<G, R>(mine, step);
}

template <class T>
struct DeviceBuffer {
    T* ptr = nullptr;
    explicit DeviceBuffer(std::size_t n) { SPK_CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
    ~DeviceBuffer() { cudaFree(ptr); }
};

class SegmentGroup : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
};

template <int R, class T>
void check_group_sum(std::uint64_t seed) {
    constexpr int n = 256;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<T> host(n);
    for (auto& x : host) x = T(dist(rng));
    using A = accum_t<device_t<T>>;
    DeviceBuffer<T> in(n);
    DeviceBuffer<A> out(n);
    SPK_CUDA_CHECK(cudaMemcpy(in.ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    group_sum_kernel<R, device_t<T>><<<2, 128>>>(reinterpret_cast<const device_t<T>*>(in.ptr), out.ptr);
    SPK_CUDA_CHECK_LAUNCH();
    std::vector<A> result(n);
    SPK_CUDA_CHECK(cudaMemcpy(result.data(), out.ptr, n * sizeof(A), cudaMemcpyDeviceToHost));
    for (int g = 0; g < n / R; ++g) {
        double expected = 0;
        for (int k = 0; k < R; ++k) expected += value_cast<double>(host[g * R + k]);
        for (int k = 0; k < R; ++k) EXPECT_NEAR(result[g * R + k], expected, 1e-5) << "R=" << R << " group " << g;
    }
}

template <int R>
void check_all_types(std::uint64_t seed) {
    check_group_sum<R, float>(seed);
    check_group_sum<R, double>(seed);
    check_group_sum<R, f16>(seed);
    check_group_sum<R, bf16>(seed);
}

TEST_F(SegmentGroup, GroupSumEveryGroupSizeAndType) {
    const auto seed = test::seed("group_sum");
    check_all_types<1>(seed);
    check_all_types<2>(seed);
    check_all_types<4>(seed);
    check_all_types<8>(seed);
    check_all_types<16>(seed);
    check_all_types<32>(seed);
}

template <int R>
void check_group_max(std::uint64_t seed) {
    constexpr int n = 128;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(-5.0f, 5.0f);
    std::vector<float> host(n);
    for (auto& x : host) x = dist(rng);
    DeviceBuffer<float> in(n), out(n);
    SPK_CUDA_CHECK(cudaMemcpy(in.ptr, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    group_max_kernel<R><<<1, n>>>(in.ptr, out.ptr);
    SPK_CUDA_CHECK_LAUNCH();
    std::vector<float> result(n);
    SPK_CUDA_CHECK(cudaMemcpy(result.data(), out.ptr, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int g = 0; g < n / R; ++g) {
        const float expected = *std::max_element(host.begin() + g * R, host.begin() + (g + 1) * R);
        for (int k = 0; k < R; ++k) EXPECT_EQ(result[g * R + k], expected);
    }
}

TEST_F(SegmentGroup, GroupMaxEveryGroupSize) {
    const auto seed = test::seed("group_max");
    check_group_max<1>(seed);
    check_group_max<2>(seed);
    check_group_max<4>(seed);
    check_group_max<8>(seed);
    check_group_max<16>(seed);
    check_group_max<32>(seed);
}

// Every lane ends with the group's total of value u = (lane in group) / (R / U).
template <int R, int U>
void check_transpose_sum(std::uint64_t seed) {
    constexpr int lanes = 128;
    std::mt19937_64 rng(seed + R * 64 + U);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> host(lanes * U);
    for (auto& x : host) x = dist(rng);
    DeviceBuffer<double> in(host.size()), out(lanes);
    SPK_CUDA_CHECK(cudaMemcpy(in.ptr, host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice));
    transpose_sum_kernel<R, U><<<2, lanes / 2>>>(in.ptr, out.ptr);
    SPK_CUDA_CHECK_LAUNCH();
    std::vector<double> result(lanes);
    SPK_CUDA_CHECK(cudaMemcpy(result.data(), out.ptr, lanes * sizeof(double), cudaMemcpyDeviceToHost));
    for (int i = 0; i < lanes; ++i) {
        const int group = i / R, u = i % R / (R / U);
        double expected = 0;
        for (int k = 0; k < R; ++k) expected += host[(group * R + k) * U + u];
        EXPECT_NEAR(result[i], expected, 1e-12) << "R=" << R << " U=" << U << " lane " << i;
    }
}

template <int R>
void check_transpose_sums(std::uint64_t seed) {
    check_transpose_sum<R, 1>(seed);
    if constexpr (R >= 2) check_transpose_sum<R, 2>(seed);
    if constexpr (R >= 4) check_transpose_sum<R, 4>(seed);
    if constexpr (R >= 8) check_transpose_sum<R, 8>(seed);
    if constexpr (R >= 16) check_transpose_sum<R, 16>(seed);
    if constexpr (R >= 32) check_transpose_sum<R, 32>(seed);
}

TEST_F(SegmentGroup, TransposeSumEveryGroupSizeAndWidth) {
    const auto seed = test::seed("group_transpose_sum");
    check_transpose_sums<1>(seed);
    check_transpose_sums<2>(seed);
    check_transpose_sums<4>(seed);
    check_transpose_sums<8>(seed);
    check_transpose_sums<16>(seed);
    check_transpose_sums<32>(seed);
}

// Keys are non-decreasing runs of random length (like the rows of consecutive non-zeros),
// including runs that cross group boundaries and runs of length one.
template <int R>
void check_segments(std::uint64_t seed) {
    constexpr int n = 512;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::uniform_int_distribution<int> run(1, 40);
    std::vector<double> values(n);
    std::vector<int> keys(n);
    int key = 0, left = run(rng);
    for (int i = 0; i < n; ++i) {
        if (left-- == 0) {
            ++key;
            left = run(rng) - 1;
        }
        keys[i] = key;
        values[i] = dist(rng);
    }
    const int num_keys = key + 1;
    DeviceBuffer<double> in(n), out(n), totals(num_keys);
    DeviceBuffer<int> k(n);
    SPK_CUDA_CHECK(cudaMemcpy(in.ptr, values.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    SPK_CUDA_CHECK(cudaMemcpy(k.ptr, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    SPK_CUDA_CHECK(cudaMemset(totals.ptr, 0, num_keys * sizeof(double)));
    segment_sum_kernel<R><<<n / 128, 128>>>(in.ptr, k.ptr, out.ptr, totals.ptr);
    SPK_CUDA_CHECK_LAUNCH();
    std::vector<double> result(n), sums(num_keys);
    SPK_CUDA_CHECK(cudaMemcpy(result.data(), out.ptr, n * sizeof(double), cudaMemcpyDeviceToHost));
    SPK_CUDA_CHECK(cudaMemcpy(sums.data(), totals.ptr, num_keys * sizeof(double), cudaMemcpyDeviceToHost));
    std::vector<double> expected_sums(num_keys, 0.0);
    for (int i = 0; i < n; ++i) expected_sums[keys[i]] += values[i];
    for (int i = 0; i < n; ++i) {
        const bool head = i % R == 0 || keys[i - 1] != keys[i];
        double expected = 0.0;
        if (head)
            for (int j = i; j < n && j / R == i / R && keys[j] == keys[i]; ++j) expected += values[j];
        EXPECT_NEAR(result[i], expected, 1e-12) << "R=" << R << " lane " << i;
    }
    for (int s = 0; s < num_keys; ++s) EXPECT_NEAR(sums[s], expected_sums[s], 1e-12) << "R=" << R << " segment " << s;
}

TEST_F(SegmentGroup, SegmentReduceAndGroupAtomicAddEveryGroupSize) {
    const auto seed = test::seed("segment_reduce");
    check_segments<1>(seed);
    check_segments<2>(seed);
    check_segments<4>(seed);
    check_segments<8>(seed);
    check_segments<16>(seed);
    check_segments<32>(seed);
}

}  // namespace
}  // namespace spk::detail::cuda

namespace spk::detail::cuda {
namespace {

// Lane l of a group of G takes, at step s, the value of the group's lane s * R + l % R.
template <int G, int R, class T>
void check_strided_shfl(std::uint64_t seed) {
    constexpr int n = 256, steps = G / R;
    std::mt19937_64 rng(seed);
    std::vector<T> host(n);
    for (auto& x : host) x = static_cast<T>(rng() % 1000003) - T(500000);  // distinct enough to tell lanes apart
    DeviceBuffer<T> in(n), out(n * steps);
    SPK_CUDA_CHECK(cudaMemcpy(in.ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    strided_shfl_kernel<G, R, T><<<2, 128>>>(in.ptr, out.ptr);
    SPK_CUDA_CHECK_LAUNCH();
    std::vector<T> result(static_cast<std::size_t>(n) * steps);
    SPK_CUDA_CHECK(cudaMemcpy(result.data(), out.ptr, result.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        for (int s = 0; s < steps; ++s) {
            const int source = (i & ~(G - 1)) + s * R + (i % R);
            ASSERT_EQ(result[static_cast<std::size_t>(i) * steps + s], host[source]) << "G=" << G << " R=" << R << " lane " << i << " step " << s;
        }
}

template <int G, class T>
void check_strided_shfl_all_r(std::uint64_t seed) {
    check_strided_shfl<G, 1, T>(seed);
    if constexpr (G >= 2) check_strided_shfl<G, 2, T>(seed + 1);
    if constexpr (G >= 4) check_strided_shfl<G, 4, T>(seed + 2);
    if constexpr (G >= 8) check_strided_shfl<G, 8, T>(seed + 3);
    if constexpr (G >= 16) check_strided_shfl<G, 16, T>(seed + 4);
    if constexpr (G >= 32) check_strided_shfl<G, 32, T>(seed + 5);
}

TEST_F(SegmentGroup, StridedShuffleEveryGroupShapeAndWidth) {
    const auto s = test::seed("segment_group_strided_shfl");
    check_strided_shfl_all_r<1, int>(s);
    check_strided_shfl_all_r<2, int>(s);
    check_strided_shfl_all_r<4, float>(s);
    check_strided_shfl_all_r<8, long long>(s);
    check_strided_shfl_all_r<16, double>(s);
    check_strided_shfl_all_r<32, int>(s);
    check_strided_shfl_all_r<32, double>(s);
}

}  // namespace
}  // namespace spk::detail::cuda
