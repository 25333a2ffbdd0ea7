#pragma once
// A 64-bit checksum for spk's binary cache files: FNV-1a's xor-then-multiply step applied to
// 64-bit words in four independent lanes (so it runs at memory speed), with an xor-shift after
// each multiply to carry high input bits down, and a final avalanche. It detects corruption;
// it is not a cryptographic hash. Streaming: update() may be called with any split of the data.
#include <cstddef>
#include <cstdint>

namespace spk::detail {

class Checksum64 {
public:
    Checksum64() noexcept;
    void update(const void* data, std::size_t bytes) noexcept;
    std::uint64_t value() const noexcept;  // of everything passed to update() so far

private:
    void block(const unsigned char* p) noexcept;  // 32 bytes, one word per lane
    std::uint64_t lane_[4];
    unsigned char pending_[32];
    std::size_t pending_bytes_ = 0;
    std::uint64_t total_ = 0;
};

}  // namespace spk::detail
