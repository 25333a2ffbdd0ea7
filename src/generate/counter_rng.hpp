#pragma once
// Counter-based random numbers. Each stream (one row, one edge) is keyed by (seed, domain,
// index), so rows can be generated in any order on any number of threads and still give the
// same matrix. The generator is SplitMix64 (a Weyl sequence through a strong 64-bit mixer).
#include <cstdint>

#include "spk/matrix.hpp"

namespace spk::detail {

__extension__ typedef unsigned __int128 uint128;  // __extension__: no -Wpedantic warning

// The SplitMix64 finaliser: a bijection on 64-bit words with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;

// One domain per generator, so that equal seeds in different generators do not correlate.
enum class RngDomain : std::uint64_t { uniform = 1, rmat, powerlaw, banded, blockdiag, entry_value, power_iteration };

constexpr std::uint64_t stream_key(std::uint64_t seed, RngDomain domain, std::uint64_t index) noexcept {
    return mix64(mix64(seed ^ mix64(static_cast<std::uint64_t>(domain) * golden_gamma)) + index * golden_gamma);
}

class CounterRng {
public:
    CounterRng(std::uint64_t seed, RngDomain domain, std::uint64_t index) noexcept : state_(stream_key(seed, domain, index)) {}
    std::uint64_t next() noexcept {
        state_ += golden_gamma;
        return mix64(state_);
    }
    // Uniform in (0, 1] with 53 random bits.
    double unit() noexcept { return static_cast<double>((next() >> 11) + 1) * 0x1p-53; }
    // Uniform integer in [0, n) (Lemire's multiply-shift; the bias is below 2^-64 * n).
    std::uint64_t below(std::uint64_t n) noexcept { return static_cast<std::uint64_t>((static_cast<uint128>(next()) * n) >> 64); }

private:
    std::uint64_t state_;
};

// A value in (0, 1] that depends only on (seed, i, j): entries get the same value whatever
// order or thread produced them, and (i, j) / (j, i) can share one for symmetric matrices.
inline double entry_value(std::uint64_t seed, index_t i, index_t j) noexcept {
    const std::uint64_t h =
        mix64(stream_key(seed, RngDomain::entry_value, static_cast<std::uint64_t>(i)) + static_cast<std::uint64_t>(j) * golden_gamma);
    return static_cast<double>((h >> 11) + 1) * 0x1p-53;
}

}  // namespace spk::detail
