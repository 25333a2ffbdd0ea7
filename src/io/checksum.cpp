#include "io/checksum.hpp"

#include <cstring>

namespace spk::detail {

namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

inline std::uint64_t mix(std::uint64_t h, std::uint64_t w) noexcept {
    h = (h ^ w) * kFnvPrime;
    return h ^ (h >> 29);
}

inline std::uint64_t load64(const unsigned char* p) noexcept {
    std::uint64_t w;
    std::memcpy(&w, p, 8);  // little-endian hosts only (see binary_cache.cpp)
    return w;
}

}  // namespace

Checksum64::Checksum64() noexcept {
    for (int k = 0; k < 4; ++k) lane_[k] = kFnvOffset + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(k);  // distinct lane seeds
}

void Checksum64::block(const unsigned char* p) noexcept {
    for (int k = 0; k < 4; ++k) lane_[k] = mix(lane_[k], load64(p + 8 * k));
}

void Checksum64::update(const void* data, std::size_t bytes) noexcept {
    if (bytes == 0) return;  // data may be null then (an empty array)
    const auto* p = static_cast<const unsigned char*>(data);
    total_ += bytes;
    if (pending_bytes_ > 0) {  // complete the block a previous call left open
        const std::size_t take = bytes < 32 - pending_bytes_ ? bytes : 32 - pending_bytes_;
        std::memcpy(pending_ + pending_bytes_, p, take);
        pending_bytes_ += take;
        p += take;
        bytes -= take;
        if (pending_bytes_ < 32) return;
        block(pending_);
        pending_bytes_ = 0;
    }
    for (; bytes >= 32; p += 32, bytes -= 32) block(p);
    std::memcpy(pending_, p, bytes);
    pending_bytes_ = bytes;
}

std::uint64_t Checksum64::value() const noexcept {
    std::uint64_t h = kFnvOffset ^ total_;  // the length separates inputs that differ only by trailing zeros
    for (std::size_t i = 0; i < pending_bytes_; ++i) h = (h ^ pending_[i]) * kFnvPrime;  // plain FNV-1a on the tail
    for (int k = 0; k < 4; ++k) h = mix(h, lane_[k]);
    // splitmix64's finalizer: every output bit depends on every input bit.
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

}  // namespace spk::detail
