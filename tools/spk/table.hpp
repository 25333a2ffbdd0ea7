#pragma once
// A plain-text table: columns sized to their widest cell, numeric columns right-aligned.
#include <cstdio>
#include <string>
#include <vector>

namespace spk::cli {

class Table {
public:
    explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
    // Missing trailing cells print empty; extra cells are an error in the caller and ignored.
    void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
    bool empty() const { return rows_.empty(); }
    void print(FILE* out) const;

private:
    std::vector<std::string> headers_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace spk::cli
