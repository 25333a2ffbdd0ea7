// load_matrix: picks the reader from the file name's extension.
#include "core/instantiate.hpp"
#include "spk/io.hpp"

namespace spk {

template <class V, class I>
Csr<V, I> load_matrix(const std::string& path) {
    if (path.ends_with(".mtx") || path.ends_with(".mtx.gz")) return read_matrix_market<V, I>(path);
    if (path.ends_with(".spkb")) return read_binary<V, I>(path);
    invalid_argument(path + ": unknown matrix file extension (expected .mtx, .mtx.gz or .spkb)");
}

#define SPK_INSTANTIATE(V, I) template Csr<V, I> load_matrix<V, I>(const std::string&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
