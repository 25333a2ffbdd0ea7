#include "support/test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/cuda_runtime.hpp"

namespace spk::test {

std::uint64_t seed(const std::string& what) {
    std::uint64_t s;
    if (const char* env = std::getenv("SPK_SEED"))
        s = std::strtoull(env, nullptr, 10);
    else
        s = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    ::testing::Test::RecordProperty("seed_" + what, std::to_string(s));
    std::printf("[ seed     ] %s: SPK_SEED=%llu\n", what.c_str(), static_cast<unsigned long long>(s));
    return s;
}

std::string matrix_dir() {
    if (const char* env = std::getenv("SPK_MATRICES")) return env;
    return SPK_DEFAULT_MATRIX_DIR;
}

std::vector<std::string> shared_matrix_files() {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(matrix_dir(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.ends_with(".mtx") || name.ends_with(".mtx.gz")) files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

bool cuda_available() { return detail::cuda::built_with_cuda() && detail::cuda::device_count() > 0; }

std::vector<Executor> host_backends() { return {Executor::cpu(1), Executor::cpu(2)}; }

std::vector<Executor> backends_under_test() {
    std::vector<Executor> out = host_backends();
    if (cuda_available()) out.push_back(Executor::cuda(0));
    return out;
}

template <class V, class I>
Csr<V, I> random_csr(index_t rows, index_t cols, double per_row, std::uint64_t s) {
    std::mt19937_64 rng(s);
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    const index_t max_len = std::min<index_t>(cols, static_cast<index_t>(2 * per_row) + 1);
    std::uniform_int_distribution<index_t> len_dist(0, std::max<index_t>(max_len, 0));
    std::uniform_int_distribution<index_t> col_dist(0, std::max<index_t>(cols - 1, 0));
    std::vector<I> ptr(1, 0), col;
    std::vector<V> values;
    std::vector<index_t> row_cols;
    for (index_t i = 0; i < rows; ++i) {
        const index_t len = cols == 0 ? 0 : std::min(len_dist(rng), cols);
        row_cols.clear();
        while (static_cast<index_t>(row_cols.size()) < len) {
            row_cols.push_back(col_dist(rng));
            std::sort(row_cols.begin(), row_cols.end());
            row_cols.erase(std::unique(row_cols.begin(), row_cols.end()), row_cols.end());
        }
        for (index_t c : row_cols) {
            col.push_back(static_cast<I>(c));
            double v = val(rng);
            if (std::abs(v) < 1e-3) v = 0.5;
            values.push_back(value_cast<V>(v));
        }
        ptr.push_back(static_cast<I>(col.size()));
    }
    return Csr<V, I>(Executor::cpu(), rows, cols, ptr, col, values, true);
}

template <class V>
Dense<V> random_dense(index_t rows, index_t cols, std::uint64_t s, Layout layout) {
    std::mt19937_64 rng(s);
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    std::vector<V> host(static_cast<std::size_t>(rows * cols));
    for (auto& x : host) x = value_cast<V>(val(rng));
    return Dense<V>(Executor::cpu(), rows, cols, host, layout);
}

template <class V>
std::vector<double> to_doubles(DenseView<const V> d) {
    std::vector<double> out(static_cast<std::size_t>(d.rows * d.cols));
    const index_t n = (d.layout == Layout::row_major ? d.rows : d.cols) * d.ld;
    std::vector<V> host(static_cast<std::size_t>(std::max<index_t>(n, 0)));
    if (n > 0) copy_bytes(host.data(), MemorySpace::host(), d.data, d.space, host.size() * sizeof(V));
    DenseView<const V> h{host.data(), d.rows, d.cols, d.ld, d.layout, MemorySpace::host()};
    for (index_t i = 0; i < d.rows; ++i)
        for (index_t j = 0; j < d.cols; ++j) out[i * d.cols + j] = value_cast<double>(h(i, j));
    return out;
}

template <class V>
std::vector<double> to_doubles(const Dense<V>& d) {
    return to_doubles<V>(d.view());
}

::testing::AssertionResult all_close(const std::vector<double>& actual, const std::vector<double>& expected, double rtol, double atol,
                                     index_t cols) {
    if (actual.size() != expected.size())
        return ::testing::AssertionFailure() << "sizes differ: " << actual.size() << " vs " << expected.size();
    std::ostringstream bad;
    std::size_t count = 0;
    for (std::size_t k = 0; k < actual.size(); ++k) {
        const double a = actual[k], e = expected[k];
        const bool same_special = (std::isnan(a) && std::isnan(e)) || (std::isinf(a) && a == e);
        if (same_special || std::abs(a - e) <= atol + rtol * std::abs(e)) continue;
        if (count++ < 5) bad << "  at (" << k / cols << ", " << k % cols << "): " << a << " vs expected " << e << "\n";
    }
    if (count == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << count << " of " << actual.size() << " elements differ:\n" << bad.str();
}

template <class V>
double rtol_for() {
    if constexpr (std::is_same_v<V, double>)
        return 1e-10;
    else if constexpr (std::is_same_v<V, float>)
        return 1e-4;
    else if constexpr (std::is_same_v<V, f16>)
        return 1e-2;
    else
        return 2e-2;
}

#define SPK_INSTANTIATE_V(V)                                                                            \
    template Dense<V> random_dense<V>(index_t, index_t, std::uint64_t, Layout);                         \
    template std::vector<double> to_doubles<V>(DenseView<const V>);                                     \
    template std::vector<double> to_doubles<V>(const Dense<V>&);                                        \
    template double rtol_for<V>();                                                                      \
    template Csr<V, std::int32_t> random_csr<V, std::int32_t>(index_t, index_t, double, std::uint64_t); \
    template Csr<V, std::int64_t> random_csr<V, std::int64_t>(index_t, index_t, double, std::uint64_t);
SPK_INSTANTIATE_V(float)
SPK_INSTANTIATE_V(double)
SPK_INSTANTIATE_V(f16)
SPK_INSTANTIATE_V(bf16)
#undef SPK_INSTANTIATE_V

}  // namespace spk::test
