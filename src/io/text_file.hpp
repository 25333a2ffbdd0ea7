#pragma once
// Whole-file input and buffered output for spk's file formats. Input may be plain or gzip
// (detected from the content, so a misnamed file still reads); output is gzip when the path
// ends in ".gz". Failures name the path and the OS or zlib reason.
#include <cstddef>
#include <string>
#include <string_view>

namespace spk::detail {

// The whole file (inflated when it is gzip). A missing or unreadable file throws
// InvalidArgument; corrupt or truncated gzip data throws Format.
std::string read_file(const std::string& path);

// At most max_bytes of the (inflated) file; complete says whether that is all of it.
std::string read_file_prefix(const std::string& path, std::size_t max_bytes, bool& complete);

// An output file written in large blocks; close() reports errors (InvalidArgument naming the
// path), the destructor closes silently when an exception is already on its way.
class OutputFile {
public:
    explicit OutputFile(const std::string& path);
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile();

    void write(std::string_view bytes);
    void close();

private:
    [[noreturn]] void fail(const std::string& what);
    std::string path_;
    int fd_ = -1;
    void* gz_ = nullptr;  // gzFile when compressing (kept opaque so zlib.h stays private)
};

}  // namespace spk::detail
