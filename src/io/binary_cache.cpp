// spk's binary cache (.spkb): a CSR stored as raw little-endian arrays for fast reloads.
//
//   offset  size  field
//        0     8  magic "SPKB\r\n\x1a\n" (the \r\n and ^Z catch text-mode transfers, as PNG's does)
//        8     4  version (1)
//       12     1  value type: 1 f32, 2 f64, 3 f16, 4 bf16
//       13     1  index type: 1 int32, 2 int64
//       14     1  flags: bit 0 column indices sorted, bit 1 values present
//       15     1  reserved (0)
//       16    24  rows, cols, nnz (int64)
//       40        row_ptr (rows + 1 indices), col_idx (nnz indices), values (nnz, when present)
//      end     8  checksum (Checksum64) of every byte before it
#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <type_traits>

#include "core/check.hpp"
#include "core/instantiate.hpp"
#include "io/checksum.hpp"
#include "io/text_file.hpp"
#include "spk/io.hpp"

namespace spk {

namespace {

static_assert(std::endian::native == std::endian::little, "the .spkb format stores little-endian data as-is");

constexpr unsigned char kMagic[8] = {'S', 'P', 'K', 'B', '\r', '\n', 0x1a, '\n'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 40;
constexpr std::size_t kChecksumBytes = 8;
constexpr unsigned char kSorted = 1, kHasValues = 2;

template <class V>
constexpr unsigned char value_code() {
    if constexpr (std::is_same_v<V, float>)
        return 1;
    else if constexpr (std::is_same_v<V, double>)
        return 2;
    else if constexpr (std::is_same_v<V, f16>)
        return 3;
    else
        return 4;
}
template <class I>
constexpr unsigned char index_code() {
    return std::is_same_v<I, std::int32_t> ? 1 : 2;
}

const char* value_code_name(unsigned c) {
    static constexpr const char* names[] = {"f32", "f64", "f16", "bf16"};
    return c >= 1 && c <= 4 ? names[c - 1] : "an unknown value type";
}
const char* index_code_name(unsigned c) { return c == 1 ? "int32" : c == 2 ? "int64" : "an unknown index type"; }

struct Header {
    std::uint32_t version = kVersion;
    unsigned char value_type = 0, index_type = 0, flags = 0;
    std::int64_t rows = 0, cols = 0, nnz = 0;
};

void encode(const Header& h, unsigned char* out) {
    std::memset(out, 0, kHeaderBytes);
    std::memcpy(out, kMagic, 8);
    std::memcpy(out + 8, &h.version, 4);
    out[12] = h.value_type;
    out[13] = h.index_type;
    out[14] = h.flags;
    std::memcpy(out + 16, &h.rows, 8);
    std::memcpy(out + 24, &h.cols, 8);
    std::memcpy(out + 32, &h.nnz, 8);
}

Header decode(const unsigned char* in) {
    Header h;
    std::memcpy(&h.version, in + 8, 4);
    h.value_type = in[12];
    h.index_type = in[13];
    h.flags = in[14];
    std::memcpy(&h.rows, in + 16, 8);
    std::memcpy(&h.cols, in + 24, 8);
    std::memcpy(&h.nnz, in + 32, 8);
    return h;
}

// The file size the header implies, or 0 when the counts overflow.
template <class V, class I>
std::uint64_t expected_bytes(const Header& h) {
    std::uint64_t indices = 0, index_bytes = 0, value_bytes = 0, total = 0;
    const auto rows1 = static_cast<std::uint64_t>(h.rows) + 1, nnz = static_cast<std::uint64_t>(h.nnz);
    if (__builtin_add_overflow(rows1, nnz, &indices) || __builtin_mul_overflow(indices, sizeof(I), &index_bytes)) return 0;
    if ((h.flags & kHasValues) && __builtin_mul_overflow(nnz, sizeof(V), &value_bytes)) return 0;
    if (__builtin_add_overflow(index_bytes, value_bytes, &total) || __builtin_add_overflow(total, kHeaderBytes + kChecksumBytes, &total))
        return 0;
    return total;
}

// The header of a file whose first `got` bytes are at data: its magic number, at least `need`
// bytes, its version.
Header checked_header(const unsigned char* data, std::size_t got, std::size_t need, const std::string& path) {
    if (got < 8 || std::memcmp(data, kMagic, 8) != 0) format_error(path + ": not an spk binary cache file (bad magic number)");
    if (got < need)
        format_error(path + ": truncated file: " + std::to_string(got) + " bytes, shorter than the " + std::to_string(need) + "-byte header" +
                     (need > kHeaderBytes ? " and checksum" : ""));
    const Header h = decode(data);
    if (h.version != kVersion)
        format_error(path + ": format version " + std::to_string(h.version) + ", this build reads version " + std::to_string(kVersion));
    return h;
}

}  // namespace

template <class V, class I>
void write_binary(const std::string& path, CsrView<const V, I> a) {
    const std::string name = "matrix written to " + path;
    detail::check_csr(a, Executor::cpu(), name, /*need_values=*/false);
    if (a.row_ptr != nullptr) validate(a, name);  // a default-constructed 0 x 0 matrix has no row_ptr
    Header h;
    h.value_type = value_code<V>();
    h.index_type = index_code<I>();
    h.flags = static_cast<unsigned char>((a.sorted ? kSorted : 0) | (a.values ? kHasValues : 0));
    h.rows = a.rows;
    h.cols = a.cols;
    h.nnz = a.nnz;
    unsigned char header[kHeaderBytes];
    encode(h, header);

    detail::OutputFile out(path);
    detail::Checksum64 sum;
    const auto put = [&](const void* data, std::size_t bytes) {
        sum.update(data, bytes);
        out.write({static_cast<const char*>(data), bytes});
    };
    put(header, kHeaderBytes);
    const I zero = 0;  // row_ptr of a 0 x 0 matrix that has none
    if (a.row_ptr)
        put(a.row_ptr, static_cast<std::size_t>(a.rows + 1) * sizeof(I));
    else
        put(&zero, sizeof(I));
    put(a.col_idx, static_cast<std::size_t>(a.nnz) * sizeof(I));
    if (a.values) put(a.values, static_cast<std::size_t>(a.nnz) * sizeof(V));
    const std::uint64_t checksum = sum.value();
    out.write({reinterpret_cast<const char*>(&checksum), sizeof checksum});
    out.close();
}

template <class V, class I>
Csr<V, I> read_binary(const std::string& path) {
    const std::string bytes = detail::read_file(path);
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    const auto fail = [&](const std::string& what) -> void { format_error(path + ": " + what); };
    const Header h = checked_header(data, bytes.size(), kHeaderBytes + kChecksumBytes, path);
    if (h.value_type != value_code<V>() || h.index_type != index_code<I>())
        fail(std::string("holds ") + value_code_name(h.value_type) + " values with " + index_code_name(h.index_type) + " indices, but " +
             value_code_name(value_code<V>()) + " values with " + index_code_name(index_code<I>()) + " indices were requested");
    if (h.flags & ~(kSorted | kHasValues)) fail("unknown flags " + std::to_string(h.flags) + " in the header");
    if (h.rows < 0 || h.cols < 0 || h.nnz < 0)
        fail("negative shape in the header (" + std::to_string(h.rows) + " x " + std::to_string(h.cols) + ", nnz " + std::to_string(h.nnz) +
             ")");
    constexpr index_t max_index = std::numeric_limits<I>::max();
    if (h.rows > max_index || h.cols > max_index || h.nnz > max_index) fail("the header's sizes do not fit its index type");
    const std::uint64_t expected = expected_bytes<V, I>(h);
    if (expected == 0) fail("the header's sizes overflow");
    if (bytes.size() < expected)
        fail("truncated file: " + std::to_string(bytes.size()) + " bytes, the header implies " + std::to_string(expected));
    if (bytes.size() > expected)
        fail(std::to_string(bytes.size() - expected) + " unexpected bytes after the checksum (the header implies " +
             std::to_string(expected) + ")");
    detail::Checksum64 sum;
    sum.update(data, expected - kChecksumBytes);
    std::uint64_t stored = 0;
    std::memcpy(&stored, data + expected - kChecksumBytes, kChecksumBytes);
    if (sum.value() != stored) fail("checksum mismatch: the file is corrupt");

    Csr<V, I> a(Executor::cpu(), h.rows, h.cols, h.nnz);
    const unsigned char* p = data + kHeaderBytes;
    const auto take = [&](void* dst, std::size_t n) {
        if (n) std::memcpy(dst, p, n);
        p += n;
    };
    take(a.row_ptr().data(), static_cast<std::size_t>(h.rows + 1) * sizeof(I));
    take(a.col_idx().data(), static_cast<std::size_t>(h.nnz) * sizeof(I));
    if (h.flags & kHasValues)
        take(a.values().data(), static_cast<std::size_t>(h.nnz) * sizeof(V));
    else
        std::fill_n(a.values().data(), h.nnz, value_cast<V>(1.0f));
    a.set_sorted((h.flags & kSorted) != 0);
    try {  // a valid checksum over a hand-made file can still hold a broken matrix
        validate(a.view(), "matrix");
    } catch (const Error& e) {
        format_error(path + ": invalid matrix in the file: " + e.what());
    }
    return a;
}

BinaryTypes read_binary_types(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) invalid_argument(path + ": cannot open for reading");
    unsigned char header[kHeaderBytes] = {};
    in.read(reinterpret_cast<char*>(header), kHeaderBytes);
    const Header h = checked_header(header, static_cast<std::size_t>(in.gcount()), kHeaderBytes, path);
    static constexpr ValueType values[] = {ValueType::f32, ValueType::f64, ValueType::f16, ValueType::bf16};  // by value_code
    if (h.value_type < 1 || h.value_type > 4 || h.index_type < 1 || h.index_type > 2)
        format_error(path + ": unknown value or index type codes " + std::to_string(h.value_type) + " and " + std::to_string(h.index_type) +
                     " in the header");
    return {values[h.value_type - 1], h.index_type == 1 ? IndexType::i32 : IndexType::i64};
}

#define SPK_INSTANTIATE(V, I)                                                  \
    template void write_binary<V, I>(const std::string&, CsrView<const V, I>); \
    template Csr<V, I> read_binary<V, I>(const std::string&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
