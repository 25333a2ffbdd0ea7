#pragma once
// The structural statistics `spk info` prints.
#include <cstdint>
#include <vector>

#include "spk/matrix.hpp"

namespace spk::cli {

struct MatrixStats {
    index_t rows = 0, cols = 0, nnz = 0;
    index_t min_row = 0, max_row = 0, empty_rows = 0;
    double mean_row = 0, stddev_row = 0;  // population standard deviation
    // histogram[0]: empty rows; histogram[b] for b >= 1: rows of length in [2^(b-1), 2^b).
    std::vector<index_t> histogram;
    index_t diagonal = 0;         // stored entries on the diagonal
    index_t lower_bandwidth = 0;  // max i - j over entries (0 if none below)
    index_t upper_bandwidth = 0;  // max j - i over entries
    // distance[0]: entries on the diagonal; distance[b] for b >= 1: entries with |j - i| in
    // [2^(b-1), 2^b): how far from a row the rows of B that it gathers lie (a mesh's neighbours).
    std::vector<index_t> distance;
    bool square = false;
    bool pattern_symmetric = false;  // square and pattern(A) == pattern(Aᵀ)
    bool value_symmetric = false;    // and values equal
    // Dense blocks as CUDA's SpGEMM finds them (sizes 2, 3, 4 or 6; 1: none): rows in groups of
    // block_rows with equal columns, each row's columns in runs of block_cols starting at multiples of it.
    int block_rows = 1, block_cols = 1;
};

// A must be host, sorted, without duplicates (as readers and generators return it).
template <class V, class I>
MatrixStats compute_stats(CsrView<const V, I> a);

}  // namespace spk::cli
