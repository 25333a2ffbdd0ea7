#pragma once
// A small command-line parser for the sub-commands: `--name value`, `--name=value`, flags,
// short aliases (-o), repeatable options, and integer lists in the CUTLASS-profiler style
// (`32:512:x2` multiplies, `32:128:32` adds, `4,32,128` lists; items may be mixed).
// Every malformed command line throws UsageError (exit code 2).
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace spk::cli {

struct OptionSpec {
    std::string_view name = {};        // without the leading "--"
    std::string_view value_name = {};  // empty: a flag that takes no value
    std::string_view help = {};
    std::string_view default_value = {};  // shown in --help only
    char short_name = 0;                  // e.g. 'o' for -o
    bool repeatable = false;
};

struct CommandSpec {
    std::string_view name = {};      // "info"
    std::string_view synopsis = {};  // "FILE [options]"
    std::string_view description = {};
    std::vector<OptionSpec> options = {};
    std::size_t min_positional = 0;
    std::size_t max_positional = 0;
    std::string_view epilog = {};  // extra help text after the options
};

class ParsedArgs {
public:
    const std::vector<std::string>& positional() const { return positional_; }
    bool has(std::string_view name) const { return values_.contains(std::string(name)); }
    // The last value given for an option, or nullopt.
    std::optional<std::string> value(std::string_view name) const;
    std::string get(std::string_view name, std::string_view fallback) const;
    // Every value given for a repeatable option, in order.
    std::vector<std::string> values(std::string_view name) const;

    std::int64_t get_int(std::string_view name, std::int64_t fallback) const;
    double get_double(std::string_view name, double fallback) const;
    // An integer list with range syntax; `fallback` (same syntax) when the option is absent.
    std::vector<std::int64_t> get_int_list(std::string_view name, std::string_view fallback) const;
    // One of `choices`, or UsageError naming them.
    std::string get_choice(std::string_view name, std::string_view fallback, std::span<const std::string_view> choices) const;

private:
    friend std::optional<ParsedArgs> parse(const CommandSpec&, std::span<const std::string>);
    std::vector<std::string> positional_;
    std::map<std::string, std::vector<std::string>, std::less<>> values_;
};

// Parses args against spec. Returns nullopt after printing the help to stdout when --help or
// -h is present (the caller then exits 0). Throws UsageError on any malformed input.
std::optional<ParsedArgs> parse(const CommandSpec& spec, std::span<const std::string> args);
void print_help(const CommandSpec& spec, FILE* out);

// "32:512:x2" -> 32 64 128 256 512; "32:128:32" -> 32 64 96 128; "4,32,128"; "7".
// `what` names the option in error messages.
std::vector<std::int64_t> parse_int_list(std::string_view text, std::string_view what);
std::int64_t parse_int(std::string_view text, std::string_view what);
double parse_double(std::string_view text, std::string_view what);

}  // namespace spk::cli
