#pragma once
// Readers and writers: Matrix Market (.mtx, .mtx.gz), FROSTT (.tns, .tns.gz) and spk's binary
// cache (.spkb: header, arrays, checksum). Malformed input throws Error(Format) with path:line.
#include <string>

#include "spk/matrix.hpp"
#include "spk/sparse_tensor.hpp"

namespace spk {

struct MatrixMarketHeader {
    std::string object;    // matrix
    std::string format;    // coordinate | array
    std::string field;     // real | integer | pattern (complex and hermitian are rejected)
    std::string symmetry;  // general | symmetric | skew-symmetric
    // entries: the values the file stores: coordinate lines, or for array files rows*cols
    // (general), the lower triangle (symmetric) or the strict lower triangle (skew-symmetric).
    index_t rows = 0, cols = 0, entries = 0;
};

// Only the banner, comments and size line are read (and checked). All words are lower case.
MatrixMarketHeader read_matrix_market_header(const std::string& path);

// Sparse matrix from a coordinate or array file (gzip-compressed or not, whatever the name).
// Symmetric and skew-symmetric files are expanded (diagonal once, a_ji = -a_ij for skew; a file
// stores one triangle, lower or upper: entries on both sides throw Format, since expanding them
// would count a pair twice; skew-symmetric files may not store the diagonal);
// pattern entries get value 1; duplicates are summed, or rejected (Format naming both lines);
// an array file keeps its non-zero values. The result is sorted. Values are parsed as double
// for f64 and as float otherwise (f16/bf16 through float). Malformed input throws Format
// "path:line: what is wrong"; a missing file InvalidArgument with the OS reason; a matrix
// too large for I InvalidArgument.
template <class V, class I>
Csr<V, I> read_matrix_market(const std::string& path, Duplicates dup = Duplicates::sum);
// Dense matrix from an array (or coordinate) file, row-major. Coordinate duplicates are summed.
template <class V>
Dense<V> read_matrix_market_dense(const std::string& path);

struct MatrixMarketWriteOptions {
    bool pattern = false;  // write no values
    // Significant digits for real values (at most 9 are used for f32, f16 and bf16, which are
    // written through float); <= 0 writes the shortest text that reads back exactly.
    int precision = 17;
};
// CSR as "coordinate real general" ("coordinate pattern general" when options.pattern or the
// matrix has no values); dense as "array real general". A path ending in .gz is compressed.
// With the default precision, reading the file back gives exactly the same matrix.
template <class V, class I>
void write_matrix_market(const std::string& path, CsrView<const V, I> a, const MatrixMarketWriteOptions& options = {});
template <class V>
void write_matrix_market(const std::string& path, DenseView<const V> d, const MatrixMarketWriteOptions& options = {});

// FROSTT (.tns, .tns.gz): lines of "i j k value" (1-based), '#' comments; dims are the largest
// index per mode unless a comment "# dims I x J x K" (or "# dims: I J K"; remarks may follow
// after a ';'; "dims" in any case) before the entries gives them. Entries keep the file's order
// (duplicates are kept). Lines with another number of fields, non-numeric tokens or indices < 1
// (or above the declared dims), and a file with neither entries nor a dims comment, throw
// Format; dims or indices beyond I, InvalidArgument.
template <class V, class I>
CooTensor3<V, I> read_frostt(const std::string& path);

// Binary cache (.spkb): fast reload of a CSR, verified by a checksum. Reading with other value
// or index types than were written, another format version, a corrupt or truncated file
// throws Format.
template <class V, class I>
void write_binary(const std::string& path, CsrView<const V, I> a);
template <class V, class I>
Csr<V, I> read_binary(const std::string& path);
// The value and index types a .spkb file holds, from its header alone (a file that is not one,
// of another version or with unknown type codes throws Format): read_binary<V, I> with them
// reports whatever else is wrong with the file.
struct BinaryTypes {
    ValueType values;
    IndexType indices;
};
BinaryTypes read_binary_types(const std::string& path);

// Any supported file by its extension (.mtx, .mtx.gz, .spkb); others throw InvalidArgument.
template <class V, class I>
Csr<V, I> load_matrix(const std::string& path);

}  // namespace spk
