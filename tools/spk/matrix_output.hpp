#pragma once
// Writes a sparse or dense result by the file's extension: .mtx (Matrix Market) or, for sparse
// matrices, .spkb (spk's binary cache). Anything else is an InvalidArgument naming the path. A
// result in device memory (a CUDA run) is copied to the host first.
#include <string>

#include "spk/matrix.hpp"

namespace spk::cli {

template <class V, class I>
void save_matrix(const std::string& path, const Csr<V, I>& a);
template <class V>
void save_dense(const std::string& path, const Dense<V>& d);

}  // namespace spk::cli
