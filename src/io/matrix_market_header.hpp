#pragma once
// The Matrix Market banner, comments and size line, parsed and checked before any entry is read.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spk/io.hpp"

namespace spk::detail {

enum class MmFormat { coordinate, array };
enum class MmField { real, integer, pattern };
enum class MmSymmetry { general, symmetric, skew_symmetric };

struct MmLayout {
    MatrixMarketHeader header;
    MmFormat format = MmFormat::coordinate;
    MmField field = MmField::real;
    MmSymmetry symmetry = MmSymmetry::general;
    std::size_t data_offset = 0;  // where the first entry line starts in the text
    std::int64_t data_line = 0;   // and its line number
};

// Parses the header at the start of `text`. Throws Format ("path:line: ...") on a bad banner,
// unknown or unsupported words, a missing or malformed size line, or sizes that cannot hold
// the declared entries. When `complete` is false and the text ends inside the header, returns
// nullopt so the caller can read more.
std::optional<MmLayout> parse_matrix_market_header(std::string_view text, const std::string& path, bool complete);

}  // namespace spk::detail
