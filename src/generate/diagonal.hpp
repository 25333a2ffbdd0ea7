#pragma once
// D⁻¹ for the Jacobi-scaled operators of smoothed aggregation.
#include <algorithm>
#include <string>
#include <vector>

#include "spk/error.hpp"
#include "spk/matrix.hpp"

namespace spk::detail {

// 1 / A(i, i) per row (0 where A(i, i) = 0). Every row must store its diagonal entry.
template <class V, class I>
std::vector<double> inverse_diagonal(CsrView<const V, I> a, const char* caller) {
    if (!a.space.is_host()) invalid_argument(std::string(caller) + ": A must be in host memory, it is in " + to_string(a.space));
    if (a.rows != a.cols)
        invalid_argument(std::string(caller) + ": A must be square, it is " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
    std::vector<double> inv(static_cast<std::size_t>(a.rows));
    index_t missing = -1;
#pragma omp parallel for schedule(static) reduction(max : missing)
    for (index_t i = 0; i < a.rows; ++i) {
        index_t p = a.row_ptr[i];
        while (p < a.row_ptr[i + 1] && a.col_idx[p] != i) ++p;
        if (p == a.row_ptr[i + 1]) {
            missing = std::max(missing, i);
            continue;
        }
        const double d = value_cast<double>(a.values[p]);
        inv[i] = d == 0 ? 0.0 : 1.0 / d;
    }
    if (missing >= 0) invalid_argument(std::string(caller) + ": row " + std::to_string(missing) + " of A has no diagonal entry");
    return inv;
}

}  // namespace spk::detail
