// Matrix Market header: "%%MatrixMarket matrix <format> <field> <symmetry>", '%' comment
// lines (blank lines tolerated), then the size line "rows cols entries" (coordinate) or
// "rows cols" (array).
#include "io/matrix_market_header.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <vector>

#include "io/text_cursor.hpp"

namespace spk::detail {

namespace {

std::vector<std::string_view> split_words(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t b = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > b) words.push_back(line.substr(b, i - b));
    }
    return words;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); });
    return out;
}

constexpr const char* kBannerForm = "'%%MatrixMarket matrix <format> <field> <symmetry>'";

void parse_banner(TextCursor& cur, MmLayout& mm) {
    const std::string_view line = cur.rest_of_line();
    const auto words = split_words(line);
    const auto shown = TextCursor::printable(line);
    if (words.empty() || lower(words[0]) != "%%matrixmarket")
        cur.fail(std::string("bad banner: expected ") + kBannerForm + ", found '" + shown + "'");
    if (words.size() != 5)
        cur.fail(std::string("bad banner: expected 5 words ") + kBannerForm + ", found " + std::to_string(words.size()) + " in '" + shown +
                 "'");
    MatrixMarketHeader& h = mm.header;
    h.object = lower(words[1]);
    h.format = lower(words[2]);
    h.field = lower(words[3]);
    h.symmetry = lower(words[4]);
    const auto word = [](std::string_view w) { return TextCursor::printable(w); };
    if (h.object != "matrix") cur.fail("unknown object '" + word(words[1]) + "' in the banner (only 'matrix' is supported)");

    if (h.format == "coordinate")
        mm.format = MmFormat::coordinate;
    else if (h.format == "array")
        mm.format = MmFormat::array;
    else
        cur.fail("unknown format '" + word(words[2]) + "' in the banner (expected coordinate or array)");

    if (h.field == "real")
        mm.field = MmField::real;
    else if (h.field == "integer")
        mm.field = MmField::integer;
    else if (h.field == "pattern")
        mm.field = MmField::pattern;
    else if (h.field == "complex")
        cur.fail("complex matrices are unsupported (field 'complex' in the banner)");
    else
        cur.fail("unknown field '" + word(words[3]) + "' in the banner (expected real, integer or pattern)");

    if (h.symmetry == "general")
        mm.symmetry = MmSymmetry::general;
    else if (h.symmetry == "symmetric")
        mm.symmetry = MmSymmetry::symmetric;
    else if (h.symmetry == "skew-symmetric")
        mm.symmetry = MmSymmetry::skew_symmetric;
    else if (h.symmetry == "hermitian")
        cur.fail("hermitian matrices are unsupported (symmetry 'hermitian' in the banner)");
    else
        cur.fail("unknown symmetry '" + word(words[4]) + "' in the banner (expected general, symmetric or skew-symmetric)");

    if (mm.field == MmField::pattern && mm.format == MmFormat::array) cur.fail("bad banner: the pattern field needs the coordinate format");
    if (mm.field == MmField::pattern && mm.symmetry == MmSymmetry::skew_symmetric)
        cur.fail("bad banner: a pattern matrix cannot be skew-symmetric");
}

std::int64_t parse_size(const TextCursor& cur, std::string_view tok, const char* name) {
    const std::string shown = TextCursor::printable(tok);
    if (tok.size() > 1 && tok[0] == '-' && tok.find_first_not_of("0123456789", 1) == std::string_view::npos)
        cur.fail(std::string("malformed size line: ") + name + " '" + shown + "' is negative");
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec == std::errc::result_out_of_range) cur.fail(std::string("malformed size line: ") + name + " '" + shown + "' is too large");
    if (ec != std::errc() || ptr != tok.data() + tok.size())
        cur.fail(std::string("malformed size line: non-numeric ") + name + " '" + shown + "'");
    return v;
}

// How many entries the file may store: all of them, or one triangle for symmetric shapes.
// INT64_MAX when that count overflows.
std::int64_t storable_entries(std::int64_t rows, std::int64_t cols, MmSymmetry symmetry) {
    std::int64_t n = 0;
    if (symmetry == MmSymmetry::general) {
        if (__builtin_mul_overflow(rows, cols, &n)) return std::numeric_limits<std::int64_t>::max();
        return n;
    }
    const std::int64_t other = symmetry == MmSymmetry::symmetric ? rows + 1 : rows - 1;  // rows == cols here
    if (rows == 0 || __builtin_mul_overflow(rows, other, &n)) return rows == 0 ? 0 : std::numeric_limits<std::int64_t>::max();
    return n / 2;
}

void parse_size_line(TextCursor& cur, MmLayout& mm) {
    const std::string_view line = cur.rest_of_line();
    const auto words = split_words(line);
    const bool coordinate = mm.format == MmFormat::coordinate;
    const std::size_t want = coordinate ? 3 : 2;
    const char* form = coordinate ? "'rows cols entries'" : "'rows cols'";
    if (words.size() < want)
        cur.fail("malformed size line '" + TextCursor::printable(line) + "': expected " + form + " for the " + mm.header.format +
                 " format");
    if (words.size() > want) cur.fail("malformed size line: extra token '" + TextCursor::printable(words[want]) + "' after " + form);
    MatrixMarketHeader& h = mm.header;
    h.rows = parse_size(cur, words[0], "row count");
    h.cols = parse_size(cur, words[1], "column count");
    if (mm.symmetry != MmSymmetry::general && h.rows != h.cols)
        cur.fail("size line: a " + h.symmetry + " matrix must be square, found " + std::to_string(h.rows) + " x " + std::to_string(h.cols));
    const std::int64_t capacity = storable_entries(h.rows, h.cols, mm.symmetry);
    if (coordinate) {
        h.entries = parse_size(cur, words[2], "entry count");
        if (h.entries > capacity)
            cur.fail("size line: " + std::to_string(h.entries) + " entries do not fit a " + std::to_string(h.rows) + " x " +
                     std::to_string(h.cols) + " " + h.symmetry + " matrix (at most " + std::to_string(capacity) + ")");
    } else {
        if (capacity == std::numeric_limits<std::int64_t>::max())
            cur.fail("size line: a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) + " array has too many entries");
        h.entries = capacity;
    }
    cur.skip_line();
}

}  // namespace

std::optional<MmLayout> parse_matrix_market_header(std::string_view text, const std::string& path, bool complete) {
    TextCursor cur(text, path);
    // A line is usable when its terminator is in the text, or the text is the whole file.
    const auto line_available = [&] {
        return complete || cur.rest_of_line().size() < static_cast<std::size_t>(text.data() + text.size() - cur.position());
    };
    MmLayout mm;
    if (cur.at_end()) cur.fail(std::string("empty file: expected the banner ") + kBannerForm);
    if (!line_available()) return std::nullopt;
    parse_banner(cur, mm);
    cur.skip_line();
    for (;;) {
        if (cur.at_end()) {
            if (!complete) return std::nullopt;
            cur.fail(std::string("missing size line: expected ") +
                     (mm.format == MmFormat::coordinate ? "'rows cols entries'" : "'rows cols'") + " after the comments");
        }
        if (!line_available()) return std::nullopt;
        const std::string_view line = cur.rest_of_line();
        const std::size_t first = line.find_first_not_of(" \t");
        if (first == std::string_view::npos || line[first] == '%') {  // blank or comment
            cur.skip_line();
            continue;
        }
        parse_size_line(cur, mm);
        break;
    }
    mm.data_offset = static_cast<std::size_t>(cur.position() - text.data());
    mm.data_line = cur.line();
    return mm;
}

}  // namespace spk::detail
