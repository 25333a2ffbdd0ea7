// spk info: structure of a matrix (file or generator spec).
#include <algorithm>
#include <cstdio>
#include <string>

#include "command.hpp"
#include "format.hpp"
#include "json.hpp"
#include "matrix_source.hpp"
#include "matrix_stats.hpp"
#include "options.hpp"
#include "spk/io.hpp"

namespace spk::cli {

namespace {

const CommandSpec& spec() {
    static const CommandSpec s{
        .name = "info",
        .synopsis = "MATRIX [--json]",
        .description =
            "Prints the shape, nnz, row-length statistics and log2 histogram, symmetry (pattern and values),\n"
            "bandwidth, diagonal entries, dense blocks (rows in groups with equal columns, columns in aligned runs: what\n"
            "CUDA's SpGEMM multiplies a block at a time) and a log2 histogram of the entries' distances from the diagonal\n"
            "(with the share of entries within each distance) of MATRIX: a file (.mtx, .mtx.gz, .spkb) or a generator spec.",
        .options = {{.name = "json", .help = "print the statistics as JSON on stdout instead of text"}},
        .min_positional = 1,
        .max_positional = 1,
        .epilog =
            "MATRIX: 'gen:SPEC' is a generator spec; otherwise an existing file or a name ending in .mtx, .mtx.gz\n"
            "or .spkb is a file; anything else is a generator spec (see spk gen --help).",
    };
    return s;
}

std::string bucket_name(std::size_t b) {
    if (b == 0) return "0";
    const index_t lo = index_t{1} << (b - 1), hi = (index_t{1} << b) - 1;
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

Json to_json(const MatrixSource& src, const MatrixStats& s, const MatrixMarketHeader* header) {
    Json hist = Json::array();
    for (std::size_t b = 0; b < s.histogram.size(); ++b)
        hist.push(Json::object().set("lengths", bucket_name(b)).set("rows", s.histogram[b]));
    Json distance = Json::array();
    for (std::size_t b = 0; b < s.distance.size(); ++b)
        distance.push(Json::object().set("distance", bucket_name(b)).set("entries", s.distance[b]));
    Json j = Json::object();
    j.set("matrix", src.text).set("rows", s.rows).set("cols", s.cols).set("nnz", s.nnz);
    if (header) j.set("mtx_field", header->field).set("mtx_symmetry", header->symmetry).set("mtx_entries", header->entries);
    j.set("row_length", Json::object()
                            .set("min", s.min_row)
                            .set("max", s.max_row)
                            .set("mean", s.mean_row)
                            .set("stddev", s.stddev_row)
                            .set("empty_rows", s.empty_rows)
                            .set("log2_histogram", std::move(hist)));
    j.set("square", s.square).set("pattern_symmetric", s.pattern_symmetric).set("value_symmetric", s.value_symmetric);
    j.set("lower_bandwidth", s.lower_bandwidth).set("upper_bandwidth", s.upper_bandwidth).set("diagonal_entries", s.diagonal);
    j.set("diagonal_distance_log2_histogram", std::move(distance));
    j.set("block_rows", s.block_rows).set("block_cols", s.block_cols);
    return j;
}

// One log2 histogram: a row a bucket, its count and a bar scaled to the largest; with `total`, the
// share of the total up to and including the bucket.
void print_histogram(const std::vector<index_t>& counts, index_t total) {
    index_t most = 1, so_far = 0;
    for (const index_t c : counts) most = std::max(most, c);
    for (std::size_t b = 0; b < counts.size(); ++b) {
        so_far += counts[b];
        const int bar = static_cast<int>((50 * counts[b] + most - 1) / most);
        const std::string share = total > 0 ? fixed(100.0 * static_cast<double>(so_far) / static_cast<double>(total), 1) + "%" : "";
        std::printf("  %-12s %10lld  %7s  %s\n", bucket_name(b).c_str(), static_cast<long long>(counts[b]), share.c_str(),
                    std::string(static_cast<std::size_t>(bar), '#').c_str());
    }
}

void print_text(const MatrixSource& src, const MatrixStats& s, const MatrixMarketHeader* header) {
    std::printf("matrix       %s\n", src.text.c_str());
    if (header)
        std::printf("header       %s %s %s %s, %lld stored entries\n", header->object.c_str(), header->format.c_str(),
                    header->field.c_str(), header->symmetry.c_str(), static_cast<long long>(header->entries));
    const double cells = static_cast<double>(s.rows) * static_cast<double>(s.cols);
    std::printf("shape        %lld x %lld\n", static_cast<long long>(s.rows), static_cast<long long>(s.cols));
    std::printf("nnz          %lld (density %s)\n", static_cast<long long>(s.nnz),
                sci(cells > 0 ? static_cast<double>(s.nnz) / cells : 0.0).c_str());
    std::printf("row length   min %lld, max %lld, mean %s, std dev %s, empty rows %lld\n", static_cast<long long>(s.min_row),
                static_cast<long long>(s.max_row), fixed(s.mean_row, 2).c_str(), fixed(s.stddev_row, 2).c_str(),
                static_cast<long long>(s.empty_rows));
    if (s.square)
        std::printf("symmetric    pattern %s, values %s\n", yes_no(s.pattern_symmetric), yes_no(s.value_symmetric));
    else
        std::printf("symmetric    no (not square)\n");
    std::printf("bandwidth    lower %lld, upper %lld\n", static_cast<long long>(s.lower_bandwidth),
                static_cast<long long>(s.upper_bandwidth));
    std::printf("diagonal     %lld entries\n", static_cast<long long>(s.diagonal));
    if (s.block_rows > 1 || s.block_cols > 1)
        std::printf("blocks       %d x %d (rows in groups of %d with equal columns, columns in aligned runs of %d)\n", s.block_rows,
                    s.block_cols, s.block_rows, s.block_cols);
    else
        std::printf("blocks       none\n");
    std::printf("row lengths  (log2 buckets; rows, share of rows up to the bucket)\n");
    print_histogram(s.histogram, s.rows);
    std::printf("|col - row|  (log2 buckets; entries, share of entries within the distance)\n");
    print_histogram(s.distance, s.nnz);
}

}  // namespace

int run_info(std::span<const std::string> args) {
    const auto parsed = parse(spec(), args);
    if (!parsed) return 0;
    const MatrixSource src = classify_matrix_arg(parsed->positional()[0]);
    MatrixMarketHeader header;
    const bool is_mtx = !src.is_spec && (src.path.ends_with(".mtx") || src.path.ends_with(".mtx.gz"));
    if (is_mtx) header = read_matrix_market_header(src.path);
    const auto a = load_matrix_source<double, std::int64_t>(src);
    const MatrixStats stats = compute_stats(a.view());
    if (parsed->has("json"))
        std::printf("%s\n", to_json(src, stats, is_mtx ? &header : nullptr).dump().c_str());
    else
        print_text(src, stats, is_mtx ? &header : nullptr);
    return 0;
}

}  // namespace spk::cli
