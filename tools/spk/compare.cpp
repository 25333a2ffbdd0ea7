#include "compare.hpp"

#include <algorithm>
#include <cmath>

namespace spk::cli {

namespace {

Verdict fail(std::string note) {
    Verdict v;
    v.pass = false;
    v.note = std::move(note);
    return v;
}

std::string position(const OpOutput& o, std::size_t p) {
    if (o.sparse) {
        const auto row = std::upper_bound(o.row_ptr.begin(), o.row_ptr.end(), static_cast<std::int64_t>(p)) - o.row_ptr.begin() - 1;
        return std::string("(").append(std::to_string(row)).append(", ").append(std::to_string(o.col_idx[p])).append(")");
    }
    const auto cols = static_cast<std::size_t>(std::max<index_t>(o.cols, 1));
    return std::string("(").append(std::to_string(p / cols)).append(", ").append(std::to_string(p % cols)).append(")");
}

}  // namespace

Verdict compare(const OpOutput& got, const OpOutput& want, double rtol) {
    if (want.count) {
        if (!got.count || *got.count != *want.count)
            return fail("count " + (got.count ? std::to_string(*got.count) : std::string("missing")) + ", expected " +
                        std::to_string(*want.count));
        return {};
    }
    if (got.rows != want.rows || got.cols != want.cols || got.values.size() != want.values.size())
        return fail("shape " + std::to_string(got.rows) + " x " + std::to_string(got.cols) + " (" + std::to_string(got.values.size()) +
                    " values), expected " + std::to_string(want.rows) + " x " + std::to_string(want.cols) + " (" +
                    std::to_string(want.values.size()) + ")");
    if (got.sparse != want.sparse || got.row_ptr != want.row_ptr) return fail("sparse pattern differs (row lengths)");
    if (got.col_idx != want.col_idx) {
        const auto p = static_cast<std::size_t>(std::mismatch(got.col_idx.begin(), got.col_idx.end(), want.col_idx.begin()).first -
                                                got.col_idx.begin());
        return fail("sparse pattern differs at entry " + std::to_string(p) + " " + position(want, p));
    }
    double scale = 0;
    for (const double w : want.values)
        if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
    Verdict v;
    for (std::size_t p = 0; p < want.values.size(); ++p) {
        const double g = got.values[p], w = want.values[p];
        if (std::isnan(w) || std::isinf(w) || std::isnan(g) || std::isinf(g)) {
            const bool same = (std::isnan(w) && std::isnan(g)) || g == w;
            if (!same && v.pass) {
                v.pass = false;
                v.note = "at " + position(want, p) + ": " + std::to_string(g) + ", expected " + std::to_string(w);
            }
            continue;
        }
        const double err = std::fabs(g - w);
        v.max_abs = std::max(v.max_abs, err);
        if (std::fabs(w) >= 1e-3 * scale && w != 0) v.max_rel = std::max(v.max_rel, err / std::fabs(w));
        if (err > rtol * (std::fabs(w) + scale) && v.pass) {
            v.pass = false;
            v.note = "at " + position(want, p) + ": " + std::to_string(g) + ", expected " + std::to_string(w);
        }
    }
    return v;
}

}  // namespace spk::cli
