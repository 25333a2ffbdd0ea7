#pragma once
// Shared helpers for spk's tests: seeds, random inputs, executors, comparisons, real matrices.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "spk/spk.hpp"

namespace spk::test {

// A fresh seed per call (or SPK_SEED from the environment to replay), printed so that a
// failure can be reproduced.
std::uint64_t seed(const std::string& what);

// Folder of the shared real matrices: $SPK_MATRICES, else the CMake default.
std::string matrix_dir();
// The .mtx / .mtx.gz files there (sorted by name); empty if the folder is missing.
std::vector<std::string> shared_matrix_files();

// The executors a backend test runs on: cpu(1), cpu(2), and cuda(0) when a device exists.
std::vector<Executor> backends_under_test();
bool cuda_available();

// Random CSR with about `per_row` entries a row (each row's length drawn from [0, 2 per_row]),
// sorted unique columns, values uniform in [-1, 1] (never all zero). Some rows come out empty.
template <class V, class I> Csr<V, I> random_csr(index_t rows, index_t cols, double per_row, std::uint64_t seed);
template <class V> Dense<V> random_dense(index_t rows, index_t cols, std::uint64_t seed, Layout layout = Layout::row_major);

// Host copies as doubles (row-major), for comparison.
template <class V> std::vector<double> to_doubles(const Dense<V>& d);
template <class V> std::vector<double> to_doubles(DenseView<const V> d);

// Element-wise |a - e| <= atol + rtol * |e|, reporting the first few mismatches with position.
::testing::AssertionResult all_close(const std::vector<double>& actual, const std::vector<double>& expected, double rtol, double atol,
                                     index_t cols = 1);

// Tolerances by value type for results accumulated over k products.
template <class V> double rtol_for();

} // namespace spk::test
