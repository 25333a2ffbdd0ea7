#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "command.hpp"

namespace spk::cli {

namespace {

std::string quoted(std::string_view s) { return std::string("'").append(s).append("'"); }

const OptionSpec* find_long(const CommandSpec& spec, std::string_view name) {
    for (const auto& o : spec.options)
        if (o.name == name) return &o;
    return nullptr;
}

const OptionSpec* find_short(const CommandSpec& spec, char c) {
    for (const auto& o : spec.options)
        if (o.short_name == c) return &o;
    return nullptr;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// One list item: "a", "a:b" (step 1), "a:b:s" (add s) or "a:b:xf" (multiply by f).
void append_range(std::string_view item, std::string_view what, std::vector<std::int64_t>& out) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const std::size_t colon = item.find(':', start);
        parts.push_back(item.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
        if (colon == std::string_view::npos) break;
        start = colon + 1;
    }
    if (parts.size() == 1) {
        out.push_back(parse_int(parts[0], what));
        return;
    }
    if (parts.size() > 3) throw UsageError(std::string(what) + ": range " + quoted(item) + " has more than three parts (start:end:step)");
    const std::int64_t first = parse_int(parts[0], what), last = parse_int(parts[1], what);
    if (last < first) throw UsageError(std::string(what) + ": range " + quoted(item) + " ends before it starts");
    std::string_view step = parts.size() == 3 ? parts[2] : "1";
    const bool multiply = !step.empty() && (step.front() == 'x' || step.front() == '*');
    if (multiply) step.remove_prefix(1);
    const std::int64_t s = parse_int(step, what);
    if (multiply ? (s < 2 || first < 1) : s < 1)
        throw UsageError(std::string(what) + ": range " + quoted(item) +
                         (multiply ? " needs a factor >= 2 and a start >= 1" : " needs a step >= 1"));
    constexpr std::size_t max_items = 1 << 16;  // a typo like 1:1000000000 should not eat the memory
    constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max();
    for (std::int64_t v = first; v <= last;) {
        out.push_back(v);
        if (out.size() > max_items) throw UsageError(std::string(what) + ": range " + quoted(item) + " has too many values");
        if (multiply ? v > top / s : v > top - s) break;
        v = multiply ? v * s : v + s;
    }
}

}  // namespace

std::int64_t parse_int(std::string_view text, std::string_view what) {
    text = trim(text);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
        throw UsageError(std::string(what) + ": expected an integer, got " + quoted(text));
    return v;
}

double parse_double(std::string_view text, std::string_view what) {
    text = trim(text);
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
        throw UsageError(std::string(what) + ": expected a number, got " + quoted(text));
    return v;
}

std::vector<std::int64_t> parse_int_list(std::string_view text, std::string_view what) {
    std::vector<std::int64_t> out;
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (item.empty()) throw UsageError(std::string(what) + ": empty item in list " + quoted(text));
        append_range(item, what, out);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::optional<std::string> ParsedArgs::value(std::string_view name) const {
    const auto it = values_.find(name);
    if (it == values_.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::string ParsedArgs::get(std::string_view name, std::string_view fallback) const {
    const auto v = value(name);
    return v ? *v : std::string(fallback);
}

std::vector<std::string> ParsedArgs::values(std::string_view name) const {
    const auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::int64_t ParsedArgs::get_int(std::string_view name, std::int64_t fallback) const {
    const auto v = value(name);
    return v ? parse_int(*v, "--" + std::string(name)) : fallback;
}

double ParsedArgs::get_double(std::string_view name, double fallback) const {
    const auto v = value(name);
    return v ? parse_double(*v, "--" + std::string(name)) : fallback;
}

std::vector<std::int64_t> ParsedArgs::get_int_list(std::string_view name, std::string_view fallback) const {
    return parse_int_list(get(name, fallback), "--" + std::string(name));
}

std::string ParsedArgs::get_choice(std::string_view name, std::string_view fallback, std::span<const std::string_view> choices) const {
    const std::string v = get(name, fallback);
    if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
    std::string list;
    for (const auto c : choices) list += (list.empty() ? "" : ", ") + std::string(c);
    throw UsageError("--" + std::string(name) + ": " + quoted(v) + " is not one of " + list);
}

std::optional<ParsedArgs> parse(const CommandSpec& spec, std::span<const std::string> args) {
    ParsedArgs parsed;
    bool only_positional = false;  // after "--"
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (only_positional || arg.size() < 2 || arg[0] != '-' || (arg[1] != '-' && !std::isalpha(static_cast<unsigned char>(arg[1])))) {
            parsed.positional_.push_back(arg);  // "-" alone and negative numbers are positional
            continue;
        }
        if (arg == "--") {
            only_positional = true;
            continue;
        }
        if (arg == "--help" || arg == "-h") {
            print_help(spec, stdout);
            return std::nullopt;
        }
        const OptionSpec* opt = nullptr;
        std::optional<std::string> inline_value;
        if (arg[1] == '-') {
            const std::string_view body = std::string_view(arg).substr(2);
            const std::size_t eq = body.find('=');
            opt = find_long(spec, body.substr(0, eq));
            if (eq != std::string_view::npos) inline_value = std::string(body.substr(eq + 1));
        } else if (arg.size() == 2) {
            opt = find_short(spec, arg[1]);
        }
        if (opt == nullptr) throw UsageError("unknown option " + quoted(arg));
        const std::string name(opt->name);
        if (!opt->repeatable && parsed.values_.contains(name)) throw UsageError("option --" + name + " given twice");
        auto& slot = parsed.values_[name];
        if (opt->value_name.empty()) {
            if (inline_value) throw UsageError("option --" + name + " takes no value");
            slot.emplace_back();
            continue;
        }
        if (inline_value) {
            slot.push_back(*inline_value);
        } else if (i + 1 < args.size()) {
            slot.push_back(args[++i]);
        } else {
            throw UsageError("option --" + name + " needs a value (" + std::string(opt->value_name) + ")");
        }
    }
    const std::size_t n = parsed.positional_.size();
    if (n < spec.min_positional) throw UsageError("missing argument: spk " + std::string(spec.name) + " " + std::string(spec.synopsis));
    if (n > spec.max_positional) throw UsageError("unexpected argument " + quoted(parsed.positional_[spec.max_positional]));
    return parsed;
}

void print_help(const CommandSpec& spec, FILE* out) {
    std::fprintf(out, "usage: spk %.*s %.*s\n\n%.*s\n", static_cast<int>(spec.name.size()), spec.name.data(),
                 static_cast<int>(spec.synopsis.size()), spec.synopsis.data(), static_cast<int>(spec.description.size()),
                 spec.description.data());
    if (!spec.options.empty()) std::fprintf(out, "\noptions:\n");
    for (const auto& o : spec.options) {
        std::string left = o.short_name ? std::string("-") + o.short_name + ", " : std::string("    ");
        left.append("--").append(o.name);
        if (!o.value_name.empty()) left.append(" ").append(o.value_name);
        std::string help(o.help);
        if (!o.default_value.empty()) help += " (default " + std::string(o.default_value) + ")";
        if (o.repeatable) help += " (repeatable)";
        if (left.size() > 26)
            std::fprintf(out, "  %s\n  %-26s %s\n", left.c_str(), "", help.c_str());
        else
            std::fprintf(out, "  %-26s %s\n", left.c_str(), help.c_str());
    }
    std::fprintf(out, "  -h, --help                 show this help\n");
    if (!spec.epilog.empty()) std::fprintf(out, "\n%.*s\n", static_cast<int>(spec.epilog.size()), spec.epilog.data());
}

}  // namespace spk::cli
