// spk tc: the triangle count of the undirected simple graph under a matrix.
#include <cstdio>

#include "command.hpp"
#include "format.hpp"
#include "matrix_source.hpp"
#include "op_options.hpp"
#include "spk/spgemm.hpp"
#include "stopwatch.hpp"

namespace spk::cli {

namespace {

const CommandSpec& spec() {
    static const CommandSpec s{
        .name = "tc",
        .synopsis = "MATRIX [--threads T] [--backend B]",
        .description =
            "Counts the triangles of the undirected simple graph under MATRIX (pattern of A + A^T, diagonal\n"
            "dropped, each triangle once). Prints the count on the first line, the time on stderr.",
        .options = {{.name = "backend", .value_name = "B", .help = "cpu, reference or cuda", .default_value = "cpu"},
                    {.name = "threads", .value_name = "T", .help = "cpu threads (0 = all)", .default_value = "0"}},
        .min_positional = 1,
        .max_positional = 1,
        .epilog = matrix_argument_help,
    };
    return s;
}

}  // namespace

int run_tc(std::span<const std::string> args) {
    const auto parsed = parse(spec(), args);
    if (!parsed) return 0;
    const Executor exec = make_executor(parsed->get("backend", "cpu"), read_threads(*parsed));
    const Stopwatch load_clock;
    const Matrix a = load_matrix_source<float, std::int32_t>(classify_matrix_arg(parsed->positional()[0]));
    const double load_seconds = load_clock.seconds();
    const Matrix g = a.to(exec);
    const Stopwatch clock;
    const std::uint64_t triangles = triangle_count(exec, g.view());
    exec.synchronize();
    const double seconds = clock.seconds();
    std::printf("%llu\n", static_cast<unsigned long long>(triangles));
    std::fprintf(stderr, "triangles %llu in %s ms on %s (load %s ms)\n", static_cast<unsigned long long>(triangles),
                 millis(seconds).c_str(), exec.name().c_str(), millis(load_seconds).c_str());
    return 0;
}

}  // namespace spk::cli
