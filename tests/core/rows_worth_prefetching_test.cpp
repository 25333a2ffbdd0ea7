// The CPU kernels' choice to prefetch the rows a sparse matrix's columns select (cpu/prefetch.hpp):
// scattered columns (random, power-law) and rows read only a few times (a road network's) are
// prefetched; columns near their rows, each read many times (meshes, bands), are not.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cpu/prefetch.hpp"
#include "spk/generate.hpp"

namespace spk {
namespace {

using detail::cpu::cached_rows;
using detail::cpu::rows_worth_prefetching;

TEST(RowsWorthPrefetching, ScatteredColumnsAreMeshColumnsAreNot) {
    const auto uniform = generate_uniform<float, std::int32_t>(20000, 20000, 8.0, 7);
    const auto rmat = generate_rmat<float, std::int32_t>(14, 8.0, 0.57, 0.19, 0.19, 0.05, 7);
    const auto laplace = generate_amg_matrix<float, std::int32_t>(AmgProblem::laplace3d, 30, 30, 30);
    EXPECT_TRUE(rows_worth_prefetching(uniform.view(), 256));
    EXPECT_TRUE(rows_worth_prefetching(rmat.view(), 256));
    // Neighbours 1, 30 and 900 rows away: within 1024 rows all are near, within 100 most are.
    EXPECT_FALSE(rows_worth_prefetching(laplace.view(), 1024));
    EXPECT_FALSE(rows_worth_prefetching(laplace.view(), 100));
    // Everything is far from a window of no rows but the diagonal.
    EXPECT_TRUE(rows_worth_prefetching(laplace.view(), 0));
}

// Two entries a row, next to the diagonal: near, but each row of the other operand is read twice
// in all, so most reads are first reads.
TEST(RowsWorthPrefetching, RowsReadOnlyAFewTimesAre) {
    const index_t n = 5000;
    std::vector<std::int32_t> ptr{0}, col;
    for (index_t i = 0; i < n; ++i) {
        col.push_back(static_cast<std::int32_t>(i));
        if (i + 1 < n) col.push_back(static_cast<std::int32_t>(i + 1));
        ptr.push_back(static_cast<std::int32_t>(col.size()));
    }
    const Csr<float, std::int32_t> band(Executor::cpu(), n, n, ptr, col, std::vector<float>(col.size(), 1.0f));
    EXPECT_TRUE(rows_worth_prefetching(band.view(), 1024));
}

TEST(RowsWorthPrefetching, EmptyMatricesAreNot) {
    const Csr<float, std::int32_t> no_rows(Executor::cpu(), 0, 5, std::vector<std::int32_t>{0}, {}, {});
    const Csr<float, std::int32_t> no_entries(Executor::cpu(), 4, 5, std::vector<std::int32_t>(5, 0), {}, {});
    EXPECT_FALSE(rows_worth_prefetching(no_rows.view(), 0));
    EXPECT_FALSE(rows_worth_prefetching(no_entries.view(), 0));
}

TEST(RowsWorthPrefetching, CachedRowsScaleWithRowBytes) {
    EXPECT_EQ(cached_rows(128.0), 2048);  // 32 floats a row: 256 KB
    EXPECT_EQ(cached_rows(512.0), 512);   // 128 floats
    EXPECT_EQ(cached_rows(0.0), 262144);  // rows of nothing count as a byte
}

}  // namespace
}  // namespace spk
