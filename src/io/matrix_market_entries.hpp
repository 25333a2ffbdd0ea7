#pragma once
// The entry loops of the Matrix Market reader. Each visits every stored entry, checks it, and
// hands the expanded entries (symmetric mirror included) to a sink:
//     sink(row, col, value, line)   0-based row and col; value as P (float or double)
// Pattern entries come with value 1. The loops also check the entry count: too few lines is
// a truncated file, more entries than declared is an error too.
#include <cstdint>
#include <string>

#include "io/matrix_market_header.hpp"
#include "io/text_cursor.hpp"

namespace spk::detail {

// Skips blank and '%' comment lines; false at the end of the text.
inline bool next_entry_line(TextCursor& cur) {
    for (;;) {
        if (cur.at_end()) return false;
        const char c = cur.peek();
        if (c >= '0' && c <= '9') return true;  // the common case: an entry starts here
        cur.skip_blanks();
        if (cur.at_end()) return false;
        if (cur.at_line_end()) {
            cur.consume_line_end();
            continue;
        }
        if (cur.peek() == '%') {
            cur.skip_line();
            continue;
        }
        return true;
    }
}

[[noreturn]] inline void fail_truncated(const TextCursor& cur, const MmLayout& mm, std::int64_t found) {
    cur.fail("truncated file: the size line declares " + std::to_string(mm.header.entries) + " entries but the file ends after " +
             std::to_string(found));
}

// After the declared entries only blank and comment lines may follow.
inline void expect_no_more_entries(TextCursor& cur, const MmLayout& mm) {
    if (next_entry_line(cur))
        cur.fail("too many entries: the size line declares " + std::to_string(mm.header.entries) + ", found another line '" +
                 TextCursor::printable(cur.rest_of_line()) + "'");
}

template <class P>
P parse_value(TextCursor& cur, MmField field) {
    if (field == MmField::integer) return static_cast<P>(cur.parse_integer("integer value"));
    return cur.template parse_real<P>("real value");
}

template <class P, class Sink>
void for_each_coordinate_entry(TextCursor& cur, const MmLayout& mm, Sink&& sink) {
    const std::int64_t rows = mm.header.rows, cols = mm.header.cols;
    const bool mirror = mm.symmetry != MmSymmetry::general;
    const bool skew = mm.symmetry == MmSymmetry::skew_symmetric;
    // A symmetric file stores one triangle, lower or upper, and implies the other: entries on both
    // sides would count each pair twice, silently.
    std::int64_t first_below = 0, first_above = 0;  // the first lines with r > c and with r < c
    for (std::int64_t e = 0; e < mm.header.entries; ++e) {
        if (!next_entry_line(cur)) fail_truncated(cur, mm, e);
        const std::int64_t line = cur.line();
        const std::int64_t r = cur.parse_count("row index");
        if (r < 1 || r > rows) cur.fail("row index " + std::to_string(r) + " is out of range [1, " + std::to_string(rows) + "]");
        const std::int64_t c = cur.parse_count("column index");
        if (c < 1 || c > cols) cur.fail("column index " + std::to_string(c) + " is out of range [1, " + std::to_string(cols) + "]");
        if (skew && r == c)
            cur.fail("diagonal entry (" + std::to_string(r) + ", " + std::to_string(c) +
                     ") in a skew-symmetric matrix, which stores only entries off the diagonal");
        if (mirror && r != c) {
            std::int64_t& first = r > c ? first_below : first_above;
            if (first == 0) first = line;
            if (first_below != 0 && first_above != 0)
                cur.fail("entry (" + std::to_string(r) + ", " + std::to_string(c) + ") lies " + (r > c ? "below" : "above") +
                         " the diagonal, but line " + std::to_string(r > c ? first_above : first_below) + " has an entry " +
                         (r > c ? "above" : "below") + " it: a " + (skew ? "skew-symmetric" : "symmetric") +
                         " file stores one triangle and implies the other");
        }
        const P v = mm.field == MmField::pattern ? P(1) : parse_value<P>(cur, mm.field);
        cur.finish_line("the entry");
        sink(r - 1, c - 1, v, line);
        if (mirror && r != c) sink(c - 1, r - 1, skew ? -v : v, line);
    }
    expect_no_more_entries(cur, mm);
}

// Array files list values column by column; symmetric ones the lower triangle with the
// diagonal, skew-symmetric ones the lower triangle without it.
template <class P, class Sink>
void for_each_array_entry(TextCursor& cur, const MmLayout& mm, Sink&& sink) {
    const std::int64_t rows = mm.header.rows, cols = mm.header.cols;
    const bool mirror = mm.symmetry != MmSymmetry::general;
    const bool skew = mm.symmetry == MmSymmetry::skew_symmetric;
    std::int64_t e = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
        const std::int64_t first = mm.symmetry == MmSymmetry::general ? 0 : (skew ? j + 1 : j);
        for (std::int64_t i = first; i < rows; ++i, ++e) {
            if (!next_entry_line(cur)) fail_truncated(cur, mm, e);
            const std::int64_t line = cur.line();
            const P v = parse_value<P>(cur, mm.field);
            cur.finish_line("the value (array files hold one value a line)");
            sink(i, j, v, line);
            if (mirror && i != j) sink(j, i, skew ? -v : v, line);
        }
    }
    expect_no_more_entries(cur, mm);
}

}  // namespace spk::detail
