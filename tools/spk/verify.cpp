// spk verify: every available backend against the reference, on one input.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "command.hpp"
#include "compare.hpp"
#include "core/cuda_runtime.hpp"
#include "format.hpp"
#include "op_options.hpp"
#include "spk/error.hpp"
#include "table.hpp"

namespace spk::cli {

namespace {

const CommandSpec& spec() {
    static const CommandSpec s = [] {
        CommandSpec c{
            .name = "verify",
            .synopsis = "OP|all MATRIX|TENSOR [options]",
            .description =
                "Runs OP on every backend there is (cpu with 1 thread and with all threads, cuda when spk was built with\n"
                "it and a device exists, reported as skipped otherwise) and compares each result with the reference\n"
                "backend's: max abs and max rel error (rel over entries with |ref| >= 1e-3 max|ref|), PASS or FAIL.\n"
                "A value passes when |got - ref| <= rtol (|ref| + max|ref|); counts and sparse patterns must match\n"
                "exactly. 'all' runs spmm (sum, max), sddmm, fusedmm (every preset), spgemm and tc on MATRIX, or\n"
                "mttkrp and ttm in every mode on a TENSOR (.tns). Exit status 1 when any check fails.",
            .options =
                {{.name = "threads", .value_name = "T", .help = "threads of the multi-threaded cpu run (0 = all)", .default_value = "0"},
                 {.name = "rtol", .value_name = "X", .help = "relative tolerance", .default_value = "1e-4"}},
            .min_positional = 2,
            .max_positional = 2,
            .epilog = matrix_argument_help,
        };
        for (auto& o : op_parameter_options(true)) c.options.push_back(o);
        return c;
    }();
    return s;
}

struct Backend {
    std::string label;
    std::optional<Executor> exec;
    std::string skipped;  // why there is no executor
};

std::vector<Backend> backends(int threads) {
    std::vector<Backend> out;
    out.push_back({"cpu, 1 thread", Executor::cpu(1), {}});
    const Executor all = Executor::cpu(threads);
    out.push_back({"cpu, " + std::to_string(all.threads()) + " threads", all, {}});
    if (!detail::cuda::built_with_cuda())
        out.push_back({"cuda", std::nullopt, "built without CUDA"});
    else if (detail::cuda::device_count() == 0)
        out.push_back({"cuda", std::nullopt, "no CUDA device"});
    else
        out.push_back({"cuda, device 0", Executor::cuda(0), {}});
    return out;
}

// The configurations `verify all` runs, from the user's options.
std::vector<OpConfig> all_configs(const OpConfig& base, const OpInputs& inputs) {
    std::vector<OpConfig> out;
    auto add = [&](std::string op, auto&& tweak) {
        OpConfig c = base;
        c.op = std::move(op);
        tweak(c);
        out.push_back(c);
    };
    auto keep = [](OpConfig&) {};
    if (inputs.tensor) {
        for (const char* op : {"mttkrp", "ttm"})
            for (int mode = 0; mode < 3; ++mode) add(op, [mode](OpConfig& c) { c.mode = mode; });
        return out;
    }
    add("spmm", [](OpConfig& c) { c.reduce = Reduce::sum; });
    add("spmm", [](OpConfig& c) { c.reduce = Reduce::max; });
    add("sddmm", keep);
    for (const auto preset : fused_presets) add("fusedmm", [preset](OpConfig& c) { c.preset = std::string(preset); });
    add("spgemm", keep);
    if (inputs.a->rows() == inputs.a->cols()) add("tc", keep);
    return out;
}

struct Tally {
    int passed = 0, failed = 0, skipped = 0;
};

void verify_one(const OpConfig& config, const OpInputs& inputs, const std::vector<Backend>& list, double rtol, Table& table, Tally& tally) {
    OpOutput want;
    std::string what = config.op;
    try {
        auto ref = make_operation(Executor::reference(), config, inputs);
        what = ref->describe();
        ref->run();
        want = ref->output();
    } catch (const Error& e) {
        table.add_row({what, "reference", "", "", std::string("FAIL: ") + e.what()});
        ++tally.failed;
        return;
    }
    for (const auto& b : list) {
        if (!b.exec) {
            table.add_row({what, b.label, "", "", "skipped (" + b.skipped + ")"});
            ++tally.skipped;
            continue;
        }
        try {
            auto op = make_operation(*b.exec, config, inputs);
            op->run();
            const Verdict v = compare(op->output(), want, rtol);
            table.add_row({what, b.label, sci(v.max_abs), sci(v.max_rel), v.pass ? "PASS" : "FAIL: " + v.note});
            ++(v.pass ? tally.passed : tally.failed);
        } catch (const Error& e) {
            const bool unsupported = e.kind() == ErrorKind::Unsupported;
            table.add_row({what, b.label, "", "", (unsupported ? "skipped (" : "FAIL: (") + std::string(e.what()) + ")"});
            ++(unsupported ? tally.skipped : tally.failed);
        }
    }
}

}  // namespace

int run_verify(std::span<const std::string> args) {
    const auto parsed = parse(spec(), args);
    if (!parsed) return 0;
    const std::string op = parsed->positional()[0];
    const std::string& input = parsed->positional()[1];
    const double rtol = parsed->get_double("rtol", 1e-4);
    if (!(rtol > 0)) throw UsageError("--rtol: must be > 0");
    const auto list = backends(read_threads(*parsed));

    std::vector<OpConfig> configs;
    OpInputs inputs;
    if (op == "all") {
        const bool tensor = input.ends_with(".tns") || input.ends_with(".tns.gz");
        inputs = load_op_inputs(*parsed, tensor ? "mttkrp" : "spgemm", input);
        configs = all_configs(read_op_config(*parsed, "all"), inputs);
    } else {
        configs.push_back(read_op_config(*parsed, op));
        if (std::find(std::begin(op_names), std::end(op_names), op) == std::end(op_names))
            throw UsageError("unknown operation '" + op + "' (" + op_list() + ", or all)");
        inputs = load_op_inputs(*parsed, op, input);
    }

    Table table({"operation", "backend", "max abs err", "max rel err", "result"});
    Tally tally;
    for (const auto& c : configs) verify_one(c, inputs, list, rtol, table, tally);
    table.print(stdout);
    std::printf("\n%s: %d of %d checks passed (%d skipped)\n", tally.failed ? "FAIL" : "PASS", tally.passed, tally.passed + tally.failed,
                tally.skipped);
    return tally.failed ? 1 : 0;
}

}  // namespace spk::cli
