// The SpMM plan's analysis kernel (src/cuda/spmm/analysis.cuh) on the device: its counts, and the
// row bins it writes: every row once, long rows at the back, and each block's short rows together
// in the short bin, shortest first (rows of one length in row order).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "cuda/common/check.cuh"
#include "cuda/spmm/analysis.cuh"
#include "support/test_support.hpp"

namespace spk::detail::cuda {
namespace {

template <class T>
struct DeviceBuffer {
    T* ptr = nullptr;
    explicit DeviceBuffer(std::size_t n) {
        SPK_CUDA_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T)));
        SPK_CUDA_CHECK(cudaMemset(ptr, 0, std::max<std::size_t>(n, 1) * sizeof(T)));
    }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

class SpmmAnalysis : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
    }
};

// Row lengths with every kind the bins care about: empty rows, lengths past the sort's key range
// (sort_last_key), rows past the threshold, and runs of equal lengths (the order among those).
std::vector<long long> row_lengths(long long rows, long long threshold, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<long long> len(static_cast<std::size_t>(rows));
    for (auto& l : len) {
        const auto kind = rng() % 10;
        l = kind < 3 ? 0 : kind < 7 ? static_cast<long long>(rng() % 8) : kind < 9 ? static_cast<long long>(rng() % threshold) + 1
                                                                                  : threshold + 1 + static_cast<long long>(rng() % 50);
    }
    return len;
}

template <class I>
void check_bins(long long rows, long long threshold, std::uint64_t seed) {
    SCOPED_TRACE("rows " + std::to_string(rows) + ", threshold " + std::to_string(threshold) + ", seed " + std::to_string(seed));
    const std::vector<long long> len = row_lengths(rows, threshold, seed);
    std::vector<I> row_ptr(static_cast<std::size_t>(rows) + 1, 0);
    for (long long i = 0; i < rows; ++i) row_ptr[i + 1] = row_ptr[i] + static_cast<I>(len[i]);

    DeviceBuffer<I> d_row_ptr(row_ptr.size()), d_lists(static_cast<std::size_t>(rows));
    DeviceBuffer<unsigned long long> counters(AnalysisSlots::count + 1), totals(AnalysisSlots::count);
    SPK_CUDA_CHECK(cudaMemcpy(d_row_ptr.ptr, row_ptr.data(), row_ptr.size() * sizeof(I), cudaMemcpyHostToDevice));
    const auto blocks = static_cast<unsigned>((rows + 255) / 256);
    analyse_rows<I><<<blocks, 256>>>(d_row_ptr.ptr, rows, threshold, counters.ptr, totals.ptr, d_lists.ptr, PieceLists<I>{});
    SPK_CUDA_CHECK_LAUNCH();
    std::vector<I> lists(static_cast<std::size_t>(rows));
    std::vector<unsigned long long> counts(AnalysisSlots::count);
    SPK_CUDA_CHECK(cudaMemcpy(lists.data(), d_lists.ptr, lists.size() * sizeof(I), cudaMemcpyDeviceToHost));
    SPK_CUDA_CHECK(cudaMemcpy(counts.data(), totals.ptr, counts.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));

    long long num_long = 0, longest = 0;
    std::vector<unsigned long long> histogram(length_buckets, 0);
    for (const long long l : len) {
        num_long += l > threshold;
        longest = std::max(longest, l);
        int bits = 0;
        while ((1LL << bits) <= l) ++bits;
        ++histogram[static_cast<std::size_t>(std::min(bits, length_buckets - 1))];
    }
    EXPECT_EQ(counts[AnalysisSlots::num_long], static_cast<unsigned long long>(num_long));
    EXPECT_EQ(counts[AnalysisSlots::num_short], static_cast<unsigned long long>(rows - num_long));
    EXPECT_EQ(counts[AnalysisSlots::max_row], static_cast<unsigned long long>(longest));
    for (int k = 0; k < length_buckets; ++k) EXPECT_EQ(counts[AnalysisSlots::histogram + k], histogram[k]) << "bucket " << k;

    // Every row once; the long ones at the back.
    std::vector<int> seen(static_cast<std::size_t>(rows), 0);
    for (const I row : lists) {
        ASSERT_GE(row, 0);
        ASSERT_LT(row, rows);
        ++seen[static_cast<std::size_t>(row)];
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
    const long long num_short = rows - num_long;
    for (long long k = 0; k < rows; ++k) EXPECT_EQ(len[lists[k]] > threshold, k >= num_short) << "list entry " << k;

    // Each block's short rows: one run of the short bin, in (capped length, row) order.
    std::map<long long, std::vector<long long>> runs;  // block -> positions in the bin
    for (long long k = 0; k < num_short; ++k) runs[static_cast<long long>(lists[k]) / 256].push_back(k);
    for (const auto& [block, at] : runs) {
        EXPECT_EQ(at.back() - at.front() + 1, static_cast<long long>(at.size())) << "block " << block << "'s short rows are not together";
        std::vector<long long> expected;
        for (long long i = block * 256; i < std::min(rows, (block + 1) * 256); ++i)
            if (len[i] <= threshold) expected.push_back(i);
        const auto key = [&](long long i) { return std::min<long long>(len[i], sort_last_key - 1); };
        std::stable_sort(expected.begin(), expected.end(), [&](long long x, long long y) { return key(x) < key(y); });
        std::vector<long long> got;
        for (const long long k : at) got.push_back(lists[k]);
        EXPECT_EQ(got, expected) << "block " << block;
    }
}

TEST_F(SpmmAnalysis, BinsHoldEveryRowOnceWithEachBlocksShortRowsShortestFirst) {
    const std::uint64_t seed = test::seed("SpmmAnalysis");
    check_bins<std::int32_t>(5000, 64, seed);
    check_bins<std::int32_t>(1000, 700, seed + 1);  // short rows past the sort's key range
    check_bins<std::int64_t>(3001, 100, seed + 2);
    check_bins<std::int32_t>(7, 4, seed + 3);  // one block, mostly idle threads
}

}  // namespace
}  // namespace spk::detail::cuda
