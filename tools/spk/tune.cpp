// spk tune: measure the CUDA SpMM configurations of each (matrix, n) and record the fastest in
// the tuning cache, which plans built with Tune::cache (or `spk bench --tune cache`) then use.
#include <cstdio>
#include <limits>

#include "command.hpp"
#include "matrix_source.hpp"
#include "op_options.hpp"
#include "spk/spmm.hpp"
#include "table.hpp"

namespace spk::cli {

namespace {

const CommandSpec& spec() {
    static const CommandSpec s{
        .name = "tune",
        .synopsis = "(--matrix MATRIX ... | --suite FILE) [--n LIST] [--device D]",
        .description =
            "For each matrix and width n, times the candidate CUDA SpMM configurations (f32 values, i32 indices,\n"
            "sum) on random dense operands and records the fastest in the tuning cache ($SPK_TUNING_CACHE, else\n"
            "~/.cache/spk/tuning.json). Needs spk built with CUDA and a device.",
        .options =
            {{.name = "matrix", .value_name = "MATRIX", .help = "a matrix file or generator spec", .repeatable = true},
             {.name = "suite", .value_name = "FILE", .help = "a file listing matrices, one a line (bench/suites/)", .repeatable = true},
             {.name = "n", .value_name = "LIST", .help = "widths: 32,128 or 32:512:x2", .default_value = "32"},
             {.name = "device", .value_name = "D", .help = "CUDA device", .default_value = "0"}},
        .min_positional = 0,
        .max_positional = 0,
        .epilog = matrix_argument_help,
    };
    return s;
}

}  // namespace

int run_tune(std::span<const std::string> args) {
    const auto parsed = parse(spec(), args);
    if (!parsed) return 0;
    std::vector<MatrixSource> sources;
    for (const auto& m : parsed->values("matrix")) sources.push_back(classify_matrix_arg(m));
    for (const auto& suite : parsed->values("suite"))
        for (auto& s : read_suite(suite)) sources.push_back(std::move(s));
    if (sources.empty()) throw UsageError("no matrices: give --matrix or --suite");
    const auto widths = parsed->get_int_list("n", "32");
    for (const auto n : widths)
        if (n < 1 || n > (1 << 24)) throw UsageError("--n: widths must be between 1 and 16777216, got " + std::to_string(n));
    const std::int64_t device = parsed->get_int("device", 0);
    if (device < 0 || device > std::numeric_limits<int>::max()) throw UsageError("--device: no device " + std::to_string(device));
    const Executor gpu = Executor::cuda(static_cast<int>(device));
    Table table({"matrix", "n", "configuration"});
    for (const auto& src : sources) {
        const Matrix a = load_matrix_source<float, std::int32_t>(src).to(gpu);
        for (const auto n : widths) {
            const SpmmPlan<float, std::int32_t> plan(gpu, a.view(), n, SpmmOptions{.tune = Tune::measure});
            std::fprintf(stderr, "spk tune: %s n=%lld: %s\n", src.label.c_str(), static_cast<long long>(n), plan.config().c_str());
            table.add_row({src.label, std::to_string(n), plan.config()});
        }
    }
    table.print(stdout);
    std::printf("\nrecorded in %s\n", tuning_cache_path().c_str());
    return 0;
}

}  // namespace spk::cli
