#pragma once
// Argument checks shared by every operation's front end. Each names the argument it rejects.
#include <string>
#include <string_view>

#include "spk/error.hpp"
#include "spk/executor.hpp"
#include "spk/matrix.hpp"

namespace spk::detail {

std::string shape_string(index_t rows, index_t cols);

// The argument must live where the executor runs.
void check_space(MemorySpace space, const Executor& exec, std::string_view name);

// A dense view: non-negative shape, ld large enough, data present unless empty, right space.
template <class T>
void check_dense(const DenseView<T>& d, const Executor& exec, std::string_view name) {
    if (d.rows < 0 || d.cols < 0) invalid_argument(std::string(name) + ": negative shape " + shape_string(d.rows, d.cols));
    const index_t min_ld = d.layout == Layout::row_major ? d.cols : d.rows;
    if (d.ld < min_ld)
        invalid_argument(std::string(name) + ": leading dimension " + std::to_string(d.ld) + " is smaller than " + std::to_string(min_ld));
    if (!d.empty() && d.data == nullptr)
        invalid_argument(std::string(name) + ": null data for a " + shape_string(d.rows, d.cols) + " matrix");
    if (!d.empty()) check_space(d.space, exec, name);
}

template <class T>
void check_shape(const DenseView<T>& d, index_t rows, index_t cols, std::string_view name) {
    if (d.rows != rows || d.cols != cols)
        shape_mismatch(std::string(name) + ": shape " + shape_string(d.rows, d.cols) + ", expected " + shape_string(rows, cols));
}

// Cheap structural checks on a CSR view (no O(nnz) scan; validate() does the full one).
template <class V, class I>
void check_csr(const CsrView<V, I>& a, const Executor& exec, std::string_view name, bool need_values = true) {
    if (a.rows < 0 || a.cols < 0 || a.nnz < 0) invalid_argument(std::string(name) + ": negative shape or nnz");
    if (a.row_ptr == nullptr && a.rows > 0) invalid_argument(std::string(name) + ": null row_ptr");
    if (a.nnz > 0 && a.col_idx == nullptr) invalid_argument(std::string(name) + ": null col_idx");
    if (need_values && a.nnz > 0 && a.values == nullptr)
        invalid_argument(std::string(name) + ": null values (pattern-only matrix given where values are needed)");
    check_space(a.space, exec, name);
}

}  // namespace spk::detail
