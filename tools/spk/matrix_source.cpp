#include "matrix_source.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <type_traits>

#include "spk/error.hpp"
#include "spk/generate.hpp"
#include "spk/io.hpp"

namespace spk::cli {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string file_label(const std::string& path) {
    std::string name = fs::path(path).filename().string();
    for (const std::string_view ext : {".mtx.gz", ".mtx", ".spkb", ".tns.gz", ".tns"})
        if (ends_with(name, ext)) return name.substr(0, name.size() - ext.size());
    return name;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

// The first <ancestor>/shared/matrices above `start`.
std::string find_shared_above(fs::path start) {
    std::error_code ec;
    for (fs::path p = fs::absolute(start, ec); !ec && !p.empty(); p = p.parent_path()) {
        const fs::path candidate = p / "shared" / "matrices";
        if (fs::is_directory(candidate, ec)) return candidate.string();
        if (p == p.parent_path()) break;
    }
    return {};
}

template <class V, class I, class V2, class I2>
Csr<V, I> convert_types(const Csr<V2, I2>& m, const std::string& path) {
    if constexpr (sizeof(I) < sizeof(I2)) {
        constexpr index_t max = std::numeric_limits<I>::max();
        if (m.nnz() > max || m.rows() > max || m.cols() > max)
            invalid_argument(path + ": a " + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) + " matrix of " +
                             std::to_string(m.nnz()) + " non-zeros does not fit 32-bit indices");
    }
    const auto rp = m.row_ptr().to_vector();
    const auto ci = m.col_idx().to_vector();
    const auto vals = m.values().to_vector();
    std::vector<V> v(vals.size());
    std::transform(vals.begin(), vals.end(), v.begin(), [](V2 x) { return value_cast<V>(x); });
    return Csr<V, I>(Executor::cpu(), m.rows(), m.cols(), std::vector<I>(rp.begin(), rp.end()), std::vector<I>(ci.begin(), ci.end()), v,
                     m.sorted());
}

// A .spkb file stores its own value and index types: read it with them (so that whatever else is
// wrong with the file is what the error says), then convert.
template <class V, class I>
Csr<V, I> read_binary_any(const std::string& path) {
    const BinaryTypes stored = read_binary_types(path);
    const auto read_as = [&]<class V2>() {
        if (stored.indices == IndexType::i32) return convert_types<V, I>(read_binary<V2, std::int32_t>(path), path);
        return convert_types<V, I>(read_binary<V2, std::int64_t>(path), path);
    };
    switch (stored.values) {
        case ValueType::f32:
            return read_as.template operator()<float>();
        case ValueType::f64:
            return read_as.template operator()<double>();
        case ValueType::f16:
            return read_as.template operator()<f16>();
        case ValueType::bf16:
            return read_as.template operator()<bf16>();
    }
    format_error(path + ": unknown value type");
}

}  // namespace

MatrixSource classify_matrix_arg(std::string_view arg) {
    MatrixSource s;
    s.text = std::string(arg);
    std::error_code ec;
    if (arg.starts_with("gen:")) {
        s.is_spec = true;
        s.spec = std::string(arg.substr(4));
    } else if (fs::is_regular_file(fs::path(s.text), ec) || ends_with(arg, ".mtx") || ends_with(arg, ".mtx.gz") ||
               ends_with(arg, ".spkb")) {
        s.path = s.text;
    } else {
        s.is_spec = true;
        s.spec = s.text;
    }
    s.label = s.is_spec ? s.spec : file_label(s.path);
    return s;
}

namespace {

template <class V, class I>
Csr<V, I> load_source(const MatrixSource& source) {
    if (!source.is_spec) return source.path.ends_with(".spkb") ? read_binary_any<V, I>(source.path) : load_matrix<V, I>(source.path);
    try {
        return generate<V, I>(source.spec);
    } catch (const Error& e) {
        if (source.text.starts_with("gen:") || e.kind() == ErrorKind::OutOfMemory) throw;  // a spec, too large
        // The argument may have been meant as a file: say both readings.
        throw Error(e.kind(), "'" + source.text + "' is neither an existing file nor a valid generator spec: " + e.what());
    }
}

}  // namespace

template <class V, class I>
Csr<V, I> load_matrix_source(const MatrixSource& source) {
    if (source.origin.empty()) return load_source<V, I>(source);
    try {
        return load_source<V, I>(source);
    } catch (const Error& e) {
        throw Error(e.kind(), source.origin + ": " + e.what());
    }
}

template Csr<float, std::int32_t> load_matrix_source(const MatrixSource&);
template Csr<double, std::int32_t> load_matrix_source(const MatrixSource&);
template Csr<double, std::int64_t> load_matrix_source(const MatrixSource&);

std::string matrix_dir() {
    if (const char* env = std::getenv("SPK_MATRICES"); env && *env) return env;
    std::error_code ec;
    if (auto found = find_shared_above(fs::current_path(ec)); !found.empty()) return found;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) return find_shared_above(exe.parent_path());
    return {};
}

std::vector<MatrixSource> read_suite(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) invalid_argument("--suite: '" + path + "' is not a file");
    std::ifstream in(path);
    if (!in) invalid_argument("--suite: cannot open '" + path + "'");
    const std::string dir = matrix_dir();
    std::vector<MatrixSource> out;
    std::string line;
    for (int lineno = 1; std::getline(in, line); ++lineno) {
        std::string_view text = line;
        if (const auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
        text = trim(text);
        if (text.empty()) continue;
        const std::string where = path + ":" + std::to_string(lineno);
        if (std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
            invalid_argument(where + ": a control character in the line (a suite lists one file or generator spec a line)");
        MatrixSource s = classify_matrix_arg(text);
        if (!s.is_spec && fs::path(s.path).is_relative()) {
            if (dir.empty())
                invalid_argument(where + ": '" + s.path +
                                 "' is relative but no shared matrices folder was found (set SPK_MATRICES)");
            s = classify_matrix_arg((fs::path(dir) / s.path).string());
        }
        s.origin = where;
        out.push_back(std::move(s));
    }
    return out;
}

double text_bytes(const std::string& path) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) invalid_argument("'" + path + "': " + ec.message());
    if (!ends_with(path, ".gz")) return static_cast<double>(size);
    // The text's own size, by reading it through: a gzip trailer holds the last member's size
    // only, modulo 2^32, and a file named .gz may not be compressed at all.
    gzFile file = gzopen(path.c_str(), "rb");
    if (file == nullptr) invalid_argument("'" + path + "': cannot open");
    std::vector<char> buffer(1 << 20);
    double total = 0;
    for (int got; (got = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0;) total += got;
    gzclose(file);
    return total;
}

}  // namespace spk::cli
