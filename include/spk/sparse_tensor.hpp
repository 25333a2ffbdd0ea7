#pragma once
// Sparse 3-way tensors: COO (what readers return) and CSF (what kernels take; see tensor.hpp).
#include <array>
#include <vector>

#include "spk/matrix.hpp"

namespace spk {

// Host COO: entry p is (idx[0][p], idx[1][p], idx[2][p]) -> values[p], 0-based.
template <class V, class I> struct CooTensor3 {
    std::array<index_t, 3> dims{0, 0, 0};
    std::array<std::vector<I>, 3> idx;
    std::vector<V> values;
    index_t nnz() const { return static_cast<index_t>(values.size()); }
};

} // namespace spk
