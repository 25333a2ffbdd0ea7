// File input through zlib's gz* functions, which read gzip and plain files alike; output
// through write(2) or gzwrite.
#include "io/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>

#include "spk/error.hpp"

namespace spk::detail {

namespace {

std::string os_reason() { return std::strerror(errno); }

// Owns a gzFile opened for reading; knows the on-disk size as a hint for the buffer.
class GzReader {
public:
    explicit GzReader(const std::string& path) : path_(path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) invalid_argument(path + ": cannot open: " + os_reason());
        struct stat st {};
        if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
            const std::string reason = S_ISDIR(st.st_mode) ? "is a directory" : os_reason();
            ::close(fd);
            invalid_argument(path + ": cannot read: " + reason);
        }
        disk_size_ = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0;
        file_ = gzdopen(fd, "rb");
        if (file_ == nullptr) {
            ::close(fd);
            out_of_memory(path + ": cannot set up a zlib reader");
        }
        gzbuffer(file_, 1u << 18);  // fewer, larger reads: this is most of a reader's I/O cost
        compressed_ = gzdirect(file_) == 0;
    }
    GzReader(const GzReader&) = delete;
    GzReader& operator=(const GzReader&) = delete;
    ~GzReader() { gzclose(file_); }

    // Reads up to max_bytes; stops early at the end of the file.
    std::string read(std::size_t max_bytes) {
        std::string text;
        try {
            // Plain files: their size. Gzip: a guess (text compresses about 4x), grown as needed.
            std::size_t capacity = compressed_ ? disk_size_ * 4 + 4096 : disk_size_ + 1;
            text.resize(std::min(capacity, max_bytes));
            std::size_t n = 0;
            while (n < max_bytes) {
                if (n == text.size()) text.resize(std::min(max_bytes, text.size() * 2));
                const auto want = static_cast<unsigned>(std::min<std::size_t>(text.size() - n, INT_MAX / 2));
                const int got = gzread(file_, text.data() + n, want);
                if (got < 0) zlib_failure();
                if (got == 0) break;
                n += static_cast<std::size_t>(got);
            }
            int errnum = Z_OK;
            gzerror(file_, &errnum);
            if (errnum == Z_BUF_ERROR) format_error(path_ + ": gzip data is truncated (unexpected end of file)");
            if (errnum != Z_OK) zlib_failure();
            text.resize(n);
        } catch (const std::bad_alloc&) {
            out_of_memory(path_ + ": not enough memory to read the file into memory");
        }
        return text;
    }

private:
    [[noreturn]] void zlib_failure() {
        int errnum = Z_OK;
        const char* msg = gzerror(file_, &errnum);
        if (errnum == Z_ERRNO) invalid_argument(path_ + ": cannot read: " + os_reason());
        format_error(path_ + ": corrupt gzip data (zlib: " + (msg ? msg : "unknown error") + ")");
    }

    std::string path_;
    gzFile file_ = nullptr;
    std::size_t disk_size_ = 0;
    bool compressed_ = false;
};

}  // namespace

std::string read_file(const std::string& path) { return GzReader(path).read(SIZE_MAX); }

std::string read_file_prefix(const std::string& path, std::size_t max_bytes, bool& complete) {
    std::string text = GzReader(path).read(max_bytes);
    complete = text.size() < max_bytes;
    return text;
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) invalid_argument(path + ": cannot open for writing: " + os_reason());
    if (path.ends_with(".gz")) {
        gz_ = gzdopen(fd_, "wb6");
        if (gz_ == nullptr) {
            ::close(fd_);
            fd_ = -1;
            out_of_memory(path + ": cannot set up a zlib writer");
        }
        gzbuffer(static_cast<gzFile>(gz_), 1u << 18);
    }
}

OutputFile::~OutputFile() {
    if (gz_)
        gzclose(static_cast<gzFile>(gz_));
    else if (fd_ >= 0)
        ::close(fd_);
}

void OutputFile::fail(const std::string& what) {
    const std::string reason = os_reason();
    invalid_argument(path_ + ": " + what + ": " + reason);
}

void OutputFile::write(std::string_view bytes) {
    while (!bytes.empty()) {
        const std::size_t chunk = std::min<std::size_t>(bytes.size(), INT_MAX / 2);
        if (gz_) {
            const int put = gzwrite(static_cast<gzFile>(gz_), bytes.data(), static_cast<unsigned>(chunk));
            if (put <= 0) fail("cannot write");
            bytes.remove_prefix(static_cast<std::size_t>(put));
        } else {
            const ssize_t put = ::write(fd_, bytes.data(), chunk);
            if (put < 0 && errno == EINTR) continue;
            if (put <= 0) fail("cannot write");
            bytes.remove_prefix(static_cast<std::size_t>(put));
        }
    }
}

void OutputFile::close() {
    if (gz_) {
        const int rc = gzclose(static_cast<gzFile>(gz_));
        gz_ = nullptr;
        fd_ = -1;  // gzclose closed it
        if (rc != Z_OK) fail("cannot finish the gzip stream");
    } else if (fd_ >= 0) {
        const int rc = ::close(fd_);
        fd_ = -1;
        if (rc != 0) fail("cannot close");
    }
}

}  // namespace spk::detail
