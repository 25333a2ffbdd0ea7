// spk gen: a generated matrix (or AMG operators) into a file.
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "command.hpp"
#include "format.hpp"
#include "matrix_output.hpp"
#include "matrix_source.hpp"
#include "options.hpp"
#include "spk/error.hpp"
#include "spk/generate.hpp"
#include "stopwatch.hpp"

namespace spk::cli {

namespace {

const CommandSpec& spec() {
    static const CommandSpec s{
        .name = "gen",
        .synopsis = "SPEC -o FILE [--amg] [--quiet]",
        .description =
            "Generates the matrix SPEC describes and writes it to FILE: Matrix Market for .mtx, spk's binary\n"
            "cache for .spkb. Times go to stderr for outputs of a million entries or more.",
        .options = {{.name = "output", .value_name = "FILE", .help = "output file (.mtx or .spkb)", .short_name = 'o'},
                    {.name = "amg",
                     .help = "SPEC is an AMG problem: write A, P (smoothed-aggregation prolongator) and R = P^T "
                             "to FILE's name with _A, _P, _R before the extension"},
                    {.name = "quiet", .help = "no timing lines on stderr"}},
        .min_positional = 1,
        .max_positional = 1,
        .epilog =
            "SPEC: KIND:KEY=VALUE,... (a leading 'gen:' is allowed), for example\n"
            "  uniform:rows=1000000,cols=1000000,per_row=16,seed=1   rmat:scale=20,edge_factor=16\n"
            "  powerlaw:rows=100000,per_row=16,exponent=2.1           banded:n=100000,half_width=5\n"
            "  blockdiag:blocks=1000,block=32                         laplace3d:n=128  bigstar2d:n=1000\n"
            "  brick3d:n=64  elasticity3d:n=40   (AMG problems; nx=, ny=, nz= set the grid per axis)\n"
            "Example: spk gen laplace3d:n=40 --amg -o lap40.mtx  writes lap40_A.mtx, lap40_P.mtx, lap40_R.mtx",
    };
    return s;
}

constexpr std::int64_t big_output = 1'000'000;  // entries from which timings are printed

// "laplace3d:n=40" or "brick3d:nx=10,ny=20,nz=30" -> problem and grid.
struct AmgSpec {
    AmgProblem problem;
    index_t nx, ny, nz;
};

AmgSpec parse_amg_spec(const std::string& text) {
    const std::string spec = text.starts_with("gen:") ? text.substr(4) : text;
    const auto colon = spec.find(':');
    const std::string kind = spec.substr(0, colon);
    static const std::map<std::string, std::pair<AmgProblem, bool>> kinds{{"laplace3d", {AmgProblem::laplace3d, true}},
                                                                          {"bigstar2d", {AmgProblem::bigstar2d, false}},
                                                                          {"brick3d", {AmgProblem::brick3d, true}},
                                                                          {"elasticity3d", {AmgProblem::elasticity3d, true}}};
    const auto it = kinds.find(kind);
    if (it == kinds.end()) throw UsageError("--amg: '" + kind + "' is not an AMG problem (laplace3d, bigstar2d, brick3d, elasticity3d)");
    std::map<std::string, index_t> p;
    for (std::size_t start = colon == std::string::npos ? spec.size() : colon + 1; start < spec.size();) {
        const auto comma = spec.find(',', start);
        const std::string item = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto eq = item.find('=');
        if (eq == std::string::npos) throw UsageError("--amg: '" + item + "' in '" + text + "' is not KEY=VALUE");
        const std::string key = item.substr(0, eq);
        if (key != "n" && key != "nx" && key != "ny" && key != "nz")
            throw UsageError("--amg: unknown parameter '" + key + "' (n, nx, ny, nz)");
        p[key] = parse_int(item.substr(eq + 1), "--amg " + key);
        start = comma == std::string::npos ? spec.size() : comma + 1;
    }
    const index_t n = p.contains("n") ? p["n"] : 0;
    auto axis = [&](const char* k, index_t fallback) { return p.contains(k) ? p[k] : fallback; };
    AmgSpec s{it->second.first, axis("nx", n), axis("ny", n), axis("nz", it->second.second ? n : 1)};
    if (s.nx < 1 || s.ny < 1 || s.nz < 1) throw UsageError("--amg: the grid needs n (or nx, ny, nz) >= 1 in '" + text + "'");
    return s;
}

// lap.mtx + "_A" -> lap_A.mtx
std::string with_suffix(const std::string& path, const std::string& suffix) {
    for (const std::string ext : {".mtx", ".spkb"})
        if (path.ends_with(ext)) return path.substr(0, path.size() - ext.size()) + suffix + ext;
    return path + suffix;
}

void save_timed(const std::string& path, const Csr<double, std::int64_t>& a, bool quiet) {
    const Stopwatch clock;
    save_matrix(path, a);
    if (!quiet && a.nnz() >= big_output)
        std::fprintf(stderr, "spk gen: wrote %s in %s s\n", path.c_str(), fixed(clock.seconds(), 2).c_str());
}

void report(const char* what, const Csr<double, std::int64_t>& a, double seconds, bool quiet) {
    if (!quiet && a.nnz() >= big_output)
        std::fprintf(stderr, "spk gen: generated %s: %lld x %lld, %lld nnz in %s s\n", what, static_cast<long long>(a.rows()),
                     static_cast<long long>(a.cols()), static_cast<long long>(a.nnz()), fixed(seconds, 2).c_str());
}

}  // namespace

int run_gen(std::span<const std::string> args) {
    const auto parsed = parse(spec(), args);
    if (!parsed) return 0;
    const auto out = parsed->value("output");
    if (!out) throw UsageError("missing -o FILE");
    const std::string& text = parsed->positional()[0];
    const bool quiet = parsed->has("quiet");
    if (parsed->has("amg")) {
        const AmgSpec s = parse_amg_spec(text);
        const Stopwatch clock;
        const auto ops = generate_amg<double, std::int64_t>(s.problem, s.nx, s.ny, s.nz);
        report("A, P, R", ops.a, clock.seconds(), quiet);
        for (const auto& [suffix, m] :
             {std::pair<const char*, const Csr<double, std::int64_t>*>{"_A", &ops.a}, {"_P", &ops.p}, {"_R", &ops.r}}) {
            const std::string path = with_suffix(*out, suffix);
            save_timed(path, *m, quiet);
            std::printf("%s: %lld x %lld, %lld nnz\n", path.c_str(), static_cast<long long>(m->rows()), static_cast<long long>(m->cols()),
                        static_cast<long long>(m->nnz()));
        }
        return 0;
    }
    MatrixSource src = classify_matrix_arg(text);
    if (!src.is_spec) throw UsageError("'" + text + "' is a file name; spk gen takes a generator spec");
    const Stopwatch clock;
    const auto a = generate<double, std::int64_t>(src.spec);  // a spec only: its own error, not "neither a file nor a spec"
    report(src.spec.c_str(), a, clock.seconds(), quiet);
    save_timed(*out, a, quiet);
    std::printf("%s: %lld x %lld, %lld nnz\n", out->c_str(), static_cast<long long>(a.rows()), static_cast<long long>(a.cols()),
                static_cast<long long>(a.nnz()));
    return 0;
}

}  // namespace spk::cli
