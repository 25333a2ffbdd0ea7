#pragma once
// Mode checks and CSF mode orders shared by the MTTKRP and TTM front ends.
#include <array>
#include <string>
#include <string_view>

#include "spk/error.hpp"
#include "spk/matrix.hpp"

namespace spk::detail {

inline void check_mode(int mode, std::string_view where) {
    if (mode < 0 || mode > 2) invalid_argument(std::string(where) + ": mode " + std::to_string(mode) + " is outside 0..2");
}

// The two modes other than `mode`, ascending.
inline std::array<int, 2> other_modes(int mode) { return mode == 0 ? std::array{1, 2} : mode == 1 ? std::array{0, 2} : std::array{0, 1}; }

// MTTKRP: rooted at the output mode; the shorter of the other two modes goes in the middle so
// that fibers are fewer and longer and the middle factor row is reused over more non-zeros.
inline std::array<int, 3> mttkrp_order(int mode, const std::array<index_t, 3>& dims) {
    auto [a, b] = other_modes(mode);
    if (dims[static_cast<std::size_t>(b)] < dims[static_cast<std::size_t>(a)]) std::swap(a, b);
    return {mode, a, b};
}

// TTM: the product's mode is the leaf, so every output fiber is one contiguous CSF fiber.
inline std::array<int, 3> ttm_order(int mode) {
    const auto [a, b] = other_modes(mode);
    return {a, b, mode};
}

}  // namespace spk::detail
