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
// cpu(1) and cpu(2): for tests whose inputs live in host memory (tests/cuda/ covers the device).
std::vector<Executor> host_backends();
bool cuda_available();

// Random CSR with about `per_row` entries a row (each row's length drawn from [0, 2 per_row]),
// sorted unique columns, values uniform in [-1, 1] (never all zero). Some rows come out empty.
template <class V, class I>
Csr<V, I> random_csr(index_t rows, index_t cols, double per_row, std::uint64_t seed);
template <class V>
Dense<V> random_dense(index_t rows, index_t cols, std::uint64_t seed, Layout layout = Layout::row_major);

// Host copies as doubles (row-major), for comparison.
template <class V>
std::vector<double> to_doubles(const Dense<V>& d);
template <class V>
std::vector<double> to_doubles(DenseView<const V> d);

// Element-wise |a - e| <= atol + rtol * |e|, reporting the first few mismatches with position.
::testing::AssertionResult all_close(const std::vector<double>& actual, const std::vector<double>& expected, double rtol, double atol,
                                     index_t cols = 1);

// Tolerances by value type for results accumulated over k products.
template <class V>
double rtol_for();

// A (value, index) type pair for typed tests, and the pairs the backend tests run over.
template <class V, class I>
struct ValueIndex {
    using value = V;
    using index = I;
};
using BackendTypes = ::testing::Types<ValueIndex<float, std::int32_t>, ValueIndex<float, std::int64_t>, ValueIndex<double, std::int32_t>,
                                      ValueIndex<f16, std::int32_t>, ValueIndex<bf16, std::int64_t>>;
using FloatBackendTypes = ::testing::Types<ValueIndex<float, std::int32_t>, ValueIndex<float, std::int64_t>,
                                           ValueIndex<double, std::int32_t>, ValueIndex<double, std::int64_t>>;

// f must throw spk::Error of the given kind whose message contains the fragment (or every one of
// the fragments): the tests of bad input check both what went wrong and which argument it names.
template <class F>
void expect_error_all(F&& f, ErrorKind kind, const std::vector<std::string>& fragments) {
    try {
        f();
        ADD_FAILURE() << "no error thrown, expected " << to_string(kind) << " mentioning '" << fragments.front() << "'";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        for (const auto& w : fragments) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << "'" << w << "' not in: " << e.what();
    }
}
template <class F>
void expect_error(F&& f, ErrorKind kind, const std::string& fragment) {
    expect_error_all(std::forward<F>(f), kind, std::vector<std::string>{fragment});
}

}  // namespace spk::test
