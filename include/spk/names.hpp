#pragma once
// The option enums back from their names: the inverse of the to_string functions of spmm.hpp,
// spgemm.hpp and fusedmm.hpp, over each enum's list of values (all_reduces, all_semirings, ...).
// The command-line tool and the Python package parse their options with these, so that each name
// is written once, in its to_string.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace spk {

// The value of `all` named `text`, if any.
template <class E, std::size_t N>
std::optional<E> from_string(std::string_view text, const E (&all)[N]) {
    for (const E e : all)
        if (to_string(e) == text) return e;
    return std::nullopt;
}

// Every name of `all`, comma-separated (for messages).
template <class E, std::size_t N>
std::string names_of(const E (&all)[N]) {
    std::string names;
    for (const E e : all) names.append(names.empty() ? "" : ", ").append(to_string(e));
    return names;
}

}  // namespace spk
