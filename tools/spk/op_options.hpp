#pragma once
// The options that describe an operation's parameters and inputs, shared by run, verify and
// bench, and the executor options (--backend, --threads).
#include <string>
#include <vector>

#include "operation.hpp"
#include "options.hpp"

namespace spk::cli {

// --heads, --reduce, --preset, --semiring, --b, --mask, --complement-mask, --mode, --rank, --seed,
// and with_widths --n and --k (bench declares its own --n list, which sets n or k per op).
std::vector<OptionSpec> op_parameter_options(bool with_widths);
// The OpConfig for `op` from those options (defaults as their help says); with_widths as above.
// --config may be repeated only where config_list (the first is taken; bench sets each in turn).
OpConfig read_op_config(const ParsedArgs& args, const std::string& op, bool with_widths = true, bool config_list = false);

// Loads the inputs `op` needs: the matrix (file or spec) or, for tensor ops, a FROSTT file;
// --b and --mask for spgemm ("--mask self" uses A).
OpInputs load_op_inputs(const ParsedArgs& args, const std::string& op, const std::string& input);

// reference | cpu | cuda; threads (0 = all) applies to cpu.
Executor make_executor(const std::string& backend, int threads);
// --threads as a thread count >= 0.
int read_threads(const ParsedArgs& args);

// Names for help texts: "spmm, sddmm, fusedmm, spgemm, tc, mttkrp, ttm".
std::string op_list();

// The help text shared by the commands that take a matrix argument.
extern const char* const matrix_argument_help;

}  // namespace spk::cli
