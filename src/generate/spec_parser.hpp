#pragma once
// Generator spec strings "kind:name=value,name=value" (the grammar is in spk/generate.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "generate/grid_problems.hpp"

namespace spk::detail {

class GeneratorSpec {
public:
    // Checks the kind and the parameter names (unknown or repeated ones throw InvalidArgument;
    // messages start with "caller: spec '...': ").
    GeneratorSpec(std::string_view text, std::string_view caller);

    const std::string& kind() const { return kind_; }
    bool has(std::string_view name) const;
    // A non-negative integer parameter; the fallback when absent (none: required).
    index_t integer(std::string_view name, std::optional<index_t> fallback = std::nullopt) const;
    // A size given as `name` or through n (rows=..., or n=...).
    index_t size_or_n(std::string_view name) const;
    double real(std::string_view name, double fallback) const;
    std::uint64_t seed() const;  // seed=, default 1
    // The AMG problem this kind names, if any, and its grid (n sets nx, ny, nz; bigstar2d is flat).
    std::optional<AmgProblem> amg_problem() const;
    Grid grid() const;

    [[noreturn]] void fail(const std::string& what) const;

private:
    const std::string* find(std::string_view name) const;
    std::string text_, caller_, kind_;
    std::vector<std::pair<std::string, std::string>> params_;
};

// The kind of a spec (text before ':', trimmed), without checking anything else.
std::string_view spec_kind(std::string_view text);
// The AMG problem a kind names, if any.
std::optional<AmgProblem> amg_problem_named(std::string_view kind);

}  // namespace spk::detail
