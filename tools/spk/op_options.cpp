#include "op_options.hpp"

#include <array>
#include <cstddef>

#include "command.hpp"
#include "matrix_source.hpp"
#include "spk/io.hpp"
#include "spk/names.hpp"

namespace spk::cli {

const char* const matrix_argument_help =
    "MATRIX: 'gen:SPEC' is a generator spec; otherwise an existing file, or a name ending in .mtx, .mtx.gz or .spkb, is\n"
    "read as a file; anything else is a generator spec (e.g. rmat:scale=14,edge_factor=8; spk gen --help lists them).\n"
    "TENSOR (mttkrp, ttm): a FROSTT file (.tns, .tns.gz).";

namespace {

constexpr std::array<std::string_view, 3> tune_names{"select", "cache", "measure"};

// --name's value among `all` (spk/names.hpp), `fallback` when absent; a usage error names the choices.
template <class E, std::size_t N>
E enum_option(const ParsedArgs& args, std::string_view name, E fallback, const E (&all)[N]) {
    std::array<std::string_view, N> names;
    for (std::size_t i = 0; i < N; ++i) names[i] = to_string(all[i]);
    return *from_string(args.get_choice(name, to_string(fallback), names), all);
}

// A count in [1, most].
std::int64_t positive(const ParsedArgs& args, std::string_view name, std::int64_t fallback, std::int64_t most) {
    const std::int64_t v = args.get_int(name, fallback);
    if (v < 1 || v > most)
        throw UsageError("--" + std::string(name) + ": must be between 1 and " + std::to_string(most) + ", got " + std::to_string(v));
    return v;
}
// Dense widths (n, k, rank) and heads: far beyond any device's memory at the smallest matrix, and
// within int for heads.
constexpr std::int64_t kMostColumns = std::int64_t{1} << 24, kMostHeads = 4096;

}  // namespace

std::string op_list() {
    std::string s;
    for (const auto op : op_names) s += (s.empty() ? "" : ", ") + std::string(op);
    return s;
}

std::vector<OptionSpec> op_parameter_options(bool with_widths) {
    static const OptionSpec all[] = {
        {.name = "n", .value_name = "N", .help = "spmm: columns of the dense B and C", .default_value = "32"},
        {.name = "k", .value_name = "K", .help = "sddmm, fusedmm: feature width per head", .default_value = "32"},
        {.name = "heads", .value_name = "H", .help = "sddmm, fusedmm: heads", .default_value = "1"},
        {.name = "reduce", .value_name = "R", .help = "spmm: sum, mean, max or min", .default_value = "sum"},
        {.name = "preset", .value_name = "P", .help = "fusedmm: gcn, attention, gat or force2vec", .default_value = "gcn"},
        {.name = "semiring",
         .value_name = "S",
         .help = "spgemm: plus_times, plus_pair, min_plus, max_times, lor_land",
         .default_value = "plus_times"},
        {.name = "b", .value_name = "MATRIX", .help = "spgemm: right operand", .default_value = "A, or A^T when A is not square"},
        {.name = "mask", .value_name = "MATRIX", .help = "spgemm: structural mask C<M> ('self' = A)"},
        {.name = "complement-mask", .help = "spgemm: use the mask's complement C<!M>"},
        {.name = "mode", .value_name = "M", .help = "mttkrp, ttm: the mode (0, 1 or 2)", .default_value = "0"},
        {.name = "rank", .value_name = "R", .help = "mttkrp, ttm: columns of the factor matrices", .default_value = "16"},
        {.name = "seed", .value_name = "S", .help = "seed of the random dense inputs", .default_value = "1"},
        {.name = "config",
         .value_name = "CFG",
         .help = "on cuda: spmm's kernel configuration, e.g. rb.g8.r1.v4 (overrides --tune); sddmm's mode, slices or "
                 "rows[.g<lanes>][.s<split>]; fusedmm's forward, auto, team<1|2|4|8>, rows<T> or team<P>.rows<T>; bench takes several (repeated), each timed "
                 "on the same inputs ('default': the library's own choice)",
         .repeatable = true},
        {.name = "tune",
         .value_name = "T",
         .help = "spmm on cuda: select (rules), cache (tuning cache) or measure (time candidates)",
         .default_value = "select"},
        {.name = "deterministic", .help = "spmm: no timing-dependent sums (no atomics)"},
        {.name = "dtype", .value_name = "T", .help = "spgemm: value type, f32 or f64 (the other operations run f32)", .default_value = "f32"},
        {.name = "backward",
         .help = "fusedmm: the backward pass (dX, dY, dZ; dA for gcn) from a forward's statistics; bench times the forward too"},
        {.name = "edge-terms",
         .help = "fusedmm --backward: keep c*alpha and ds per entry and head while the backward runs (FusedOptions::backward_edge_terms)"},
    };
    std::vector<OptionSpec> out;
    for (const auto& o : all)
        if (with_widths || (o.name != "n" && o.name != "k")) out.push_back(o);
    return out;
}

OpConfig read_op_config(const ParsedArgs& args, const std::string& op, bool with_widths, bool config_list) {
    OpConfig c;
    c.op = op;
    if (with_widths) {
        c.n = positive(args, "n", 32, kMostColumns);
        c.k = positive(args, "k", 32, kMostColumns);
    }
    c.heads = static_cast<int>(positive(args, "heads", 1, kMostHeads));
    c.reduce = enum_option(args, "reduce", Reduce::sum, all_reduces);
    c.preset = args.get_choice("preset", "gcn", fused_presets);
    c.semiring = enum_option(args, "semiring", Semiring::plus_times, all_semirings);
    c.complement_mask = args.has("complement-mask");
    if (c.complement_mask && !args.has("mask")) throw UsageError("--complement-mask needs --mask");
    const std::int64_t mode = args.get_int("mode", 0);
    if (mode < 0 || mode > 2) throw UsageError("--mode: must be 0, 1 or 2, got " + std::to_string(mode));
    c.mode = static_cast<int>(mode);
    c.rank = positive(args, "rank", 16, kMostColumns);
    c.seed = static_cast<std::uint64_t>(args.get_int("seed", 1));
    const std::vector<std::string> configs = args.values("config");
    if (configs.size() > 1 && !config_list) throw UsageError("--config: one configuration here (spk bench compares several)");
    c.kernel_config = configs.empty() ? "" : configs.front();
    const std::string tune = args.get_choice("tune", "select", tune_names);
    c.tune = tune == "cache" ? Tune::cache : tune == "measure" ? Tune::measure : Tune::select;
    c.deterministic = args.has("deterministic");
    c.backward = args.has("backward");
    c.edge_terms = args.has("edge-terms");
    if (c.edge_terms && !c.backward) throw UsageError("--edge-terms needs --backward");
    c.values = enum_option(args, "dtype", ValueType::f32, spgemm_value_types);
    if (c.values != ValueType::f32 && op != "spgemm")
        throw UsageError("--dtype " + std::string(to_string(c.values)) + " is for spgemm only (" + op + " runs in f32)");
    return c;
}

OpInputs load_op_inputs(const ParsedArgs& args, const std::string& op, const std::string& input) {
    OpInputs in;
    if (is_tensor_op(op)) {
        in.tensor = std::make_shared<const Tensor>(read_frostt<float, std::int32_t>(input));
        return in;
    }
    // spgemm in f64 reads A and B in double (a float read would round the values it multiplies)
    const bool f64 = op == "spgemm" && args.value("dtype") == "f64";
    const auto load = [&](const std::string& text, std::shared_ptr<const Csr<double, std::int32_t>>& exact) {
        if (!f64) return std::make_shared<const Matrix>(load_matrix_source<float, std::int32_t>(classify_matrix_arg(text)));
        exact = std::make_shared<const Csr<double, std::int32_t>>(load_matrix_source<double, std::int32_t>(classify_matrix_arg(text)));
        return std::make_shared<const Matrix>(convert_values<float>(exact->view()));
    };
    in.a = load(input, in.a_f64);
    if (op != "spgemm") return in;
    if (const auto b = args.value("b")) in.b = load(*b, in.b_f64);
    if (const auto m = args.value("mask"))
        in.mask = *m == "self" ? in.a : std::make_shared<const Matrix>(load_matrix_source<float, std::int32_t>(classify_matrix_arg(*m)));
    return in;
}

Executor make_executor(const std::string& backend, int threads) {
    if (backend == "reference") return Executor::reference();
    if (backend == "cuda") return Executor::cuda(0);
    if (backend == "cpu") return Executor::cpu(threads);
    throw UsageError("--backend: '" + backend + "' is not one of cpu, reference, cuda");
}

int read_threads(const ParsedArgs& args) {
    const std::int64_t t = args.get_int("threads", 0);
    if (t < 0 || t > 4096) throw UsageError("--threads: must be between 0 (all) and 4096, got " + std::to_string(t));
    return static_cast<int>(t);
}

}  // namespace spk::cli
