// Parsing and checking of generator spec strings.
#include "generate/spec_parser.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "spk/error.hpp"

namespace spk::detail {

namespace {

struct KindParameters {
    std::string_view kind;
    std::vector<std::string_view> parameters;
};

const std::array<KindParameters, 9>& kinds() {
    static const std::array<KindParameters, 9> table{{
        {"uniform", {"rows", "cols", "n", "per_row", "seed"}},
        {"rmat", {"scale", "edge_factor", "a", "b", "c", "d", "seed"}},
        {"powerlaw", {"rows", "cols", "n", "per_row", "exponent", "seed"}},
        {"banded", {"n", "half_width", "seed"}},
        {"blockdiag", {"blocks", "block", "seed"}},
        {"laplace3d", {"n", "nx", "ny", "nz"}},
        {"bigstar2d", {"n", "nx", "ny"}},
        {"brick3d", {"n", "nx", "ny", "nz"}},
        {"elasticity3d", {"n", "nx", "ny", "nz"}},
    }};
    return table;
}

// 'text' (built by appending: GCC 12 warns falsely on "'" + std::string(...)).
std::string quoted(std::string_view text) {
    std::string out(1, '\'');
    out.append(text);
    out += '\'';
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

template <class Names>
std::string join(const Names& names) {
    std::string out;
    for (const auto& n : names) {
        if (!out.empty()) out += ", ";
        out += n;
    }
    return out;
}

template <class T>
bool parse_number(const std::string& text, T& out) {
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

}  // namespace

std::string_view spec_kind(std::string_view text) { return trim(text.substr(0, text.find(':'))); }

GeneratorSpec::GeneratorSpec(std::string_view text, std::string_view caller) : text_(text), caller_(caller), kind_(spec_kind(text)) {
    std::vector<std::string_view> kind_names;
    for (const auto& k : kinds()) kind_names.push_back(k.kind);
    if (kind_.empty()) fail("no kind given (kinds: " + join(kind_names) + ")");
    const auto kp = std::find_if(kinds().begin(), kinds().end(), [&](const KindParameters& k) { return k.kind == kind_; });
    if (kp == kinds().end()) fail("unknown kind '" + kind_ + "' (kinds: " + join(kind_names) + ")");
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view rest = text.substr(colon + 1);
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) fail(quoted(item) + " is not name=value");
        const std::string name(trim(item.substr(0, eq))), value(trim(item.substr(eq + 1)));
        if (std::find(kp->parameters.begin(), kp->parameters.end(), name) == kp->parameters.end())
            fail("unknown parameter '" + name + "' for " + kind_ + " (parameters: " + join(kp->parameters) + ")");
        if (find(name)) fail("parameter '" + name + "' is given twice");
        params_.emplace_back(name, value);
    }
}

void GeneratorSpec::fail(const std::string& what) const { invalid_argument(caller_ + ": spec '" + text_ + "': " + what); }

const std::string* GeneratorSpec::find(std::string_view name) const {
    for (const auto& [n, v] : params_)
        if (n == name) return &v;
    return nullptr;
}

bool GeneratorSpec::has(std::string_view name) const { return find(name) != nullptr; }

index_t GeneratorSpec::integer(std::string_view name, std::optional<index_t> fallback) const {
    const std::string* v = find(name);
    if (!v) {
        if (!fallback) fail("missing parameter '" + std::string(name) + "'");
        return *fallback;
    }
    index_t out = 0;
    if (!parse_number(*v, out) || out < 0) fail("parameter '" + std::string(name) + "' = '" + *v + "' is not a non-negative integer");
    return out;
}

index_t GeneratorSpec::size_or_n(std::string_view name) const {
    if (has(name)) return integer(name);
    if (has("n")) return integer("n");
    fail("missing parameter '" + std::string(name) + "' (or 'n')");
}

double GeneratorSpec::real(std::string_view name, double fallback) const {
    const std::string* v = find(name);
    if (!v) return fallback;
    double out = 0;
    if (!parse_number(*v, out) || !std::isfinite(out)) fail("parameter '" + std::string(name) + "' = '" + *v + "' is not a finite number");
    return out;
}

std::uint64_t GeneratorSpec::seed() const {
    const std::string* v = find("seed");
    if (!v) return 1;
    std::uint64_t out = 0;
    if (!parse_number(*v, out)) fail("parameter 'seed' = '" + *v + "' is not a non-negative integer");
    return out;
}

std::optional<AmgProblem> amg_problem_named(std::string_view kind) {
    for (AmgProblem p : {AmgProblem::laplace3d, AmgProblem::bigstar2d, AmgProblem::brick3d, AmgProblem::elasticity3d})
        if (to_string(p) == kind) return p;
    return std::nullopt;
}

std::optional<AmgProblem> GeneratorSpec::amg_problem() const { return amg_problem_named(kind_); }

Grid GeneratorSpec::grid() const {
    const bool flat = amg_problem() == AmgProblem::bigstar2d;
    return Grid{size_or_n("nx"), size_or_n("ny"), flat ? 1 : size_or_n("nz")};
}

}  // namespace spk::detail
