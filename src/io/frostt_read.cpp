// FROSTT reader for 3-way tensors: lines "i j k value" (1-based), '#' comments and blank lines
// skipped. A comment "# dims I x J x K" (also "# dims: I J K", remarks may follow after a ';';
// "dims" in any case) fixes the dims; otherwise each mode's dim is its largest index.
#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <vector>

#include "core/instantiate.hpp"
#include "io/text_cursor.hpp"
#include "io/text_file.hpp"
#include "spk/io.hpp"

namespace spk {

namespace {

using detail::TextCursor;

constexpr int kModes = 3;

std::size_t count_fields(std::string_view line) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < line.size();) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i == line.size()) break;
        ++n;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    }
    return n;
}

[[noreturn]] void fail_field_count(const TextCursor& line_start) {
    line_start.fail("expected 4 fields 'i j k value' for a 3-way tensor, found " + std::to_string(count_fields(line_start.rest_of_line())));
}

struct DeclaredDims {
    std::array<index_t, kModes> dims{};
    std::int64_t line = 0;
};

// A '#' comment line (cursor on the '#'): returns the dims it declares, if it is a dims comment.
std::optional<std::array<index_t, kModes>> parse_dims_comment(const TextCursor& cur) {
    std::string_view text = cur.rest_of_line().substr(1);
    const std::size_t b = text.find_first_not_of(" \t");
    if (b == std::string_view::npos) return std::nullopt;
    text.remove_prefix(b);
    const auto is_word_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    const bool says_dims = text.size() >= 4 && lower(text[0]) == 'd' && lower(text[1]) == 'i' && lower(text[2]) == 'm' && lower(text[3]) == 's';
    if (!says_dims || (text.size() > 4 && is_word_char(text[4]))) return std::nullopt;  // any case: dims, Dims, DIMS
    text = text.substr(0, text.find(';'));  // "# dims 3 x 4 x 5; other remarks"
    const std::string shown = TextCursor::printable(cur.rest_of_line());
    std::vector<index_t> dims;
    constexpr std::string_view separators = " \t:=,xX";
    std::size_t i = 4;
    while (i < text.size()) {
        i = text.find_first_not_of(separators, i);
        if (i == std::string_view::npos) break;
        const std::size_t e = std::min(text.find_first_of(separators, i), text.size());
        index_t v = 0;
        const auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + e, v);
        if (ec != std::errc() || ptr != text.data() + e || v < 0)
            cur.fail("malformed dims comment '" + shown + "': expected '# dims I x J x K'");
        dims.push_back(v);
        i = e;
    }
    if (dims.size() != kModes)
        cur.fail("dims comment '" + shown + "' gives " + std::to_string(dims.size()) + " dims, a 3-way tensor needs 3");
    return std::array<index_t, kModes>{dims[0], dims[1], dims[2]};
}

}  // namespace

template <class V, class I>
CooTensor3<V, I> read_frostt(const std::string& path) {
    using P = detail::real_parse_t<V>;
    const std::string text = detail::read_file(path);
    TextCursor cur(text, path);
    CooTensor3<V, I> t;
    const std::size_t guess = text.size() / 16 + 1;  // a typical line is 10-30 bytes
    for (auto& idx : t.idx) idx.reserve(guess);
    t.values.reserve(guess);
    std::optional<DeclaredDims> declared;
    std::array<index_t, kModes> largest{0, 0, 0};
    static constexpr const char* kIndexName[kModes] = {"mode-1 index", "mode-2 index", "mode-3 index"};

    for (;;) {
        cur.skip_blanks();
        if (cur.at_end()) break;
        if (cur.at_line_end()) {
            cur.consume_line_end();
            continue;
        }
        if (cur.peek() == '#') {
            if (auto dims = parse_dims_comment(cur)) {
                if (declared) cur.fail("a second dims comment (the first is on line " + std::to_string(declared->line) + ")");
                if (t.nnz() > 0) cur.fail("dims comment after the first entry: it must come before the entries");
                for (int m = 0; m < kModes; ++m)
                    if ((*dims)[m] > std::numeric_limits<I>::max())
                        invalid_argument(path + ":" + std::to_string(cur.line()) + ": the declared dim " + std::to_string((*dims)[m]) +
                                         " does not fit " + std::string(index_traits<I>::name) + " indices; read it with int64 indices");
                declared = DeclaredDims{*dims, cur.line()};
            }
            cur.skip_line();
            continue;
        }
        const TextCursor line_start = cur;
        for (int m = 0; m < kModes; ++m) {
            cur.skip_blanks();
            if (cur.at_line_end()) fail_field_count(line_start);
            const index_t k = cur.parse_count(kIndexName[m]);
            if (k < 1) cur.fail(std::string(kIndexName[m]) + " " + std::to_string(k) + " is < 1 (FROSTT indices are 1-based)");
            if (declared && k > declared->dims[m])
                cur.fail(std::string(kIndexName[m]) + " " + std::to_string(k) + " exceeds the dim " + std::to_string(declared->dims[m]) +
                         " declared on line " + std::to_string(declared->line));
            if (k > std::numeric_limits<I>::max())
                invalid_argument(path + ":" + std::to_string(cur.line()) + ": " + kIndexName[m] + " " + std::to_string(k) +
                                 " does not fit " + std::string(index_traits<I>::name) + " indices; read it with int64 indices");
            largest[m] = std::max(largest[m], k);
            t.idx[m].push_back(static_cast<I>(k - 1));
        }
        cur.skip_blanks();
        if (cur.at_line_end()) fail_field_count(line_start);
        const P v = cur.parse_real<P>("value");
        cur.skip_blanks();
        if (!cur.at_line_end()) fail_field_count(line_start);
        cur.consume_line_end();
        t.values.push_back(value_cast<V>(v));
    }
    if (!declared && t.nnz() == 0) format_error(path + ": no entries and no dims comment: not a FROSTT tensor");
    t.dims = declared ? declared->dims : largest;
    return t;
}

#define SPK_INSTANTIATE(V, I) template CooTensor3<V, I> read_frostt<V, I>(const std::string&);
SPK_FOR_ALL_VALUES_AND_INDICES(SPK_INSTANTIATE)
#undef SPK_INSTANTIATE

}  // namespace spk
