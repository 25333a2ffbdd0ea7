// The CPU kernels' choice to prefetch the rows a sparse matrix's columns select (cpu/prefetch.hpp):
// scattered columns (random, power-law) prefetch, columns near their rows (meshes, bands) do not.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cpu/prefetch.hpp"
#include "spk/generate.hpp"

namespace spk {
namespace {

using detail::cpu::cached_rows;
using detail::cpu::scattered_columns;

TEST(ScatteredColumns, RandomColumnsAreScatteredMeshColumnsAreNot) {
    const auto uniform = generate_uniform<float, std::int32_t>(20000, 20000, 8.0, 7);
    const auto rmat = generate_rmat<float, std::int32_t>(14, 8.0, 0.57, 0.19, 0.19, 0.05, 7);
    const auto laplace = generate_amg_matrix<float, std::int32_t>(AmgProblem::laplace3d, 30, 30, 30);
    EXPECT_TRUE(scattered_columns(uniform.view(), 256));
    EXPECT_TRUE(scattered_columns(rmat.view(), 256));
    // Neighbours 1, 30 and 900 rows away: within 1024 rows all are near, within 100 most are.
    EXPECT_FALSE(scattered_columns(laplace.view(), 1024));
    EXPECT_FALSE(scattered_columns(laplace.view(), 100));
    // Everything is far from a window of no rows but the diagonal.
    EXPECT_TRUE(scattered_columns(laplace.view(), 0));
}

TEST(ScatteredColumns, EmptyMatricesAreNot) {
    const Csr<float, std::int32_t> no_rows(Executor::cpu(), 0, 5, std::vector<std::int32_t>{0}, {}, {});
    const Csr<float, std::int32_t> no_entries(Executor::cpu(), 4, 5, std::vector<std::int32_t>(5, 0), {}, {});
    EXPECT_FALSE(scattered_columns(no_rows.view(), 0));
    EXPECT_FALSE(scattered_columns(no_entries.view(), 0));
}

TEST(ScatteredColumns, CachedRowsScaleWithRowBytes) {
    EXPECT_EQ(cached_rows(128.0), 2048);   // 32 floats a row: 256 KB
    EXPECT_EQ(cached_rows(512.0), 512);    // 128 floats
    EXPECT_EQ(cached_rows(0.0), 262144);   // rows of nothing count as a byte
}

}  // namespace
}  // namespace spk
