#pragma once
// Splits rows into chunks of roughly equal work, so that OpenMP threads stay balanced on
// power-law row lengths. A row costs its non-zeros plus one (its write-back), so long runs of
// empty or short rows are split too. O(parts * log rows): cheap enough to redo on every call.
#include <algorithm>
#include <vector>

#include "spk/matrix.hpp"

namespace spk::detail::cpu {

// Returns parts+1 row boundaries (first 0, last rows); chunks may be empty.
template <class I>
std::vector<index_t> balanced_row_splits(const I* row_ptr, index_t rows, index_t parts) {
    std::vector<index_t> bounds(static_cast<std::size_t>(parts + 1), rows);
    bounds[0] = 0;
    const auto cost = [&](index_t i) { return static_cast<double>(row_ptr[i]) + static_cast<double>(i); };
    const double total = cost(rows);
    index_t lo = 0;
    for (index_t t = 1; t < parts; ++t) {
        const double target = total * static_cast<double>(t) / static_cast<double>(parts);
        // First row boundary whose cumulative cost reaches the target.
        index_t l = lo, h = rows;
        while (l < h) {
            const index_t mid = l + (h - l) / 2;
            if (cost(mid) < target)
                l = mid + 1;
            else
                h = mid;
        }
        bounds[static_cast<std::size_t>(t)] = lo = l;
    }
    return bounds;
}

// How many chunks to hand out dynamically: a few per thread absorb uneven rows.
inline index_t chunk_count(index_t rows, int threads) {
    return std::max<index_t>(1, std::min<index_t>(rows, threads == 1 ? 1 : 16 * threads));
}

}  // namespace spk::detail::cpu
