#pragma once
// Hands a spk::Csr's arrays to Python without copies: (indptr, indices, data, rows, cols, sorted),
// the three arrays sharing one capsule that deletes the Csr.
#include <utility>

#include "arrays.hpp"

namespace spk::python {

template <class V, class I>
nb::tuple export_csr(Csr<V, I>&& c) {
    const auto rows = c.rows(), cols = c.cols(), nnz = c.nnz();
    const bool sorted = c.sorted();
    const MemorySpace space = c.row_ptr().space();
    auto* owned = new Csr<V, I>(std::move(c));
    nb::capsule owner = owning_capsule(owned);
    return nb::make_tuple(export_array<I>(owned->row_ptr().data(), rows + 1, 0, 1, space, owner),
                          export_array<I>(owned->col_idx().data(), nnz, 0, 1, space, owner),
                          export_array<V>(owned->values().data(), nnz, 0, 1, space, owner), rows, cols, sorted);
}

}  // namespace spk::python
