// Matrix Market writers: CSR as "coordinate real|pattern general", dense as "array real general".
// Numbers are formatted with std::to_chars into a large buffer (no iostreams, no locale).
#include <charconv>
#include <type_traits>

#include "core/check.hpp"
#include "core/instantiate.hpp"
#include "io/text_file.hpp"
#include "spk/io.hpp"

namespace spk {

namespace {

// Collects text and hands it to the file in blocks of about 1 MiB.
class TextWriter {
public:
    explicit TextWriter(const std::string& path) : out_(path) { buf_.reserve(kBlock + 128); }

    void text(std::string_view s) {
        buf_.append(s);
        flush_if_full();
    }
    void integer(std::int64_t v) {
        char tmp[24];
        const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
        buf_.append(tmp, r.ptr);
    }
    // precision > 0: that many significant digits; otherwise the shortest exact text.
    template <class F>
    void real(F v, int precision) {
        char tmp[64];
        const auto r = precision > 0 ? std::to_chars(tmp, tmp + sizeof tmp, v, std::chars_format::general, precision)
                                     : std::to_chars(tmp, tmp + sizeof tmp, v);
        buf_.append(tmp, r.ptr);
    }
    void end_line() {
        buf_.push_back('\n');
        flush_if_full();
    }
    void close() {
        out_.write(buf_);
        buf_.clear();
        out_.close();
    }

private:
    static constexpr std::size_t kBlock = std::size_t{1} << 20;
    void flush_if_full() {
        if (buf_.size() >= kBlock) {
            out_.write(buf_);
            buf_.clear();
        }
    }
    detail::OutputFile out_;
    std::string buf_;
};

// The float type a value is written as, and the digits that read it back exactly:
// 17 for double, 9 for float (f16 and bf16 are written through float).
template <class V>
using write_t = std::conditional_t<std::is_same_v<V, double>, double, float>;
template <class V>
int digits_for(int requested) {
    if (requested <= 0 || std::is_same_v<V, double>) return requested;
    return requested < 9 ? requested : 9;
}

void check_precision(int precision) {
    // to_chars needs a bounded buffer; 40 digits is more than any binary64 value needs.
    if (precision > 40) invalid_argument("MatrixMarketWriteOptions::precision: " + std::to_string(precision) + " is more than 40 digits");
}

}  // namespace

template <class V, class I>
void write_matrix_market(const std::string& path, CsrView<const V, I> a, const MatrixMarketWriteOptions& options) {
    const std::string name = "matrix written to " + path;
    detail::check_csr(a, Executor::cpu(), name, /*need_values=*/false);
    if (a.row_ptr != nullptr) validate(a, name);  // a default-constructed 0 x 0 matrix has no row_ptr
    check_precision(options.precision);
    const bool pattern = options.pattern || a.values == nullptr;
    const int digits = digits_for<V>(options.precision);

    TextWriter w(path);
    w.text(pattern ? "%%MatrixMarket matrix coordinate pattern general\n" : "%%MatrixMarket matrix coordinate real general\n");
    w.integer(a.rows);
    w.text(" ");
    w.integer(a.cols);
    w.text(" ");
    w.integer(a.nnz);
    w.end_line();
    for (index_t i = 0; i < a.rows; ++i) {
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            w.integer(i + 1);
            w.text(" ");
            w.integer(static_cast<std::int64_t>(a.col_idx[p]) + 1);
            if (!pattern) {
                w.text(" ");
                w.real(value_cast<write_t<V>>(a.values[p]), digits);
            }
            w.end_line();
        }
    }
    w.close();
}

template <class V>
void write_matrix_market(const std::string& path, DenseView<const V> d, const MatrixMarketWriteOptions& options) {
    detail::check_dense(d, Executor::cpu(), "matrix written to " + path);
    check_precision(options.precision);
    if (options.pattern) invalid_argument("write_matrix_market: a dense matrix cannot be written as pattern (" + path + ")");
    const int digits = digits_for<V>(options.precision);
    TextWriter w(path);
    w.text("%%MatrixMarket matrix array real general\n");
    w.integer(d.rows);
    w.text(" ");
    w.integer(d.cols);
    w.end_line();
    for (index_t j = 0; j < d.cols; ++j)  // the array format lists values column by column
        for (index_t i = 0; i < d.rows; ++i) {
            w.real(value_cast<write_t<V>>(d(i, j)), digits);
            w.end_line();
        }
    w.close();
}

#define SPK_INSTANTIATE(V, I) \
    template void write_matrix_market<V, I>(const std::string&, CsrView<const V, I>, const MatrixMarketWriteOptions&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE
template void write_matrix_market<float>(const std::string&, DenseView<const float>, const MatrixMarketWriteOptions&);
template void write_matrix_market<double>(const std::string&, DenseView<const double>, const MatrixMarketWriteOptions&);
template void write_matrix_market<f16>(const std::string&, DenseView<const f16>, const MatrixMarketWriteOptions&);
template void write_matrix_market<bf16>(const std::string&, DenseView<const bf16>, const MatrixMarketWriteOptions&);

}  // namespace spk
