// spk run: compute one operation on one backend and write or summarise the result.
#include <cstdio>

#include "command.hpp"
#include "format.hpp"
#include "op_options.hpp"
#include "stopwatch.hpp"

namespace spk::cli {

namespace {

const CommandSpec& spec() {
    static const CommandSpec s = [] {
        CommandSpec c{
            .name = "run",
            .synopsis = "OP MATRIX|TENSOR [options]",
            .description =
                "Computes OP (spmm, sddmm, fusedmm, spgemm, tc, mttkrp, ttm) on MATRIX, or on TENSOR for mttkrp and ttm, with\n"
                "random dense inputs drawn from --seed. Writes the result to -o FILE (.mtx; sparse results also .spkb)\n"
                "or prints a summary: shape, nnz, checksum (the sum of the result's values) and the time.",
            .options = {{.name = "backend", .value_name = "B", .help = "cpu, reference or cuda", .default_value = "cpu"},
                        {.name = "threads", .value_name = "T", .help = "cpu threads (0 = all)", .default_value = "0"},
                        {.name = "output", .value_name = "FILE", .help = "write the result to FILE", .short_name = 'o'}},
            .min_positional = 2,
            .max_positional = 2,
            .epilog = matrix_argument_help,
        };
        for (auto& o : op_parameter_options(true)) c.options.push_back(o);
        return c;
    }();
    return s;
}

}  // namespace

int run_run(std::span<const std::string> args) {
    const auto parsed = parse(spec(), args);
    if (!parsed) return 0;
    const std::string op = parsed->positional()[0];
    OpConfig config = read_op_config(*parsed, op);
    const Executor exec = make_executor(parsed->get("backend", "cpu"), read_threads(*parsed));
    const OpInputs inputs = load_op_inputs(*parsed, op, parsed->positional()[1]);
    auto operation = make_operation(exec, config, inputs);
    const Stopwatch clock;
    operation->run();
    const double seconds = clock.seconds();
    const OpOutput out = operation->output();
    if (const auto path = parsed->value("output")) {
        operation->save(*path);
        std::fprintf(stderr, "spk run: wrote %s\n", path->c_str());
    }
    std::printf("op        %s on %s\n", operation->describe().c_str(), exec.name().c_str());
    if (out.count) {
        std::printf("result    %llu\n", static_cast<unsigned long long>(*out.count));
    } else {
        std::printf("shape     %lld x %lld\n", static_cast<long long>(out.rows), static_cast<long long>(out.cols));
        if (out.sparse) std::printf("nnz       %lld\n", static_cast<long long>(out.values.size()));
        std::printf("checksum  %s\n", general(out.checksum(), 10).c_str());
    }
    std::printf("time      %s ms\n", millis(seconds).c_str());
    return 0;
}

}  // namespace spk::cli
