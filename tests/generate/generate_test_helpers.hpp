#pragma once
// Small helpers shared by the generator tests.
#include <omp.h>

#include <vector>

#include "spk/generate.hpp"
#include "spk/matrix.hpp"

namespace spk::test {

// Runs f with OpenMP's default team size set to `threads` (the generators take no executor).
template <class F>
auto with_threads(int threads, F&& f) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    auto result = f();
    omp_set_num_threads(before);
    return result;
}

// Same shape, pattern and bit-identical values.
template <class V, class I>
bool identical(const Csr<V, I>& x, const Csr<V, I>& y) {
    if (x.rows() != y.rows() || x.cols() != y.cols() || x.nnz() != y.nnz()) return false;
    if (x.row_ptr().to_vector() != y.row_ptr().to_vector() || x.col_idx().to_vector() != y.col_idx().to_vector()) return false;
    for (index_t p = 0; p < x.nnz(); ++p)
        if (value_cast<double>(x.values()[p]) != value_cast<double>(y.values()[p])) return false;
    return true;
}

// Row-major dense copy as doubles.
template <class V, class I>
std::vector<double> dense_of(const Csr<V, I>& a) {
    std::vector<double> d(static_cast<std::size_t>(a.rows() * a.cols()), 0.0);
    for (index_t i = 0; i < a.rows(); ++i)
        for (index_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p) d[i * a.cols() + a.col_idx()[p]] += value_cast<double>(a.values()[p]);
    return d;
}

// A equals Aᵀ exactly (pattern and values).
template <class V, class I>
bool exactly_symmetric(const Csr<V, I>& a) {
    return a.rows() == a.cols() && identical(a, transpose(a.view()));
}

template <class V, class I>
double row_sum(const Csr<V, I>& a, index_t i) {
    double s = 0;
    for (index_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p) s += value_cast<double>(a.values()[p]);
    return s;
}

// The value at (i, j), 0 when absent.
template <class V, class I>
double entry(const Csr<V, I>& a, index_t i, index_t j) {
    for (index_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p)
        if (a.col_idx()[p] == j) return value_cast<double>(a.values()[p]);
    return 0.0;
}

}  // namespace spk::test
