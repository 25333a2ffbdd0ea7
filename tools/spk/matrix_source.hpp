#pragma once
// Matrix arguments of the sub-commands. The one rule (also in every --help):
//   an argument that starts with "gen:" is a generator spec (the text after "gen:");
//   otherwise it is a file path if that file exists or the name ends in .mtx, .mtx.gz or .spkb;
//   anything else is handed to the generator as a spec ("rmat:scale=16", "laplace3d:n=60").
// Suite files list one such argument per line ('#' starts a comment); a relative file path
// there is relative to the shared matrices folder (see matrix_dir()).
#include <string>
#include <string_view>
#include <vector>

#include "spk/matrix.hpp"

namespace spk::cli {

struct MatrixSource {
    std::string text;  // the argument as given (after suite-path resolution)
    bool is_spec = false;
    std::string spec;   // generator spec (is_spec)
    std::string path;   // file path (!is_spec)
    std::string label;  // short name for tables: the file name without extension, or the spec
    std::string origin; // where a suite listed it ("suite.txt:5"), for errors; empty for --matrix
};

MatrixSource classify_matrix_arg(std::string_view arg);

// Reads the file or runs the generator. Errors name the argument.
template <class V, class I>
Csr<V, I> load_matrix_source(const MatrixSource& source);

// The shared matrices folder: $SPK_MATRICES if set, else the first "shared/matrices" found
// above the current directory or above the spk executable; empty if none.
std::string matrix_dir();

// The entries of a suite file, relative paths resolved against matrix_dir().
std::vector<MatrixSource> read_suite(const std::string& path);

// Bytes of the file's contents as text: the size on disk, or for .gz the uncompressed size
// from the gzip trailer (modulo 4 GiB, as the format stores it).
double text_bytes(const std::string& path);

}  // namespace spk::cli
