#pragma once
// Inputs and dense-free brute-force oracles shared by the CSF, MTTKRP and TTM tests.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "spk/spk.hpp"
#include "support/test_support.hpp"

namespace spk::test {

// `nnz` entries with uniform coordinates in dims (so repeats happen on small dims, unsorted),
// values uniform in [-1, 1] away from 0.
template <class V, class I>
CooTensor3<V, I> random_tensor(std::array<index_t, 3> dims, index_t nnz, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    CooTensor3<V, I> x;
    x.dims = dims;
    for (index_t p = 0; p < nnz; ++p) {
        for (std::size_t m = 0; m < 3; ++m) x.idx[m].push_back(static_cast<I>(std::uniform_int_distribution<index_t>(0, dims[m] - 1)(rng)));
        double v = value(rng);
        if (std::abs(v) < 1e-3) v = 0.5;
        x.values.push_back(static_cast<V>(v));
    }
    return x;
}

// Like random_tensor, but a share `heavy` of the entries sit at index `at` of mode `mode`.
template <class V, class I>
CooTensor3<V, I> skewed_tensor(std::array<index_t, 3> dims, index_t nnz, int mode, index_t at, double heavy, std::uint64_t seed) {
    CooTensor3<V, I> x = random_tensor<V, I>(dims, nnz, seed);
    std::mt19937_64 rng(seed + 1);
    std::bernoulli_distribution pick(heavy);
    for (auto& i : x.idx[static_cast<std::size_t>(mode)])
        if (pick(rng)) i = static_cast<I>(at);
    return x;
}

template <class V, class I>
void push_entry(CooTensor3<V, I>& x, index_t i, index_t j, index_t k, double v) {
    x.idx[0].push_back(static_cast<I>(i));
    x.idx[1].push_back(static_cast<I>(j));
    x.idx[2].push_back(static_cast<I>(k));
    x.values.push_back(static_cast<V>(v));
}

// MTTKRP straight from the COO entries: dims[mode] x R, row-major, in double.
template <class V, class I>
std::vector<double> brute_force_mttkrp(const CooTensor3<V, I>& x, int mode, const std::array<DenseView<const V>, 3>& factors,
                                       index_t rank) {
    std::vector<double> out(static_cast<std::size_t>(x.dims[static_cast<std::size_t>(mode)] * rank), 0.0);
    for (std::size_t p = 0; p < x.values.size(); ++p) {
        const index_t i = x.idx[static_cast<std::size_t>(mode)][p];
        for (index_t r = 0; r < rank; ++r) {
            double product = static_cast<double>(x.values[p]);
            for (std::size_t m = 0; m < 3; ++m)
                if (static_cast<int>(m) != mode) product *= static_cast<double>(factors[m](x.idx[m][p], r));
            out[static_cast<std::size_t>(i * rank + r)] += product;
        }
    }
    return out;
}

// TTM straight from the COO entries: each mode-n fiber's coordinates (other two modes,
// ascending) -> its R values, in double.
template <class V, class I>
std::map<std::pair<index_t, index_t>, std::vector<double>> brute_force_ttm(const CooTensor3<V, I>& x, int mode, DenseView<const V> u) {
    const int a = mode == 0 ? 1 : 0, b = mode == 2 ? 1 : 2;
    std::map<std::pair<index_t, index_t>, std::vector<double>> fibers;
    for (std::size_t p = 0; p < x.values.size(); ++p) {
        auto& y = fibers[{x.idx[static_cast<std::size_t>(a)][p], x.idx[static_cast<std::size_t>(b)][p]}];
        y.resize(static_cast<std::size_t>(u.rows), 0.0);
        const index_t k = x.idx[static_cast<std::size_t>(mode)][p];
        for (index_t r = 0; r < u.rows; ++r)
            y[static_cast<std::size_t>(r)] += static_cast<double>(x.values[p]) * static_cast<double>(u(r, k));
    }
    return fibers;
}

template <class V>
std::array<DenseView<const V>, 3> views(const std::array<Dense<V>, 3>& factors) {
    return {factors[0].view(), factors[1].view(), factors[2].view()};
}

// The same matrix stored in another layout.
template <class V>
Dense<V> with_layout(const Dense<V>& a, Layout layout) {
    std::vector<V> values;
    const DenseView<const V> v = a.view();
    if (layout == Layout::row_major) {
        for (index_t i = 0; i < v.rows; ++i)
            for (index_t j = 0; j < v.cols; ++j) values.push_back(v(i, j));
    } else {
        for (index_t j = 0; j < v.cols; ++j)
            for (index_t i = 0; i < v.rows; ++i) values.push_back(v(i, j));
    }
    return Dense<V>(Executor::cpu(), v.rows, v.cols, values, layout);
}

// One random dims[m] x rank factor per mode.
template <class V>
std::array<Dense<V>, 3> random_factors(const std::array<index_t, 3>& dims, index_t rank, std::uint64_t seed,
                                       Layout layout = Layout::row_major) {
    return {random_dense<V>(dims[0], rank, seed, layout), random_dense<V>(dims[1], rank, seed + 1, layout),
            random_dense<V>(dims[2], rank, seed + 2, layout)};
}

}  // namespace spk::test
