// Matrix Market readers: the header alone, a CSR (through COO and coo_to_csr) or a dense matrix.
#include <algorithm>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/instantiate.hpp"
#include "io/matrix_market_entries.hpp"
#include "core/host_memory.hpp"
#include "io/matrix_market_header.hpp"
#include "io/text_cursor.hpp"
#include "io/text_file.hpp"
#include "spk/io.hpp"

namespace spk {

namespace {

using detail::MmField;
using detail::MmFormat;
using detail::MmLayout;
using detail::TextCursor;

template <class V>
using parse_t = detail::real_parse_t<V>;

struct MmFile {
    std::string text;
    MmLayout mm;
    std::size_t data_bytes() const { return text.size() - mm.data_offset; }
    TextCursor cursor(const std::string& path) const {
        return TextCursor(std::string_view(text).substr(mm.data_offset), path, mm.data_line);
    }
};

MmFile load(const std::string& path) {
    MmFile f;
    f.text = detail::read_file(path);
    f.mm = *detail::parse_matrix_market_header(f.text, path, /*complete=*/true);
    return f;
}

template <class I>
void check_index_fits(const std::string& path, const MatrixMarketHeader& h) {
    constexpr index_t max = std::numeric_limits<I>::max();
    if (h.rows > max || h.cols > max)
        invalid_argument(path + ": a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix does not fit " +
                         std::string(index_traits<I>::name) + " indices; read it with int64 indices");
}

// A tiny file may declare billions of rows: before the CSR is built (it holds their offsets three
// times: counts, merged counts, the matrix's own), whether they fit the host at all. After the
// entries, so that a truncated or malformed file says so first.
template <class I>
void check_row_offsets_fit(const std::string& path, const MatrixMarketHeader& h) {
    const double offset_bytes = 3 * (static_cast<double>(h.rows) + 1) * sizeof(I);
    if (detail::beyond_host_memory(offset_bytes))
        out_of_memory(path + ": a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix needs " +
                      detail::gigabytes(offset_bytes) + " of row offsets, more than the host's " + detail::gigabytes(detail::host_memory_bytes()));
}

// Names the first repeated (row, column) with both lines, after coo_to_csr merged some entries.
template <class V, class I>
[[noreturn]] void report_duplicate(const Coo<V, I>& coo, const std::vector<std::int64_t>& lines, const std::string& path) {
    std::vector<std::size_t> order(coo.row_idx.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return coo.row_idx[x] != coo.row_idx[y] ? coo.row_idx[x] < coo.row_idx[y] : coo.col_idx[x] < coo.col_idx[y];
    });
    for (std::size_t k = 1; k < order.size(); ++k) {
        const std::size_t a = order[k - 1], b = order[k];
        if (coo.row_idx[a] == coo.row_idx[b] && coo.col_idx[a] == coo.col_idx[b])
            format_error(path + ":" + std::to_string(lines[b]) + ": duplicate entry (row " + std::to_string(coo.row_idx[b] + 1) +
                         ", column " + std::to_string(coo.col_idx[b] + 1) + "), first given on line " + std::to_string(lines[a]));
    }
    format_error(path + ": duplicate entries");  // not reached: coo_to_csr merged some pair
}

}  // namespace

MatrixMarketHeader read_matrix_market_header(const std::string& path) {
    // Read only as much of the file as the header needs (comment blocks can be long).
    for (std::size_t bytes = std::size_t{1} << 16;; bytes *= 4) {
        bool complete = false;
        const std::string text = detail::read_file_prefix(path, bytes, complete);
        if (auto mm = detail::parse_matrix_market_header(text, path, complete)) return mm->header;
    }
}

template <class V, class I>
Csr<V, I> read_matrix_market(const std::string& path, Duplicates dup) {
    using P = parse_t<V>;
    const MmFile f = load(path);
    const MmLayout& mm = f.mm;
    check_index_fits<I>(path, mm.header);
    const bool values = mm.field != MmField::pattern;  // pattern: coo_to_csr sets every value to 1
    const bool track_lines = dup == Duplicates::reject && mm.format == MmFormat::coordinate;

    Coo<V, I> coo;
    coo.rows = mm.header.rows;
    coo.cols = mm.header.cols;
    std::vector<std::int64_t> lines;
    // Reserve for the declared entries, but never more than the text can hold (an entry line
    // takes at least 4 bytes), so a lying size line cannot make us allocate absurd amounts.
    const auto stored =
        static_cast<std::size_t>(std::min<std::int64_t>(mm.header.entries, static_cast<std::int64_t>(f.data_bytes() / 4 + 1)));
    const std::size_t expected = mm.symmetry == detail::MmSymmetry::general ? stored : 2 * stored;
    coo.row_idx.reserve(expected);
    coo.col_idx.reserve(expected);
    if (values) coo.values.reserve(expected);
    if (track_lines) lines.reserve(expected);

    const auto add = [&](std::int64_t i, std::int64_t j, P v, std::int64_t line) {
        coo.row_idx.push_back(static_cast<I>(i));
        coo.col_idx.push_back(static_cast<I>(j));
        if (values) coo.values.push_back(value_cast<V>(v));
        if (track_lines) lines.push_back(line);
    };
    TextCursor cur = f.cursor(path);
    if (mm.format == MmFormat::coordinate) {
        detail::for_each_coordinate_entry<P>(cur, mm, add);
    } else {  // a dense file as CSR keeps its non-zeros
        detail::for_each_array_entry<P>(cur, mm, [&](std::int64_t i, std::int64_t j, P v, std::int64_t line) {
            if (v != P(0)) add(i, j, v, line);
        });
    }
    if (coo.nnz() > std::numeric_limits<I>::max())
        invalid_argument(path + ": " + std::to_string(coo.nnz()) + " entries do not fit " + std::string(index_traits<I>::name) +
                         " indices; read it with int64 indices");
    check_row_offsets_fit<I>(path, mm.header);
    Csr<V, I> csr = coo_to_csr(coo, Duplicates::sum);
    if (track_lines && csr.nnz() < coo.nnz()) report_duplicate(coo, lines, path);
    return csr;
}

template <class V>
Dense<V> read_matrix_market_dense(const std::string& path) {
    using P = parse_t<V>;
    const MmFile f = load(path);
    const MmLayout& mm = f.mm;
    const index_t rows = mm.header.rows, cols = mm.header.cols;
    index_t size = 0;
    if (__builtin_mul_overflow(rows, cols, &size))
        invalid_argument(path + ": a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix is too large to hold densely");
    TextCursor cur = f.cursor(path);
    // Each array value takes at least 2 bytes; a file too short for the declared values is
    // truncated, and a scan finds the line before anything is allocated for it.
    if (mm.format == MmFormat::array && static_cast<std::uint64_t>(mm.header.entries) > (f.data_bytes() + 1) / 2) {
        TextCursor probe = cur;
        detail::for_each_array_entry<P>(probe, mm, [](std::int64_t, std::int64_t, P, std::int64_t) {});
    }
    std::vector<double> acc;  // row-major; duplicates of a coordinate file are summed in double
    try {
        acc.assign(static_cast<std::size_t>(size), 0.0);
    } catch (const std::exception&) {  // bad_alloc, or length_error beyond what a vector can address
        out_of_memory(path + ": not enough memory for a dense " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    }
    const auto at = [&](std::int64_t i, std::int64_t j) -> double& { return acc[static_cast<std::size_t>(i * cols + j)]; };
    if (mm.format == MmFormat::coordinate) {
        const bool pattern = mm.field == MmField::pattern;
        detail::for_each_coordinate_entry<P>(cur, mm, [&](std::int64_t i, std::int64_t j, P v, std::int64_t) {
            if (pattern)
                at(i, j) = 1.0;
            else
                at(i, j) += static_cast<double>(v);
        });
    } else {
        detail::for_each_array_entry<P>(cur, mm,
                                        [&](std::int64_t i, std::int64_t j, P v, std::int64_t) { at(i, j) = static_cast<double>(v); });
    }
    std::vector<V> host(acc.size());
    for (std::size_t p = 0; p < acc.size(); ++p) host[p] = value_cast<V>(acc[p]);
    return Dense<V>(Executor::cpu(), rows, cols, host);
}

#define SPK_INSTANTIATE(V, I) template Csr<V, I> read_matrix_market<V, I>(const std::string&, Duplicates);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE
template Dense<float> read_matrix_market_dense<float>(const std::string&);
template Dense<double> read_matrix_market_dense<double>(const std::string&);
template Dense<f16> read_matrix_market_dense<f16>(const std::string&);
template Dense<bf16> read_matrix_market_dense<bf16>(const std::string&);

}  // namespace spk
