// SpMM on every shared real matrix: each backend under test against the reference at n = 32,
// for sum (f32) and max with arg indices (f32), and sum transposed (f64).
#include <filesystem>

#include "ops/spmm_test_support.hpp"
#include "spk/io.hpp"

namespace spk {
namespace {

class SpmmSharedMatrix : public ::testing::TestWithParam<std::string> {};

SpmmOptions with_reduce(Reduce reduce, bool transpose_a = false) {
    SpmmOptions o;
    o.reduce = reduce;
    o.transpose_a = transpose_a;
    return o;
}

TEST_P(SpmmSharedMatrix, BackendsMatchReference) {
    const std::uint64_t seed = test::seed("spmm_shared_" + std::filesystem::path(GetParam()).filename().string());
    const auto a64 = read_matrix_market<double, std::int32_t>(GetParam());
    const auto a = convert_values<float>(a64.view());
    const auto b = test::random_strided<float>(a.cols(), 32, Layout::row_major, 0, seed);
    test::expect_spmm_matches_reference(a, b, with_reduce(Reduce::sum));
    test::expect_spmm_matches_reference(a, b, with_reduce(Reduce::max));

    const auto b64 = test::random_strided<double>(a64.rows(), 32, Layout::col_major, 0, seed + 1);
    test::expect_spmm_matches_reference(a64, b64, with_reduce(Reduce::sum, true));
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = std::filesystem::path(info.param).filename().string();
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Files, SpmmSharedMatrix, ::testing::ValuesIn(test::shared_matrix_files()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SpmmSharedMatrix);

}  // namespace
}  // namespace spk
