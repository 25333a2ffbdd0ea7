// Parsing, printing and selecting CUDA SpMM configurations. Plain C++: tested without a GPU.
#include "tune/spmm_config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "spk/error.hpp"
#include "tune/spmm_shapes.hpp"

namespace spk::detail {

const std::vector<RbShape>& compiled_rb_shapes() {
    static const std::vector<RbShape> shapes = [] {
        std::vector<RbShape> s;
#define SPK_SHAPE(G, R, VEC) s.push_back(RbShape{G, R, VEC});
        SPK_SPMM_RB_SHAPES(SPK_SHAPE)
#undef SPK_SHAPE
        return s;
    }();
    return shapes;
}

const std::vector<RbShape>& compiled_eb_shapes() {
    static const std::vector<RbShape> shapes = [] {
        std::vector<RbShape> s;
#define SPK_SHAPE(G, R, VEC) s.push_back(RbShape{G, R, VEC});
        SPK_SPMM_EB_SHAPES(SPK_SHAPE)
#undef SPK_SHAPE
        return s;
    }();
    return shapes;
}

const std::vector<std::pair<int, int>>& compiled_mp_shapes() {
    static const std::vector<std::pair<int, int>> shapes = [] {
        std::vector<std::pair<int, int>> s;
#define SPK_SHAPE(VEC, E) s.emplace_back(VEC, E);
        SPK_SPMM_MP_SHAPES(SPK_SHAPE)
#undef SPK_SHAPE
        return s;
    }();
    return shapes;
}

bool is_compiled(const RbShape& s) {
    const auto& all = compiled_rb_shapes();
    return std::find(all.begin(), all.end(), s) != all.end();
}

std::string to_string(const RbShape& s) { return "rb.g" + std::to_string(s.g) + ".r" + std::to_string(s.r) + ".v" + std::to_string(s.vec); }

// "eb.g8.v4" (sequential reduction: r = 1 is left out), "eb.g32.r32.v4" (parallel reduction).
std::string eb_shape_name(const RbShape& s) {
    return "eb.g" + std::to_string(s.g) + (s.r > 1 ? ".r" + std::to_string(s.r) : std::string()) + ".v" + std::to_string(s.vec);
}

std::string to_string(const SpmmConfig& c) {
    if (c.edge_based) return eb_shape_name(c.shape) + "@" + std::to_string(c.chunk);
    if (c.merge_path) return "mp.v" + std::to_string(c.shape.vec) + ".e" + std::to_string(c.chunk);
    std::string out = to_string(c.shape);
    if (c.long_shape) out += "+" + to_string(*c.long_shape) + "@" + std::to_string(c.long_threshold) + (c.split_long ? ":split" : "");
    return out;
}

RbShape one_launch_long_shape(const RbShape& s) { return RbShape{32, 32 / s.column_lanes(), s.vec}; }

bool splits_in_one_launch(const SpmmConfig& c) {
    return !c.edge_based && !c.merge_path && c.split_long && c.long_shape && *c.long_shape == one_launch_long_shape(c.shape);
}

namespace {

[[noreturn]] void bad_config(std::string_view text, const std::string& why) {
    invalid_argument("config '" + std::string(text) + "': " + why +
                     " (expected rb.g<G>.r<R>.v<VEC>, optionally +rb.g<G>.r<R>.v<VEC>@<row length> for long rows, or"
                     " eb.g<G>.v<VEC>@<chunk>, or mp.v<VEC>.e<E>)");
}

// "a.b.c" -> {"a", "b", "c"}
std::vector<std::string_view> dot_parts(std::string_view text) {
    std::vector<std::string_view> parts;
    for (std::size_t from = 0;;) {
        const std::size_t dot = text.find('.', from);
        parts.push_back(text.substr(from, dot == std::string_view::npos ? std::string_view::npos : dot - from));
        if (dot == std::string_view::npos) return parts;
        from = dot + 1;
    }
}

int parse_field(std::string_view text, std::string_view part, char key) {
    int v = 0;
    if (part.size() < 2 || part[0] != key)
        bad_config(text, "expected '" + std::string(1, key) + "<number>' at '" + std::string(part) + "'");
    const auto [ptr, ec] = std::from_chars(part.data() + 1, part.data() + part.size(), v);
    if (ec != std::errc() || ptr != part.data() + part.size()) bad_config(text, "bad number in '" + std::string(part) + "'");
    return v;
}

RbShape parse_shape(std::string_view whole, std::string_view text) {
    const std::vector<std::string_view> parts = dot_parts(text);
    if (parts.size() != 4 || parts[0] != "rb") bad_config(whole, "'" + std::string(text) + "' is not a row-based shape");
    const RbShape s{parse_field(whole, parts[1], 'g'), parse_field(whole, parts[2], 'r'), parse_field(whole, parts[3], 'v')};
    if (!is_compiled(s)) {
        std::string list;
        for (const auto& c : compiled_rb_shapes()) list += (list.empty() ? "" : ", ") + to_string(c);
        bad_config(whole, "shape " + to_string(s) + " is not compiled; compiled shapes: " + list);
    }
    return s;
}

int pow2_ceil(index_t x) {
    int p = 1;
    while (p < x && p < (1 << 30)) p *= 2;
    return p;
}

int pow2_floor(double x) {
    int p = 1;
    while (p * 2 <= x && p < (1 << 30)) p *= 2;
    return p;
}

// The compiled shape with these column lanes and vector width whose r is the largest <= want.
std::optional<RbShape> best_shape(int column_lanes, int vec, int want_r) {
    std::optional<RbShape> best;
    for (const auto& s : compiled_rb_shapes())
        if (s.column_lanes() == column_lanes && s.vec == vec && s.r <= want_r && (!best || s.r > best->r)) best = s;
    return best;
}

// Half the H200's resident threads (132 SMs x 2048): below it the row kernel's lanes cannot hide
// one row's latency behind the others'.
constexpr index_t kLanesThatFillTheDevice = index_t{1} << 17;
// At narrow n (fewer than 8 column lanes: n < 32 in f32) a small matrix whose rows reach at least
// kNarrowSpreadFrom non-zeros gives them lanes for about two of their longest short row's
// non-zeros each, up to a warp, with at most kNarrowMostLanes lanes in all: the measured best at
// n = 4 gave bcsstk13, fidapex6, zenios, p2p-Gnutella08 and bcsstk16 32 lanes a row (3.7-4.9 us,
// 1.6-1.9x faster than 4 or 8 lanes), email-Enron (36692 rows) 8 and soc-Slashdot0902 (78441
// non-empty rows) 4. Rows of at most 7 stay on one lane (west0067, minnesota, cryg2500, jagmesh7,
// luxembourg_osm: 4 lanes a row ran 10-20% slower).
constexpr double kNarrowNonZerosPerLane = 2.0;
constexpr double kNarrowSpreadFrom = 8.0;
constexpr index_t kNarrowMostLanes = index_t{1} << 18;

// Whether the rows (the non-empty ones), one lane group each, fill the device: the group's column
// lanes in each of the grid's column tiles (n = 512 in f32 takes 4 tiles of 32 lanes), one group a row.
bool fills_device(index_t rows, index_t n, int column_lanes, int vec) {
    const index_t tile = static_cast<index_t>(column_lanes) * vec;
    return rows * column_lanes * ((n + tile - 1) / tile) >= kLanesThatFillTheDevice;
}

// Small matrices at 8 or more column lanes (n >= 32 in f32) take groups of kSmallMatrixGroup
// lanes, two rows a warp: the columns on up to 16 lanes, the rest of the group splitting the row
// (n = 32 in f32: 8 column lanes of four floats and r = 2; n = 128: 16 column lanes, r = 1, two
// column tiles). Small: rows that do not fill the device, or fewer than kSmallMatrixRows rows of
// under kSmallMatrixMeanRow non-zeros on average (the row kernel's warp-uniform walk makes short
// rows cheap enough that two a warp win even where 32-lane groups fill the device). Measured on the
// H200 (stop 29, `--tune measure` on the suite at n = 32 and 128 with the rewritten row kernel):
// of the 50 such cases of 1000 rows or more, the fastest shape had groups of at most 16 lanes in
// 44, and beat the earlier rule's 32-lane groups (lanes for about 8 of the longest short row's
// non-zeros each) by 5% or more in 27: web-spam 7.1 -> 4.9 us at n = 32, facebook_combined
// 11.8 -> 8.0, bcsstk16 9.0 -> 6.5; chameleon 9.7 -> 6.3 at n = 128, p2p-Gnutella08 9.5 -> 7.1,
// ca-GrQc 10.9 -> 8.2. Larger or longer rows (Laplace, R-MAT, elasticity, ca-HepPh at n = 128)
// keep a warp's columns.
constexpr int kSmallMatrixGroup = 16;
constexpr index_t kSmallMatrixRows = index_t{1} << 15;
constexpr double kSmallMatrixMeanRow = 16.0;

std::optional<RbShape> small_matrix_shape(int column_lanes, int vec) {
    const int lanes = std::min(column_lanes, kSmallMatrixGroup);
    return best_shape(lanes, vec, kSmallMatrixGroup / lanes);
}

index_t parse_count(std::string_view whole, std::string_view num, const char* what) {
    index_t v = 0;
    const auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (ec != std::errc() || ptr != num.data() + num.size() || v < 1) bad_config(whole, "bad " + std::string(what) + " '" + std::string(num) + "'");
    return v;
}

// "eb.g<G>.v<VEC>@<chunk>" or "eb.g<G>.r<R>.v<VEC>@<chunk>"
SpmmConfig parse_edge_based(std::string_view text) {
    const std::size_t at = text.find('@');
    if (at == std::string_view::npos) bad_config(text, "an edge-based shape needs '@<chunk>'");
    const std::string_view head = text.substr(0, at);
    const std::vector<std::string_view> parts = dot_parts(head);
    if (parts.size() != 3 && parts.size() != 4) bad_config(text, "'" + std::string(head) + "' is not an edge-based shape");
    SpmmConfig c;
    c.edge_based = true;
    c.shape = parts.size() == 3 ? RbShape{parse_field(text, parts[1], 'g'), 1, parse_field(text, parts[2], 'v')}
                                : RbShape{parse_field(text, parts[1], 'g'), parse_field(text, parts[2], 'r'), parse_field(text, parts[3], 'v')};
    const auto& all = compiled_eb_shapes();
    if (std::find(all.begin(), all.end(), c.shape) == all.end()) {
        std::string list;
        for (const auto& s : all) list += (list.empty() ? "" : ", ") + eb_shape_name(s);
        bad_config(text, "edge-based shape " + eb_shape_name(c.shape) + " is not compiled; compiled: " + list);
    }
    c.chunk = parse_count(text, text.substr(at + 1), "chunk");
    return c;
}

// "mp.v<VEC>.e<E>"
SpmmConfig parse_merge_path(std::string_view text) {
    const std::vector<std::string_view> parts = dot_parts(text);
    if (parts.size() != 3) bad_config(text, "'" + std::string(text) + "' is not a merge-path shape");
    SpmmConfig c;
    c.merge_path = true;
    c.shape = RbShape{1, 1, parse_field(text, parts[1], 'v')};
    c.chunk = parse_field(text, parts[2], 'e');
    const auto& all = compiled_mp_shapes();
    if (std::find(all.begin(), all.end(), std::pair<int, int>(c.shape.vec, static_cast<int>(c.chunk))) == all.end()) {
        std::string list;
        for (const auto& [vec, e] : all) list += (list.empty() ? "" : ", ") + ("mp.v" + std::to_string(vec) + ".e" + std::to_string(e));
        bad_config(text, "merge-path shape is not compiled; compiled: " + list);
    }
    return c;
}

}  // namespace

SpmmConfig parse_spmm_config(std::string_view text) {
    if (text.starts_with("eb.")) return parse_edge_based(text);
    if (text.starts_with("mp.")) return parse_merge_path(text);
    SpmmConfig c;
    const std::size_t plus = text.find('+');
    c.shape = parse_shape(text, text.substr(0, plus));
    if (plus != std::string_view::npos) {
        const std::string_view rest = text.substr(plus + 1);
        const std::size_t at = rest.find('@');
        if (at == std::string_view::npos) bad_config(text, "the long-row shape needs '@<row length>'");
        c.long_shape = parse_shape(text, rest.substr(0, at));
        std::string_view num = rest.substr(at + 1);
        if (num.ends_with(":split")) {
            c.split_long = true;
            num.remove_suffix(6);
            if (c.long_shape->g != 32) bad_config(text, "split long rows need a 32-lane shape");
        }
        c.long_threshold = parse_count(text, num, "row length");
    }
    return c;
}

index_t SpmmFeatures::rows_longer_than_pow2(int bits) const {
    index_t count = 0;
    for (std::size_t k = static_cast<std::size_t>(bits) + 1; k < log2_histogram.size(); ++k) count += log2_histogram[k];
    return count;
}

std::uint64_t fingerprint(const SpmmFeatures& f) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the features that describe the matrix
    const auto mix = [&](std::uint64_t v) {
        for (int b = 0; b < 8; ++b) {
            h ^= (v >> (8 * b)) & 0xffu;
            h *= 1099511628211ull;
        }
    };
    mix(static_cast<std::uint64_t>(f.rows));
    mix(static_cast<std::uint64_t>(f.cols));
    mix(static_cast<std::uint64_t>(f.nnz));
    mix(static_cast<std::uint64_t>(f.max_row));
    for (const index_t count : f.log2_histogram) mix(static_cast<std::uint64_t>(count));
    return h;
}

namespace {

// A row left in the short bin holds its group for its whole length. On a small matrix the
// kernel is over in tens of microseconds, so rows of a few hundred non-zeros set its time:
// move rows past 64 to the long bin there (soc-Slashdot0902 at n = 32: 0.070 ms -> 0.048 ms).
bool few_nonzeros(const SpmmFeatures& f) { return f.nnz < (index_t{4} << 20); }

index_t even_rows_threshold(const SpmmFeatures& f) {
    const double mean = f.mean_row();
    return few_nonzeros(f) ? std::max<index_t>(64, static_cast<index_t>(4 * mean)) : std::max<index_t>(256, static_cast<index_t>(16 * mean));
}

// From n = 128 a warp's walk of a row is a chain of B loads of 16 bytes a lane, a few non-zeros a
// round trip to memory, and on a small power-law graph the longest short row sets the kernel's
// time: there, rows past 32 are split (one launch, each piece's warps taking 32 non-zeros).
// Measured on the H200 at n = 128 (2bc7a4b, spk's time at the threshold 32 over the time at
// even_rows_threshold): squirrel 0.64, facebook_combined 0.91, p2p-Gnutella08 0.68, ca-GrQc 0.85,
// ca-HepPh 0.90, ca-HepTh 0.81, email-Enron 0.93, soc-Slashdot0902 1.03, chameleon 1.19. Matrices
// of even rows (FEM: bcsstk13, bcsstk33, fidapex6) took 1.4-1.7x as long when split at 32: they
// keep even_rows_threshold (the selector's `skewed` test). At n = 512 (c36232a) the same rule
// left the suite's geomean where it was (1.30x cuSPARSE) but moved the losses: squirrel 0.81 ->
// 0.91x, p2p-Gnutella08 0.96 -> 1.22x, web-spam 0.96 -> 0.76x, wiki-Vote 0.96 -> 0.79x, so it
// stops below 512 (n = 256 is not measured).
constexpr index_t kWideSkewedFrom = 128, kWideSkewedBelow = 512;
constexpr index_t kWideSkewedThreshold = 32;
bool wide_small_split(const SpmmFeatures& f) {
    return f.n >= kWideSkewedFrom && f.n < kWideSkewedBelow && few_nonzeros(f) && f.split_allowed;
}

// A matrix that fills the device at n = 128 in f32 (32 column lanes of four floats, one tile) whose
// rows are even runs best in two column tiles of 16 lanes. Measured on the H200 (stop 31,
// raw-h200/f3072bb-spmm-band.json, rb.g16.r1.v4 over rb.g32.r1.v4 in one process): Laplace 128^3
// 1.230 / 1.301 ms, Laplace 100^3 0.589 / 0.604, brick 100^3 1.001 / 1.016, elasticity 40 0.460 /
// 0.459, luxembourg_osm 0.0587 / 0.0601; uniform 1M x 16 took 1.865 ms in 8-lane tiles against
// 2.013 in one (stop 30's oracle). Not measured at other n or in other types.
bool two_tiles_at_128(const SpmmFeatures& f, int column_lanes, bool skewed) {
    return column_lanes == 32 && f.n == 128 && f.value_bytes == 4 && !skewed;
}

// Rows of uneven length: the longest far past the mean (a power-law graph's, not a mesh's).
bool skewed_rows(const SpmmFeatures& f) { return static_cast<double>(f.max_row) > 4.0 * f.mean_row() + 16.0; }

// A sparse-matrix times vector product (n = 1) over a power-law graph runs the merge path, 4 items
// a lane: each lane's work is even whatever the rows' lengths, where a row-based lane (one row a
// lane, rows past the threshold split) waits on its row's length. Measured on the H200 (b429018,
// the issue's suite, mp.v1.e4 over the selector's row kernels in one process): R-MAT 20 0.78
// (190 against 242 us), email-Enron 0.80, soc-Slashdot0902 0.84, wiki-Vote 0.89, ca-HepPh 0.95;
// graphs of long mean rows lose (squirrel, 42 a row, 1.22; facebook_combined 1.45), and so do even
// rows (uniform 1.34, meshes 1.4-3.7) and small matrices, whose one block waits on the block's
// chain of loads (1.2-1.9). At n = 4 (mp.v4.e4) the gains shrink and the losses grow (R-MAT 20
// 0.92, email-Enron 0.88, soc-Slashdot0902 1.06, wiki-Vote 1.30): not taken there.
constexpr index_t kMergePathMinNonZeros = 100000;
constexpr double kMergePathMaxMeanRow = 32.0;
bool merge_path_spmv(const SpmmFeatures& f) {
    return f.n == 1 && f.split_allowed && skewed_rows(f) && f.nnz >= kMergePathMinNonZeros && f.mean_row() < kMergePathMaxMeanRow;
}

}  // namespace

index_t long_row_threshold(const SpmmFeatures& f) { return wide_small_split(f) ? kWideSkewedThreshold : even_rows_threshold(f); }

// Rules (third paper, §5-6; tuned on the H200): give each lane VEC consecutive columns with the
// widest vector that divides n, spread column lanes across n, then let the remaining lanes of a
// group (up to 32) split the row's non-zeros when rows are long enough to keep them busy; a
// small matrix takes groups of 16 lanes, two rows a warp (small_matrix_shape), and at narrow n
// spreads its rows over more lanes. Rows far
// longer than the mean get a bin of their own with a full warp reducing them.
SpmmConfig select_spmm_config(const SpmmFeatures& f) {
    if (merge_path_spmv(f)) {
        SpmmConfig c;
        c.merge_path = true;
        c.shape = RbShape{1, 1, 1};
        c.chunk = 4;
        return c;
    }
    const index_t n = std::max<index_t>(f.n, 1);
    int vec = 1;
    for (int v : {4, 2})
        if (n % v == 0 && v * f.value_bytes <= 16) {
            vec = v;
            break;
        }
    const int column_lanes = std::min(32, pow2_ceil((n + vec - 1) / vec));
    const double mean = f.mean_row();
    const int max_r = 32 / column_lanes;
    // Lanes left over by the columns split the row's non-zeros, about 4 each. Measured on the H200
    // (bench/results/h200-spmm.md, --tune measure): once 8 or more lanes cover the columns, rows of
    // even length run best whole on one lane (uniform 16 a row at n = 32: 0.55 ms for r = 1 against
    // 1.12 ms for r = 4; elasticity, 77 a row: 0.21 against 0.32), and only skewed rows gain from r = 2.
    const bool skewed = skewed_rows(f);
    int want_r = std::min(max_r, pow2_floor(std::max(1.0, mean / 4.0)));
    if (column_lanes >= 8) want_r = skewed ? std::min(want_r, 2) : 1;
    // The analysis binned the rows at long_row_threshold; a pick at another threshold bins them again.
    const index_t threshold = wide_small_split(f) && skewed ? kWideSkewedThreshold : even_rows_threshold(f);
    std::optional<RbShape> shape;
    const index_t busy_rows = std::max<index_t>(1, f.rows - f.log2_histogram[0]);
    const bool fills = fills_device(busy_rows, n, column_lanes, vec);
    if (column_lanes >= 8 && (!fills || (busy_rows < kSmallMatrixRows && mean < kSmallMatrixMeanRow))) {
        shape = small_matrix_shape(column_lanes, vec);
    } else if (fills) {
        shape = best_shape(two_tiles_at_128(f, column_lanes, skewed) ? column_lanes / 2 : column_lanes, vec, want_r);
    } else {
        const auto longest_short_row = static_cast<double>(std::min(f.max_row, threshold));
        if (longest_short_row >= kNarrowSpreadFrom) {
            const int lanes = std::min(pow2_ceil(static_cast<index_t>(std::ceil(longest_short_row / kNarrowNonZerosPerLane))),
                                       pow2_ceil((kNarrowMostLanes + busy_rows - 1) / busy_rows));
            want_r = std::max(want_r, std::min(max_r, std::max(1, lanes / column_lanes)));
        }
        shape = best_shape(column_lanes, vec, want_r);
    }
    for (int v = vec; !shape && v >= 1; v /= 2) shape = best_shape(column_lanes, v, want_r);
    if (!shape) shape = RbShape{32, 1, 1};
    SpmmConfig c{*shape, std::nullopt, 0, false};

    const int threshold_bits = 64 - __builtin_clzll(static_cast<unsigned long long>(threshold));
    if (f.max_row > threshold && f.rows_longer_than_pow2(threshold_bits - 1) > 0) {
        // Full-warp shapes for the long rows; cut them into chunks where the sum allows it
        // (then even a shape equal to the short rows' one gains: a long row no longer holds
        // one warp for its whole length). A full warp over the short rows' column tile: the
        // split then runs in the short rows' launch (every compiled shape's partner is compiled).
        const RbShape long_shape = one_launch_long_shape(*shape);
        const bool split = f.split_allowed;
        if (split || !(long_shape == *shape)) {
            c.long_shape = long_shape;
            c.long_threshold = threshold;
            c.split_long = split;
        }
    }
    return c;
}

std::vector<SpmmConfig> spmm_candidates(const SpmmFeatures& f) {
    const SpmmConfig pick = select_spmm_config(f);
    std::vector<SpmmConfig> out{pick};
    const index_t n = std::max<index_t>(f.n, 1);
    for (const auto& s : compiled_rb_shapes()) {
        if (n % s.vec != 0) continue;
        if (s.tile() > 2 * pow2_ceil(n) && s.tile() > 32) continue;  // most lanes would idle
        SpmmConfig c{s, pick.long_shape, pick.long_threshold, pick.split_long};
        // A split pairs each short shape with the full warp over its column tile, so that the
        // candidate runs in one launch as the selector's pick does.
        if (c.split_long) c.long_shape = one_launch_long_shape(s);
        if (c.long_shape && c.long_shape->vec != s.vec) c.long_shape.reset();
        if (!c.long_shape) {
            c.long_threshold = 0;
            c.split_long = false;
        }
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    return out;
}

}  // namespace spk::detail
