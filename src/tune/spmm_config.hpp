#pragma once
// CUDA SpMM kernel configurations: what the selector picks, the tuner measures and users write.
// Readable form: "rb.g<G>.r<R>.v<VEC>" for one kernel over all rows, or
// "rb.g8.r1.v4+rb.g32.r32.v4@256": rows with more than 256 non-zeros (the long-row bin) run the
// second kernel; "...@256:split" cuts those rows into chunks of 256 non-zeros (sum and mean in
// f32/f64), in the short rows' launch or in a launch of their own (one_launch_long_shape).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spk/matrix.hpp"

namespace spk::detail {

struct RbShape {
    int g = 32;   // lanes per row
    int r = 1;    // lanes splitting the row's non-zeros (the reduction group)
    int vec = 1;  // columns per lane (vector width)
    int column_lanes() const { return g / r; }
    int tile() const { return column_lanes() * vec; }
    friend bool operator==(const RbShape&, const RbShape&) = default;
};

struct SpmmConfig {
    RbShape shape;
    std::optional<RbShape> long_shape;  // rows longer than long_threshold use it
    index_t long_threshold = 0;
    bool split_long = false;
    // Row-based kernels (the default), or edge-based: "eb.g<G>.v<VEC>@<chunk>" (EB+SR) or
    // "eb.g<G>.r<G>.v<VEC>@<chunk>" (EB+PR: shape.r = G) gives every group of G lanes a chunk of
    // that many consecutive non-zeros, rows split across chunks meeting in C through atomic adds
    // (sum and mean in f32/f64; no long-row bin).
    bool edge_based = false;
    index_t chunk = 0;
    // Or merge-path: "mp.v<VEC>.e<E>" (mp_kernel.cuh) cuts A's row ends and non-zeros, merged, into
    // runs of E items a lane (chunk = E, shape = {1, 1, VEC}); rows across runs meet in the plan's
    // slots in a fixed order (sum and mean in f32/f64, deterministic; no long-row bin).
    bool merge_path = false;
    friend bool operator==(const SpmmConfig&, const SpmmConfig&) = default;
};

// Every shape compiled into the CUDA backend (src/tune/spmm_shapes.hpp).
const std::vector<RbShape>& compiled_rb_shapes();
bool is_compiled(const RbShape& s);
// The edge-based shapes, as RbShape{G, R, VEC} (R: 1 or G), and their names ("eb.g8.v4", "eb.g32.r32.v4").
const std::vector<RbShape>& compiled_eb_shapes();
std::string eb_shape_name(const RbShape& s);
// The merge-path shapes as {VEC, E} pairs.
const std::vector<std::pair<int, int>>& compiled_mp_shapes();

std::string to_string(const RbShape& s);
std::string to_string(const SpmmConfig& c);
// The long-row shape that runs in the same launch as short rows of shape s when split: a full warp
// over s's column tile, {32, 32 / column lanes, VEC}. A ":split" configuration whose long shape is
// this one (the selector's always is) takes one launch for all rows, with no atomics on C; any
// other split runs the short rows, then the chunks adding into C atomically (or into ordered
// partial sums when deterministic).
RbShape one_launch_long_shape(const RbShape& s);
bool splits_in_one_launch(const SpmmConfig& c);

// Throws InvalidArgument naming the bad part and the accepted form.
SpmmConfig parse_spmm_config(std::string_view text);

// What the selector knows about a matrix and a call.
struct SpmmFeatures {
    index_t rows = 0, cols = 0, nnz = 0, n = 0;
    index_t max_row = 0;
    std::array<index_t, 34> log2_histogram{};  // [k]: rows whose length has bit width k (0: empty)
    int value_bytes = 4;
    // Sum or mean in f32 or f64: long rows may be cut into chunks whose parts meet in C through
    // atomic adds, or, when the call must be deterministic, through partial sums added in order.
    bool split_allowed = false;
    double mean_row() const { return rows ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0; }
    // Rows with more than `len` non-zeros, from the histogram (rounded to powers of two).
    index_t rows_longer_than_pow2(int bits) const;
};

// A 64-bit digest of the features: the tuning cache's key for "this matrix". Matrices with the
// same shape, nnz and row-length histogram share it, and so share their tuned configuration.
std::uint64_t fingerprint(const SpmmFeatures& f);

// Rows longer than this go to the long-row bin (and are cut into chunks of this many non-zeros).
// It depends on rows, nnz, n and the reduction only, so the plan's one pass over A can bin rows
// before selecting. The selector cuts where this does, except on a small matrix at n = 128 to 511 whose
// rows are even (no row far past the mean): those keep the threshold of other widths.
index_t long_row_threshold(const SpmmFeatures& f);

// The fast selector: a table of rules over the features (DESIGN.md §4).
SpmmConfig select_spmm_config(const SpmmFeatures& f);
// The candidates the tuner measures for these features (the selector's pick first).
std::vector<SpmmConfig> spmm_candidates(const SpmmFeatures& f);

}  // namespace spk::detail
