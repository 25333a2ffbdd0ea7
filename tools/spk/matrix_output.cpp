#include "matrix_output.hpp"

#include <cstdint>

#include "spk/error.hpp"
#include "spk/io.hpp"

namespace spk::cli {

template <class V, class I>
void save_matrix(const std::string& path, CsrView<const V, I> a) {
    if (path.ends_with(".mtx"))
        write_matrix_market(path, a);
    else if (path.ends_with(".spkb"))
        write_binary(path, a);
    else
        invalid_argument("-o: '" + path + "': the file name must end in .mtx or .spkb");
}

template <class V>
void save_dense(const std::string& path, DenseView<const V> d) {
    if (!path.ends_with(".mtx"))
        invalid_argument("-o: '" + path + "': a dense result is written as Matrix Market, the name must end in .mtx");
    write_matrix_market(path, d);
}

template void save_matrix(const std::string&, CsrView<const float, std::int32_t>);
template void save_matrix(const std::string&, CsrView<const double, std::int32_t>);
template void save_matrix(const std::string&, CsrView<const double, std::int64_t>);
template void save_dense(const std::string&, DenseView<const float>);

}  // namespace spk::cli
