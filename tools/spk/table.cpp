#include "table.hpp"

#include <algorithm>
#include <cctype>

namespace spk::cli {

namespace {

bool looks_numeric(const std::string& s) {
    if (s.empty()) return true;  // empty cells do not decide a column's alignment
    const unsigned char c = static_cast<unsigned char>(s[0]);
    return std::isdigit(c) || ((c == '-' || c == '+' || c == '.') && s.size() > 1) || s == "-";
}

}  // namespace

void Table::print(FILE* out) const {
    const std::size_t ncols = headers_.size();
    std::vector<std::size_t> width(ncols);
    std::vector<bool> right(ncols, true);
    for (std::size_t c = 0; c < ncols; ++c) {
        width[c] = headers_[c].size();
        for (const auto& row : rows_) {
            if (c >= row.size()) continue;
            width[c] = std::max(width[c], row[c].size());
            if (!looks_numeric(row[c])) right[c] = false;
        }
    }
    auto print_row = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t c = 0; c < ncols; ++c) {
            const std::string cell = c < row.size() ? row[c] : std::string();
            const std::string pad(width[c] - cell.size(), ' ');
            if (c > 0) line += "  ";
            line += right[c] ? pad + cell : (c + 1 < ncols ? cell + pad : cell);
        }
        std::fprintf(out, "%s\n", line.c_str());
    };
    print_row(headers_);
    std::vector<std::string> rule(ncols);
    for (std::size_t c = 0; c < ncols; ++c) rule[c] = std::string(width[c], '-');
    print_row(rule);
    for (const auto& row : rows_) print_row(row);
}

}  // namespace spk::cli
