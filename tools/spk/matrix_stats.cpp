#include "matrix_stats.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/block_sizes.hpp"

namespace spk::cli {

namespace {

// Counts `value` in a log2 histogram: bucket 0 for 0, bucket b for [2^(b-1), 2^b).
void count_log2(std::vector<index_t>& histogram, index_t value) {
    const auto bucket = static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(value)));
    if (histogram.size() <= bucket) histogram.resize(bucket + 1, 0);
    ++histogram[bucket];
}

// Whether a's rows come in groups of g with equal columns.
template <class V, class I>
bool rows_in_groups(CsrView<const V, I> a, int g) {
    if (a.rows == 0 || a.rows % g != 0) return false;
    for (index_t first = 0; first < a.rows; first += g) {
        const I* cols = a.col_idx + a.row_ptr[first];
        const index_t len = a.row_ptr[first + 1] - a.row_ptr[first];
        for (index_t i = first + 1; i < first + g; ++i)
            if (a.row_ptr[i + 1] - a.row_ptr[i] != len || !std::equal(cols, cols + len, a.col_idx + a.row_ptr[i])) return false;
    }
    return true;
}

// Whether each of a's rows holds its columns in runs of s consecutive columns, each starting at a
// multiple of s (columns sorted, as compute_stats takes them).
template <class V, class I>
bool columns_in_runs(CsrView<const V, I> a, int s) {
    if (a.nnz == 0 || a.cols % s != 0) return false;
    for (index_t i = 0; i < a.rows; ++i) {
        const index_t begin = a.row_ptr[i], len = a.row_ptr[i + 1] - begin;
        if (len % s != 0) return false;
        for (index_t q = 0; q < len; ++q) {
            const index_t c = a.col_idx[begin + q];
            if (q % s == 0 ? c % s != 0 : c != static_cast<index_t>(a.col_idx[begin + q - 1]) + 1) return false;
        }
    }
    return true;
}

template <class Holds>
int largest_block_size(Holds&& holds) {
    int largest = 1;
    for (const int s : detail::kDenseBlockSizes)
        if (holds(s)) largest = s;
    return largest;
}

}  // namespace

template <class V, class I>
MatrixStats compute_stats(CsrView<const V, I> a) {
    MatrixStats s;
    s.rows = a.rows;
    s.cols = a.cols;
    s.nnz = a.nnz;
    s.square = a.rows == a.cols;
    s.min_row = a.rows > 0 ? a.nnz : 0;
    double sum_sq = 0;
    for (index_t i = 0; i < a.rows; ++i) {
        const index_t len = a.row_ptr[i + 1] - a.row_ptr[i];
        s.min_row = std::min(s.min_row, len);
        s.max_row = std::max(s.max_row, len);
        s.empty_rows += len == 0;
        sum_sq += static_cast<double>(len) * static_cast<double>(len);
        count_log2(s.histogram, len);
        for (I p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const index_t j = a.col_idx[p];
            s.diagonal += j == i;
            s.lower_bandwidth = std::max(s.lower_bandwidth, i - j);
            s.upper_bandwidth = std::max(s.upper_bandwidth, j - i);
            count_log2(s.distance, i > j ? i - j : j - i);
        }
    }
    if (a.rows > 0) {
        s.mean_row = static_cast<double>(a.nnz) / static_cast<double>(a.rows);
        s.stddev_row = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(a.rows) - s.mean_row * s.mean_row));
    }
    if (s.square) {
        const Csr<std::remove_const_t<V>, I> t = transpose(a);
        const auto tv = t.view();
        s.pattern_symmetric =
            std::equal(a.row_ptr, a.row_ptr + a.rows + 1, tv.row_ptr) && std::equal(a.col_idx, a.col_idx + a.nnz, tv.col_idx);
        s.value_symmetric = s.pattern_symmetric && (a.values == nullptr || std::equal(a.values, a.values + a.nnz, tv.values));
    }
    s.block_rows = largest_block_size([&](int g) { return rows_in_groups(a, g); });
    s.block_cols = largest_block_size([&](int size) { return columns_in_runs(a, size); });
    return s;
}

template MatrixStats compute_stats(CsrView<const double, std::int64_t>);

}  // namespace spk::cli
