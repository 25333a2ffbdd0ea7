#pragma once
// Shared by the SpMM tests: run one SpMM on any executor from host inputs, and compare a backend
// with the reference within a bound scaled by the magnitudes that entered each output element.
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace spk::test {

// Output of one SpMM, on the host as doubles (row-major m x n), plus arg indices if asked.
struct SpmmResult {
    std::vector<double> c;
    std::vector<std::int64_t> arg;
};

// Host storage of an m x n matrix with layout and leading dimension (ld >= the tight one).
template <class T>
struct Strided {
    index_t rows = 0, cols = 0, ld = 0;
    Layout layout = Layout::row_major;
    std::vector<T> data;

    Strided(index_t r, index_t c, Layout l, index_t pad, T fill) : rows(r), cols(c), ld((l == Layout::row_major ? c : r) + pad), layout(l) {
        data.assign(static_cast<std::size_t>(ld * (l == Layout::row_major ? r : c)), fill);
    }
    T& at(index_t i, index_t j) { return layout == Layout::row_major ? data[i * ld + j] : data[j * ld + i]; }
    T at(index_t i, index_t j) const { return layout == Layout::row_major ? data[i * ld + j] : data[j * ld + i]; }
};

// A view of device (or host) storage shaped like `shape`.
template <class T>
DenseView<T> view_of(Array<T>& data, const Strided<T>& shape) {
    return {data.data(), shape.rows, shape.cols, shape.ld, shape.layout, data.space()};
}

// `data` laid out as `shape`, read back row by row as doubles.
template <class T>
std::vector<double> doubles_of(const std::vector<T>& data, Strided<T> shape) {
    shape.data = data;
    std::vector<double> out;
    for (index_t i = 0; i < shape.rows; ++i)
        for (index_t j = 0; j < shape.cols; ++j) out.push_back(value_cast<double>(shape.at(i, j)));
    return out;
}

// Copies with every value replaced by its absolute value: the reference run on these gives, per
// output element, the sum of the magnitudes that entered it (the scale of rounding errors).
template <class T>
Strided<T> absolute(Strided<T> s) {
    for (auto& v : s.data) v = value_cast<T>(std::abs(value_cast<double>(v)));
    return s;
}
template <class V, class I>
Csr<V, I> absolute(const Csr<V, I>& a) {
    std::vector<V> values = a.values().to_vector();
    for (auto& v : values) v = value_cast<V>(std::abs(value_cast<double>(v)));
    return Csr<V, I>(Executor::cpu(), a.rows(), a.cols(), a.row_ptr().to_vector(), a.col_idx().to_vector(), values);
}

// Runs spmm on exec with copies of the host inputs in exec's memory space.
template <class V, class I>
SpmmResult run_spmm(const Executor& exec, const Csr<V, I>& a, const Strided<V>& b, const Strided<V>& c0, const SpmmOptions& options,
                    bool want_arg) {
    const Csr<V, I> a_dev = a.to(exec);
    const Array<V> b_dev(exec, b.data);
    Array<V> c_dev(exec, c0.data);
    Strided<I> arg_host(c0.rows, c0.cols, c0.layout, c0.ld - (c0.layout == Layout::row_major ? c0.cols : c0.rows), I(-7));
    Array<I> arg_dev(exec, arg_host.data);
    const DenseView<const V> bv{b_dev.data(), b.rows, b.cols, b.ld, b.layout, b_dev.space()};
    const DenseView<V> cv{c_dev.data(), c0.rows, c0.cols, c0.ld, c0.layout, c_dev.space()};
    const DenseView<I> argv = want_arg ? DenseView<I>{arg_dev.data(), c0.rows, c0.cols, c0.ld, c0.layout, arg_dev.space()} : DenseView<I>{};
    spmm(exec, a_dev.view(), bv, cv, options, argv);

    Strided<V> c_host = c0;
    c_host.data = c_dev.to_vector();
    arg_host.data = arg_dev.to_vector();
    SpmmResult out;
    for (index_t i = 0; i < c0.rows; ++i)
        for (index_t j = 0; j < c0.cols; ++j) {
            out.c.push_back(value_cast<double>(c_host.at(i, j)));
            if (want_arg) out.arg.push_back(static_cast<std::int64_t>(arg_host.at(i, j)));
        }
    return out;
}

// Per output element: |alpha| * sum |a_ij| |b_jk| (the scale of its rounding error) + |beta| |c0|.
template <class V, class I>
std::vector<double> magnitude_bound(const Csr<V, I>& a, const Strided<V>& b, const Strided<V>& c0, const SpmmOptions& options) {
    const Csr<V, I> op_a = options.transpose_a ? transpose(a.view()) : a.to(Executor::cpu());
    std::vector<double> bound(static_cast<std::size_t>(op_a.rows() * b.cols), 0.0);
    for (index_t i = 0; i < op_a.rows(); ++i) {
        const index_t begin = op_a.row_ptr()[i], end = op_a.row_ptr()[i + 1];
        for (index_t k = 0; k < b.cols; ++k) {
            double s = 0;
            for (index_t p = begin; p < end; ++p)
                s += std::abs(value_cast<double>(op_a.values()[p]) * value_cast<double>(b.at(op_a.col_idx()[p], k)));
            if (options.reduce == Reduce::mean && end > begin) s /= static_cast<double>(end - begin);
            bound[i * b.cols + k] =
                std::abs(options.alpha) * s + (options.beta != 0.0 ? std::abs(options.beta * value_cast<double>(c0.at(i, k))) : 0.0);
        }
    }
    return bound;
}

// |actual - expected| <= rtol * bound elementwise; NaN must match NaN and inf the same inf.
inline ::testing::AssertionResult close_within_bound(const std::vector<double>& actual, const std::vector<double>& expected,
                                                     const std::vector<double>& bound, double rtol, index_t cols) {
    if (actual.size() != expected.size())
        return ::testing::AssertionFailure() << "sizes differ: " << actual.size() << " vs " << expected.size();
    std::ostringstream bad;
    std::size_t count = 0;
    for (std::size_t k = 0; k < actual.size(); ++k) {
        const double a = actual[k], e = expected[k];
        bool ok;
        if (std::isnan(e))
            ok = std::isnan(a);
        else if (std::isinf(e))
            ok = a == e;
        else
            ok = std::abs(a - e) <= rtol * bound[k] + std::numeric_limits<double>::denorm_min();
        if (ok) continue;
        if (count++ < 5)
            bad << "  at (" << k / cols << ", " << k % cols << "): " << a << " vs expected " << e << " (bound " << bound[k] << ")\n";
    }
    if (count == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << count << " of " << actual.size() << " elements differ:\n" << bad.str();
}

// Random host matrix in the given layout; entries uniform in [-1, 1].
template <class V>
Strided<V> random_strided(index_t rows, index_t cols, Layout layout, index_t pad, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Strided<V> s(rows, cols, layout, pad, V{});
    for (auto& x : s.data) x = value_cast<V>(u(rng));
    return s;
}

// Every backend under test against the reference on one problem: C within tolerance, arg exact.
// When beta == 0 the initial C is NaN, which must not leak into the result.
template <class V, class I>
void expect_spmm_matches_reference(const Csr<V, I>& a, const Strided<V>& b, const SpmmOptions& options, Layout c_layout = Layout::row_major,
                                   index_t c_pad = 0, std::uint64_t c_seed = 1) {
    const index_t m = options.transpose_a ? a.cols() : a.rows();
    Strided<V> c0 = random_strided<V>(m, b.cols, c_layout, c_pad, c_seed);
    if (options.beta == 0.0)
        for (auto& x : c0.data) x = value_cast<V>(std::numeric_limits<double>::quiet_NaN());
    const bool want_arg = options.reduce == Reduce::max || options.reduce == Reduce::min;
    const SpmmResult expected = run_spmm(Executor::reference(), a, b, c0, options, want_arg);
    const std::vector<double> bound = magnitude_bound(a, b, c0, options);
    for (const Executor& exec : backends_under_test()) {
        SCOPED_TRACE(exec.name() + " reduce=" + std::string(to_string(options.reduce)) + " n=" + std::to_string(b.cols) + " B " +
                     (b.layout == Layout::row_major ? "row" : "col") + "-major ld " + std::to_string(b.ld) + ", C " +
                     (c_layout == Layout::row_major ? "row" : "col") + "-major pad " + std::to_string(c_pad) + " alpha " +
                     std::to_string(options.alpha) + " beta " + std::to_string(options.beta) + (options.transpose_a ? " transposed" : ""));
        const SpmmResult actual = run_spmm(exec, a, b, c0, options, want_arg);
        EXPECT_TRUE(close_within_bound(actual.c, expected.c, bound, rtol_for<V>(), b.cols));
        if (want_arg) {
            EXPECT_EQ(actual.arg, expected.arg);
        }
    }
}

}  // namespace spk::test
