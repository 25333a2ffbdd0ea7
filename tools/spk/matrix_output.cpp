#include "matrix_output.hpp"

#include <cstdint>

#include "spk/error.hpp"
#include "spk/io.hpp"

namespace spk::cli {

template <class V, class I>
void save_matrix(const std::string& path, const Csr<V, I>& a) {
    if (!path.ends_with(".mtx") && !path.ends_with(".spkb"))
        invalid_argument("-o: '" + path + "': the file name must end in .mtx or .spkb");
    if (!a.view().space.is_host()) return save_matrix(path, a.to(Executor::cpu()));
    if (path.ends_with(".mtx"))
        write_matrix_market(path, a.view());
    else
        write_binary(path, a.view());
}

template <class V>
void save_dense(const std::string& path, const Dense<V>& d) {
    if (!path.ends_with(".mtx"))
        invalid_argument("-o: '" + path + "': a dense result is written as Matrix Market, the name must end in .mtx");
    if (!d.view().space.is_host()) return save_dense(path, d.to(Executor::cpu()));
    write_matrix_market(path, d.view());
}

template void save_matrix(const std::string&, const Csr<float, std::int32_t>&);
template void save_matrix(const std::string&, const Csr<double, std::int32_t>&);
template void save_matrix(const std::string&, const Csr<double, std::int64_t>&);
template void save_dense(const std::string&, const Dense<float>&);

}  // namespace spk::cli
