#pragma once
// Helpers for the I/O tests: a private temporary folder, files written from strings, exact
// matrix comparison, and a check that a call throws spk::Error of a kind with given message parts.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "spk/spk.hpp"

namespace spk::test {

// A fresh folder under the system temp dir, removed when the object dies.
class TempDir {
public:
    TempDir() {
        std::random_device rd;
        path_ = std::filesystem::temp_directory_path() / ("spk_io_test_" + std::to_string(rd()) + std::to_string(rd()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string file(const std::string& name) const { return (path_ / name).string(); }
    // Writes `content` to `name` (gzip-compressed when the name ends in .gz) and returns the path.
    std::string write(const std::string& name, const std::string& content) const {
        const std::string p = file(name);
        if (name.ends_with(".gz")) {
            gzFile f = gzopen(p.c_str(), "wb");
            EXPECT_NE(f, nullptr);
            if (!content.empty()) {
                EXPECT_EQ(gzwrite(f, content.data(), static_cast<unsigned>(content.size())), static_cast<int>(content.size()));
            }
            gzclose(f);
        } else {
            std::ofstream(p, std::ios::binary) << content;
        }
        return p;
    }

private:
    std::filesystem::path path_;
};

inline std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Replaces the file. Removing it first avoids truncating in place, which is slow on some file systems.
inline void write_bytes(const std::string& path, const std::string& bytes) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    std::ofstream(path, std::ios::binary) << bytes;
}

// The call throws spk::Error of `kind` whose message contains every one of `parts`.
inline ::testing::AssertionResult throws_error(const std::function<void()>& call, ErrorKind kind, const std::vector<std::string>& parts) {
    try {
        call();
    } catch (const Error& e) {
        const std::string msg = e.what();
        if (e.kind() != kind)
            return ::testing::AssertionFailure() << "kind '" << to_string(e.kind()) << "', expected '" << to_string(kind) << "': " << msg;
        for (const auto& part : parts)
            if (msg.find(part) == std::string::npos) return ::testing::AssertionFailure() << "message lacks '" << part << "': " << msg;
        return ::testing::AssertionSuccess() << msg;
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw a non-spk exception: " << e.what();
    }
    return ::testing::AssertionFailure() << "did not throw";
}

// Bitwise equality of two values (so NaN == NaN and -0 != +0).
template <class V>
bool same_bits(const V& a, const V& b) {
    return std::memcmp(&a, &b, sizeof(V)) == 0;
}

// Same shape, pattern and (bitwise) values.
template <class V, class I>
::testing::AssertionResult csr_identical(const Csr<V, I>& a, const Csr<V, I>& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.nnz() != b.nnz())
        return ::testing::AssertionFailure() << "shape " << a.rows() << "x" << a.cols() << " nnz " << a.nnz() << " vs " << b.rows() << "x"
                                             << b.cols() << " nnz " << b.nnz();
    for (index_t i = 0; i <= a.rows(); ++i)
        if (a.row_ptr()[i] != b.row_ptr()[i])
            return ::testing::AssertionFailure() << "row_ptr[" << i << "] " << a.row_ptr()[i] << " vs " << b.row_ptr()[i];
    for (index_t p = 0; p < a.nnz(); ++p) {
        if (a.col_idx()[p] != b.col_idx()[p])
            return ::testing::AssertionFailure() << "col_idx[" << p << "] " << a.col_idx()[p] << " vs " << b.col_idx()[p];
        if (!same_bits(a.values()[p], b.values()[p]))
            return ::testing::AssertionFailure()
                   << "values[" << p << "] " << value_cast<double>(a.values()[p]) << " vs " << value_cast<double>(b.values()[p]);
    }
    return ::testing::AssertionSuccess();
}

// A CSR as a row-major dense table of doubles (duplicates cannot occur: CSR from readers is merged).
template <class V, class I>
std::vector<double> csr_to_dense(const Csr<V, I>& a) {
    std::vector<double> d(static_cast<std::size_t>(a.rows() * a.cols()), 0.0);
    for (index_t i = 0; i < a.rows(); ++i)
        for (index_t p = a.row_ptr()[i]; p < a.row_ptr()[i + 1]; ++p)
            d[static_cast<std::size_t>(i * a.cols() + a.col_idx()[p])] = value_cast<double>(a.values()[p]);
    return d;
}

}  // namespace spk::test
