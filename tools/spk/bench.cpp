// spk bench: median times, GFLOP/s and effective GB/s of operations over matrices and widths.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "bench_baseline.hpp"
#include "command.hpp"
#include "format.hpp"
#include "json.hpp"
#include "matrix_source.hpp"
#include "op_options.hpp"
#include "spk/io.hpp"
#include "stopwatch.hpp"
#include "table.hpp"

namespace spk::cli {

namespace {

const CommandSpec& spec() {
    static const CommandSpec s = [] {
        CommandSpec c{
            .name = "bench",
            .synopsis = "--op OPS (--matrix MATRIX ... | --suite FILE) [options]",
            .description =
                "Times each (operation, matrix, n): the median of --reps runs after --warmup runs, each run one call of the\n"
                "operation's compute step (plans and inputs are built before timing; spgemm times both phases). GFLOP/s\n"
                "counts 2 nnz n for spmm, 2 nnz k heads for sddmm, 2 x the scalar products for spgemm; GB/s divides the\n"
                "minimum bytes (inputs read once, outputs written once) by the time. Geometric means per (op, n) close the\n"
                "table. --op read times the Matrix Market reader on one core (MB/s of uncompressed text). tc adds\n"
                "Medges/s: the graph's distinct undirected edges (self loops and repeats dropped) by the time.\n"
                "--backward times fusedmm's backward pass instead, and its forward pass on the same inputs beside it: the\n"
                "table adds the forward's time and backward / forward, and 'geomean fusedmm k=K backward over forward'\n"
                "lines (the geomean and the largest ratio) close it.\n"
                "n: spmm's dense width, sddmm's and fusedmm's feature width k; spgemm, tc, mttkrp, ttm and read ignore it.",
            .options =
                {{.name = "op", .value_name = "OPS", .help = "comma list of spmm, sddmm, fusedmm, spgemm, tc, mttkrp, ttm, read"},
                 {.name = "matrix",
                  .value_name = "MATRIX",
                  .help = "a matrix file or generator spec (TENSOR for mttkrp, ttm)",
                  .repeatable = true},
                 {.name = "suite", .value_name = "FILE", .help = "a file listing matrices, one a line (bench/suites/)", .repeatable = true},
                 {.name = "n", .value_name = "LIST", .help = "widths: 32,128 or 32:512:x2 or 32:128:32", .default_value = "32"},
                 {.name = "warmup", .value_name = "W", .help = "untimed runs first", .default_value = "3"},
                 {.name = "reps", .value_name = "R", .help = "timed runs", .default_value = "10"},
                 {.name = "rounds",
                  .value_name = "K",
                  .help = "with several --config: time the configurations K times in turn (A, B, A, B, ...) and keep each one's\n"
                          "fastest round, so that a drift of the machine's speed over the run does not favour the later ones",
                  .default_value = "1"},
                 {.name = "backend", .value_name = "B", .help = "cpu, reference or cuda", .default_value = "cpu"},
                 {.name = "timing",
                  .value_name = "HOW",
                  .help = "cuda calls under 0.1 ms: 'stream' (batches queued from the host: the host's launch cost counts where it\n"
                          "is the slower side) or 'graph' (each batch captured once in a CUDA graph and replayed: the device's time)",
                  .default_value = "stream"},
                 {.name = "threads", .value_name = "T", .help = "cpu threads (0 = all)", .default_value = "0"},
                 {.name = "json", .value_name = "FILE", .help = "also write every measurement to FILE"},
                 {.name = "no-vendor", .help = "skip the vendor baselines (cuSPARSE): spk's own times only, as A/B runs want"}},
            .min_positional = 0,
            .max_positional = 0,
            .epilog =
                std::string_view("Suite files: one MATRIX a line, '#' comments; relative paths are relative to the shared matrices folder\n"
                                 "($SPK_MATRICES, else the first shared/matrices above the current folder or the spk binary).\n"
                                 "MATRIX: 'gen:SPEC' is a generator spec; an existing file or a name ending in .mtx, .mtx.gz, .spkb is a\n"
                                 "file; anything else is a generator spec.\n"
                                 "Example: spk bench --op spmm,spgemm --suite bench/suites/cpu.txt --n 32,128 --json out.json"),
        };
        for (auto& o : op_parameter_options(false)) c.options.push_back(o);
        return c;
    }();
    return s;
}

struct Measurement {
    std::string op = {}, matrix = {}, source = {}, config = {};
    std::string variant = {};  // the --config it ran under, where several were given
    index_t rows = 0, cols = 0, nnz = 0;
    std::int64_t n = 0;  // 0: the op has no width
    std::vector<double> times = {};
    double median = 0, flops = 0, bytes = 0, edges = 0;  // edges: graph operations (tc) only
    double checksum = 0;                        // of the result (the count for tc), to compare with other tools
    index_t result_nnz = -1;                    // sparse results only
    std::optional<BaselineTime> baseline = {};  // the vendor's fastest, same inputs, same process
    bool backward = false;                      // fusedmm's backward pass (--backward)
    bool edge_terms = false;                    // ... with FusedOptions::backward_edge_terms (--edge-terms)
    double forward_seconds = 0;                 // backward only: the forward pass's median, same inputs
    std::string own_figures = {};               // --no-vendor: spk's figures the baseline would print (own_figures)
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <class F>
std::vector<double> time_runs(F&& body, std::int64_t warmup, std::int64_t reps) {
    for (std::int64_t r = 0; r < warmup; ++r) body();
    std::vector<double> times;
    for (std::int64_t r = 0; r < reps; ++r) {
        const Stopwatch clock;
        body();
        times.push_back(clock.seconds());
    }
    return times;
}

double rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0.0; }

struct Settings {
    std::int64_t warmup, reps;
    std::vector<std::int64_t> widths;
    std::int64_t rounds = 1;    // the variants timed in turn this many times, each keeping its fastest round
    bool vendor = true;         // time the vendor's baselines too
    bool graph_replay = false;  // --timing graph
};

// Every run's time: on a device, CUDA events around it; on the host, a wall clock.
std::vector<double> op_times(const Executor& exec, Operation& op, const Settings& s) {
    if (exec.backend() == Backend::cuda) return device_seconds(exec, op, s.warmup, s.reps);
    return time_runs([&] { op.run(); }, s.warmup, s.reps);
}

// Two operations timed in turn, run by run (warm-up runs too), so that each always follows the
// other: a forward timed after all of a backward's runs took up to 17% longer or shorter with the
// backward that preceded it (stop 18's A/B of two backward kernels with one forward kernel).
std::pair<std::vector<double>, std::vector<double>> alternate_times(const Executor& exec, Operation& first, Operation& second,
                                                                    const Settings& s) {
    Settings one = s;
    one.warmup = 0;
    one.reps = 1;
    for (std::int64_t r = 0; r < s.warmup; ++r) {
        op_times(exec, first, one);
        op_times(exec, second, one);
    }
    std::pair<std::vector<double>, std::vector<double>> times;
    for (std::int64_t r = 0; r < std::max<std::int64_t>(s.reps, 1); ++r) {
        times.first.push_back(op_times(exec, first, one).front());
        times.second.push_back(op_times(exec, second, one).front());
    }
    return times;
}

void bench_read(const MatrixSource& src, const Settings& s, std::vector<Measurement>& out) {
    if (src.is_spec) {
        std::fprintf(stderr, "spk bench: read: skipping '%s' (a generator spec, not a file)\n", src.text.c_str());
        return;
    }
    Measurement m{.op = "read", .matrix = src.label, .source = src.text, .config = "read_matrix_market (1 core)"};
    m.times = time_runs(
        [&] {
            const auto a = src.path.ends_with(".spkb") ? load_matrix<float, std::int32_t>(src.path)
                                                       : read_matrix_market<float, std::int32_t>(src.path);
            m.rows = a.rows();
            m.cols = a.cols();
            m.nnz = a.nnz();
        },
        s.warmup, s.reps);
    m.bytes = text_bytes(src.path);
    out.push_back(std::move(m));
}

// One measurement of `op` (configured by c; width: its n or k, 0 for operations without one) on
// `inputs`. vendor: the case's vendor baseline, timed here when empty and shared by the
// measurements of one width (spgemm's, which also holds ratios of spk's own figures, is timed for each).
Measurement measure(const Executor& exec, const OpConfig& c, std::int64_t width, Operation& op, const MatrixSource& src,
                    const OpInputs& inputs, const Settings& s, std::optional<BaselineTime>& vendor) {
    Measurement m{.op = c.op, .matrix = src.label, .source = src.text, .config = op.describe(), .n = width};
    m.backward = c.backward && c.op == "fusedmm";
    m.edge_terms = m.backward && c.edge_terms;
    if (inputs.tensor) {
        m.rows = inputs.tensor->dims[0];
        m.cols = inputs.tensor->dims[1];
        m.nnz = inputs.tensor->nnz();
    } else {
        m.rows = inputs.a->rows();
        m.cols = inputs.a->cols();
        m.nnz = inputs.a->nnz();
    }
    if (m.backward) {
        // The forward pass on the same inputs (the same seeds), for backward over forward.
        OpConfig f = c;
        f.backward = false;
        auto forward = make_operation(exec, f, inputs);
        std::vector<double> forward_times;
        std::tie(m.times, forward_times) = alternate_times(exec, op, *forward, s);
        m.forward_seconds = median(forward_times);
    } else {
        m.times = op_times(exec, op, s);
        if (s.vendor) {
            if (!vendor || c.op == "spgemm") vendor = vendor_baseline(exec, c, inputs, s.warmup, s.reps, median(m.times));
            m.baseline = vendor;
        } else {
            m.own_figures = own_figures(exec, c, inputs, s.warmup, s.reps);
        }
    }
    m.flops = op.flops();
    m.bytes = op.bytes();  // after the runs: spgemm knows its output's size only then
    m.edges = op.edges();
    m.checksum = op.checksum();
    if (const auto nnz = op.result_nnz()) m.result_nnz = *nnz;
    const std::string forward = m.backward ? "; forward " + millis(m.forward_seconds) + " ms, backward / forward " +
                                                 fixed(median(m.times) / m.forward_seconds, 2) + "x"
                                           : "";
    std::fprintf(stderr, "spk bench: %s %s: %s ms%s%s\n", m.config.c_str(), m.matrix.c_str(), millis(median(m.times)).c_str(),
                 forward.c_str(), m.baseline ? ("; " + m.baseline->all).c_str() : m.own_figures.empty() ? "" : ("; " + m.own_figures).c_str());
    return m;
}

// Each width, under each of `variants` (--config values, or one empty: the default choice), on the
// same inputs; the variants in turn s.rounds times, each keeping the round of its lowest median.
void bench_op(const Executor& exec, const OpConfig& base, const std::vector<std::string>& variants, const MatrixSource& src,
              const OpInputs& inputs, const Settings& s, std::vector<Measurement>& out) {
    if (base.op == "tc" && inputs.a->rows() != inputs.a->cols()) {
        std::fprintf(stderr, "spk bench: tc: skipping '%s' (not square)\n", src.label.c_str());
        return;
    }
    const bool has_width = base.op == "spmm" || base.op == "sddmm" || base.op == "fusedmm";
    const std::vector<std::int64_t> widths = has_width ? s.widths : std::vector<std::int64_t>{0};
    for (const std::int64_t w : widths) {
        std::optional<BaselineTime> vendor;
        std::vector<std::optional<Measurement>> fastest(variants.size());
        for (std::int64_t round = 0; round < (variants.size() > 1 ? s.rounds : 1); ++round)
            for (std::size_t v = 0; v < variants.size(); ++v) {
                OpConfig c = base;
                if (c.op == "spmm")
                    c.n = w;
                else if (has_width)
                    c.k = w;
                c.kernel_config = variants[v] == "default" ? "" : variants[v];  // the selector's (or the op's own) choice
                auto op = make_operation(exec, c, inputs);
                Measurement m = measure(exec, c, w, *op, src, inputs, s, vendor);
                if (variants.size() > 1) m.variant = variants[v];
                if (!fastest[v] || median(m.times) < median(fastest[v]->times)) fastest[v] = std::move(m);
            }
        for (auto& m : fastest) out.push_back(std::move(*m));
    }
}

// The baselines' other ratios (BaselineTime::ratios), a geomean line per label in first-seen order:
// geomean spgemm vs cusparse-alg1: 2.10x (worst case 1.02x, 4 matrices)
void print_ratio_geomeans(const std::string& key, const std::vector<const Measurement*>& group) {
    std::vector<std::string> labels;
    std::map<std::string, std::vector<double>> ratios;
    for (const auto* m : group) {
        if (!m->baseline) continue;
        for (const auto& [label, ratio] : m->baseline->ratios) {
            if (!(ratio > 0) || !std::isfinite(ratio)) continue;
            if (!ratios.contains(label)) labels.push_back(label);
            ratios[label].push_back(ratio);
        }
    }
    for (const auto& label : labels) {
        const auto& r = ratios[label];
        double log_sum = 0;
        for (const double x : r) log_sum += std::log(x);
        std::printf("geomean %s %s: %sx (worst case %sx, %zu matrices)\n", key.c_str(), label.c_str(),
                    fixed(std::exp(log_sum / static_cast<double>(r.size())), 2).c_str(),
                    fixed(*std::min_element(r.begin(), r.end()), 2).c_str(), r.size());
    }
}

// "spmm n=32", "sddmm k=32", "fusedmm backward k=32" (the width is B's columns for spmm, the
// feature width per head otherwise); with_pass false leaves "backward" out.
std::string width_key(const Measurement& m, bool with_pass = true) {
    const std::string op = with_pass && m.backward ? m.op + " backward" : m.op;
    const std::string variant = m.variant.empty() ? "" : " [" + m.variant + "]";
    if (!m.n) return op + variant;
    return op + (m.op == "spmm" ? " n=" : " k=") + std::to_string(m.n) + variant;
}

// The backward pass's goal (fusedmm's issue: backward <= 2.5x forward), a line per width:
// geomean fusedmm k=32 backward over forward: 1.90x (worst case 2.31x, 5 matrices)
// ("backward (edge terms) over forward" with --edge-terms). Here more than 1 means the backward
// is slower, so the worst case is the largest ratio.
void print_backward_geomean(const std::vector<const Measurement*>& group) {
    std::vector<double> r;
    for (const auto* m : group)
        if (m->backward && m->forward_seconds > 0 && m->median > 0) r.push_back(m->median / m->forward_seconds);
    if (r.empty()) return;
    double log_sum = 0;
    for (const double x : r) log_sum += std::log(x);
    std::printf("geomean %s backward%s over forward: %sx (worst case %sx, %zu matrices)\n", width_key(*group.front(), false).c_str(),
                group.front()->edge_terms ? " (edge terms)" : "",
                fixed(std::exp(log_sum / static_cast<double>(r.size())), 2).c_str(),
                fixed(*std::max_element(r.begin(), r.end()), 2).c_str(), r.size());
}

Json to_json(const std::vector<Measurement>& ms, const Executor& exec, const Settings& s,
             const std::vector<std::pair<std::string, std::pair<double, double>>>& geo) {
    Json results = Json::array();
    for (const auto& m : ms) {
        Json times = Json::array();
        for (const double t : m.times) times.push(t);
        Json r = Json::object();
        r.set("op", m.op).set("matrix", m.matrix).set("source", m.source).set("config", m.config);
        if (!m.variant.empty()) r.set("variant", m.variant);
        r.set("rows", m.rows).set("cols", m.cols).set("nnz", m.nnz).set("n", m.n);
        r.set("median_s", m.median).set("min_s", *std::min_element(m.times.begin(), m.times.end())).set("times_s", std::move(times));
        r.set("flops", m.flops).set("bytes", m.bytes).set("checksum", m.checksum);
        if (m.result_nnz >= 0) r.set("result_nnz", m.result_nnz);
        if (m.backward)
            r.set("pass", "backward").set("edge_terms", m.edge_terms).set("forward_s", m.forward_seconds).set("backward_over_forward", rate(m.median, m.forward_seconds));
        if (m.baseline) {
            r.set("baseline", m.baseline->name).set("baseline_s", m.baseline->seconds).set("baselines", m.baseline->all);
            Json ratios = Json::object();
            for (const auto& [label, ratio] : m.baseline->ratios) ratios.set(label, ratio);
            r.set("ratios", std::move(ratios));
        }
        if (!m.own_figures.empty()) r.set("spk_figures", m.own_figures);
        if (m.edges > 0) r.set("edges", m.edges).set("edges_per_s", rate(m.edges, m.median));
        if (m.op == "read")
            r.set("mb_per_s", rate(m.bytes, m.median) / 1e6);
        else
            r.set("gflops", rate(m.flops, m.median) / 1e9).set("gb_per_s", rate(m.bytes, m.median) / 1e9);
        results.push(std::move(r));
    }
    Json geomeans = Json::array();
    for (const auto& [key, g] : geo) geomeans.push(Json::object().set("key", key).set("gflops", g.first).set("gb_per_s", g.second));
    return Json::object()
        .set("tool", "spk bench")
        .set("backend", exec.name())
        .set("threads", exec.threads())
        .set("warmup", s.warmup)
        .set("reps", s.reps)
        .set("rounds", s.rounds)
        .set("timing", s.graph_replay ? "graph" : "stream")
        .set("results", std::move(results))
        .set("geomeans", std::move(geomeans));
}

}  // namespace

int run_bench(std::span<const std::string> args) {
    const auto parsed = parse(spec(), args);
    if (!parsed) return 0;
    const auto ops_text = parsed->value("op");
    if (!ops_text) throw UsageError("missing --op");
    std::vector<std::string> ops;
    for (std::size_t start = 0; start <= ops_text->size();) {
        const auto comma = ops_text->find(',', start);
        const std::string op = ops_text->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (op != "read" && std::find(std::begin(op_names), std::end(op_names), op) == std::end(op_names))
            throw UsageError("--op: unknown operation '" + op + "' (" + op_list() + ", read)");
        ops.push_back(op);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::vector<MatrixSource> sources;
    for (const auto& m : parsed->values("matrix")) sources.push_back(classify_matrix_arg(m));
    for (const auto& suite : parsed->values("suite"))
        for (auto& s : read_suite(suite)) sources.push_back(std::move(s));
    if (sources.empty()) throw UsageError("no matrices: give --matrix or --suite");
    const std::string timing = parsed->get("timing", "stream");
    if (timing != "stream" && timing != "graph") throw UsageError("--timing: expected stream or graph, got '" + timing + "'");
    const Settings settings{parsed->get_int("warmup", 3), parsed->get_int("reps", 10), parsed->get_int_list("n", "32"),
                            parsed->get_int("rounds", 1), !parsed->has("no-vendor"), timing == "graph"};
    constexpr std::int64_t most_runs = 1000000, most_width = std::int64_t{1} << 24;
    if (settings.warmup < 0 || settings.reps < 1 || settings.warmup > most_runs || settings.reps > most_runs)
        throw UsageError("--warmup must be between 0 and 1000000 and --reps between 1 and 1000000");
    if (settings.rounds < 1 || settings.rounds > most_runs)
        throw UsageError("--rounds must be between 1 and 1000000, got " + std::to_string(settings.rounds));
    for (const auto w : settings.widths)
        if (w < 1 || w > most_width) throw UsageError("--n: widths must be between 1 and 16777216, got " + std::to_string(w));
    const Executor default_exec = make_executor(parsed->get("backend", "cpu"), read_threads(*parsed));
    const bool graph_replay = settings.graph_replay && default_exec.backend() == Backend::cuda;
    const std::shared_ptr<void> own_stream = graph_replay ? make_device_stream(default_exec) : nullptr;
    const Executor exec = own_stream ? Executor::cuda(default_exec.device(), own_stream.get()) : default_exec;
    if (graph_replay) set_device_graph_replay(true);

    // On a GPU, each row also says how close it comes to the memory-bound floor.
    const double bandwidth = exec.backend() == Backend::cuda ? device_copy_bandwidth(exec) : 0.0;
    if (bandwidth > 0) std::fprintf(stderr, "spk bench: device copy bandwidth %s GB/s (read + write)\n", fixed(bandwidth / 1e9, 1).c_str());

    std::vector<std::string> variants = parsed->values("config");
    if (variants.empty()) variants.push_back("");
    std::vector<Measurement> ms;
    for (const auto& src : sources) {
        OpInputs matrix_inputs, tensor_inputs;
        for (const auto& op : ops) {
            if (op == "read") {
                bench_read(src, settings, ms);
                continue;
            }
            OpInputs& in = is_tensor_op(op) ? tensor_inputs : matrix_inputs;
            // "spgemm" loads --b and --mask too when given; the other matrix ops ignore them.
            if (!in.a && !in.tensor) {
                try {
                    in = load_op_inputs(*parsed, is_tensor_op(op) ? op : "spgemm", src.text);
                } catch (const Error& e) {
                    if (src.origin.empty()) throw;
                    throw Error(e.kind(), src.origin + ": " + e.what());  // the suite's line
                }
            }
            bench_op(exec, read_op_config(*parsed, op, false, true), variants, src, in, settings, ms);
        }
    }
    for (auto& m : ms) m.median = median(m.times);

    const bool with_baseline = std::any_of(ms.begin(), ms.end(), [](const Measurement& m) { return m.baseline.has_value(); });
    const bool with_forward = std::any_of(ms.begin(), ms.end(), [](const Measurement& m) { return m.backward; });
    std::vector<std::string> columns{"op", "matrix", "rows", "nnz", "n", "median ms", "GFLOP/s", "GB/s"};
    if (bandwidth > 0) columns.push_back("of floor");
    const bool with_edges = std::any_of(ms.begin(), ms.end(), [](const Measurement& m) { return m.edges > 0; });
    if (with_edges) columns.push_back("Medges/s");
    if (with_forward) columns.insert(columns.end(), {"forward ms", "bwd/fwd"});
    if (with_baseline) columns.insert(columns.end(), {"vendor best", "vendor ms", "speedup"});
    Table table(columns);
    std::map<std::string, std::vector<const Measurement*>> groups;
    std::vector<std::string> group_order;
    for (const auto& m : ms) {
        const bool read = m.op == "read";
        std::vector<std::string> row{(m.backward ? m.op + " backward" : m.op) + (m.variant.empty() ? "" : " [" + m.variant + "]"),
                                     m.matrix,
                                     count(m.rows),
                                     count(m.nnz),
                                     m.n ? count(m.n) : "-",
                                     millis(m.median),
                                     read || m.flops == 0 ? "-" : fixed(rate(m.flops, m.median) / 1e9, 2),
                                     read ? fixed(rate(m.bytes, m.median) / 1e6, 1) + " MB/s" : fixed(rate(m.bytes, m.median) / 1e9, 2)};
        if (bandwidth > 0) row.push_back(read ? "-" : fixed(100.0 * m.bytes / bandwidth / m.median, 1) + "%");
        if (with_edges) row.push_back(m.edges > 0 ? fixed(rate(m.edges, m.median) / 1e6, 1) : "-");
        if (with_forward) {
            if (m.backward)
                row.insert(row.end(), {millis(m.forward_seconds), fixed(rate(m.median, m.forward_seconds), 2) + "x"});
            else
                row.insert(row.end(), {"-", "-"});
        }
        if (with_baseline) {
            if (m.baseline)
                row.insert(row.end(), {m.baseline->name, millis(m.baseline->seconds), fixed(m.baseline->seconds / m.median, 2) + "x"});
            else
                row.insert(row.end(), {"-", "-", "-"});
        }
        table.add_row(row);
        const std::string key = width_key(m);
        if (!groups.contains(key)) group_order.push_back(key);
        groups[key].push_back(&m);
    }
    table.print(stdout);

    std::vector<std::pair<std::string, std::pair<double, double>>> geo;
    std::printf("\n");
    for (const auto& key : group_order) {
        double log_flops = 0, log_bytes = 0;
        int with_flops = 0;
        const auto& g = groups[key];
        for (const auto* m : g) {
            if (m->flops > 0) {
                log_flops += std::log(rate(m->flops, m->median));
                ++with_flops;
            }
            log_bytes += std::log(rate(m->bytes, m->median));
        }
        const double gf = with_flops ? std::exp(log_flops / with_flops) / 1e9 : 0.0;
        const double gb = std::exp(log_bytes / static_cast<double>(g.size())) / 1e9;
        geo.push_back({key, {gf, gb}});
        if (g.front()->op == "read")
            std::printf("geomean %s: %s MB/s over %zu matrices\n", key.c_str(), fixed(gb * 1e3, 1).c_str(), g.size());
        else
            std::printf("geomean %s: %s GFLOP/s, %s GB/s over %zu matrices\n", key.c_str(), with_flops ? fixed(gf, 2).c_str() : "-",
                        fixed(gb, 2).c_str(), g.size());
        if (g.front()->edges > 0) {  // graph operations: every measurement of the group has its edges
            double log_edges = 0;
            for (const auto* m : g) log_edges += std::log(rate(m->edges, m->median));
            std::printf("geomean %s: %s Medges/s over %zu graphs\n", key.c_str(), fixed(std::exp(log_edges / static_cast<double>(g.size())) / 1e6, 1).c_str(),
                        g.size());
        }
        // The goal lines the results files end with: geomean <op> <case> vs <baseline>: <ratio>x
        double log_ratio = 0, worst = 0;
        int with_vendor = 0;
        for (const auto* m : g)
            if (m->baseline) {
                const double r = m->baseline->seconds / m->median;
                log_ratio += std::log(r);
                worst = with_vendor == 0 ? r : std::min(worst, r);
                ++with_vendor;
            }
        if (with_vendor)
            std::printf("geomean %s vs cusparse-best%s: %sx (worst case %sx, %d matrices)\n", key.c_str(),
                        settings.graph_replay ? " graph-replay" : "", fixed(std::exp(log_ratio / with_vendor), 2).c_str(), fixed(worst, 2).c_str(),
                        with_vendor);
        print_ratio_geomeans(key, g);
        print_backward_geomean(g);
    }
    if (const auto path = parsed->value("json")) write_json_file(*path, to_json(ms, exec, settings, geo));
    return 0;
}

}  // namespace spk::cli
