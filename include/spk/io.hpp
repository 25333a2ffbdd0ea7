#pragma once
// Readers and writers: Matrix Market (.mtx, .mtx.gz), FROSTT (.tns, .tns.gz) and spk's binary
// cache (.spkb: header, arrays, checksum). Malformed input throws Error(Format) with path:line.
#include <string>

#include "spk/matrix.hpp"
#include "spk/sparse_tensor.hpp"

namespace spk {

struct MatrixMarketHeader {
    std::string object;   // matrix
    std::string format;   // coordinate | array
    std::string field;    // real | integer | pattern (complex and hermitian are rejected)
    std::string symmetry; // general | symmetric | skew-symmetric
    index_t rows = 0, cols = 0, entries = 0; // entries: stored lines (coordinate) or rows*cols (array)
};

MatrixMarketHeader read_matrix_market_header(const std::string& path);

// Sparse matrix from a coordinate or array file. Symmetric and skew-symmetric files are
// expanded; pattern entries get value 1; duplicates are summed (or rejected).
template <class V, class I> Csr<V, I> read_matrix_market(const std::string& path, Duplicates dup = Duplicates::sum);
// Dense matrix from an array (or coordinate) file, row-major.
template <class V> Dense<V> read_matrix_market_dense(const std::string& path);

struct MatrixMarketWriteOptions {
    bool pattern = false; // write no values
    int precision = 17;   // significant digits for real values
};
template <class V, class I> void write_matrix_market(const std::string& path, CsrView<const V, I> a, const MatrixMarketWriteOptions& options = {});
template <class V> void write_matrix_market(const std::string& path, DenseView<const V> d, const MatrixMarketWriteOptions& options = {});

// FROSTT: lines of "i j k value" (1-based), '#' comments; dims are the largest index per mode
// unless a "# dims: a b c" comment gives them.
template <class V, class I> CooTensor3<V, I> read_frostt(const std::string& path);

// Binary cache: fast reload of a CSR, verified by a checksum.
template <class V, class I> void write_binary(const std::string& path, CsrView<const V, I> a);
template <class V, class I> Csr<V, I> read_binary(const std::string& path);

// Any supported file by its extension (.mtx, .mtx.gz, .spkb).
template <class V, class I> Csr<V, I> load_matrix(const std::string& path);

} // namespace spk
