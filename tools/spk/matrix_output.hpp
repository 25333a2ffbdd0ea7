#pragma once
// Writes a sparse or dense result by the file's extension: .mtx (Matrix Market) or, for sparse
// matrices, .spkb (spk's binary cache). Anything else is an InvalidArgument naming the path.
#include <string>

#include "spk/matrix.hpp"

namespace spk::cli {

template <class V, class I>
void save_matrix(const std::string& path, CsrView<const V, I> a);
template <class V>
void save_dense(const std::string& path, DenseView<const V> d);

}  // namespace spk::cli
