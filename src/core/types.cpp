#include "spk/types.hpp"

namespace spk {

// IEEE binary16 conversion with round to nearest even, subnormals, inf and NaN.
f16::f16(float value) noexcept {
    std::uint32_t u;
    std::memcpy(&u, &value, 4);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) {
        bits = static_cast<std::uint16_t>(sign | 0x7e00u);
        return;
    }  // NaN
    if (abs >= 0x477ff000u) {
        bits = static_cast<std::uint16_t>(sign | 0x7c00u);
        return;
    }                         // overflow to inf
    if (abs < 0x38800000u) {  // subnormal or zero
        if (abs < 0x33000000u) {
            bits = static_cast<std::uint16_t>(sign);
            return;
        }
        const std::uint32_t exp = abs >> 23;
        const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        const std::uint32_t shift = 126u - exp;  // 14..24
        std::uint32_t half = mant >> shift;
        const std::uint32_t rest = mant & ((1u << shift) - 1u);
        const std::uint32_t mid = 1u << (shift - 1u);
        if (rest > mid || (rest == mid && (half & 1u))) ++half;
        bits = static_cast<std::uint16_t>(sign | half);
        return;
    }
    std::uint32_t r = abs - 0x38000000u;  // rebias exponent 127 -> 15
    r += 0xfffu + ((r >> 13) & 1u);
    bits = static_cast<std::uint16_t>(sign | (r >> 13));
}

f16::operator float() const noexcept {
    const std::uint32_t sign = (static_cast<std::uint32_t>(bits) & 0x8000u) << 16;
    std::uint32_t exp = (bits >> 10) & 0x1fu;
    std::uint32_t mant = bits & 0x3ffu;
    std::uint32_t u;
    if (exp == 0x1fu)
        u = sign | 0x7f800000u | (mant << 13);
    else if (exp != 0)
        u = sign | ((exp + 112u) << 23) | (mant << 13);
    else if (mant == 0)
        u = sign;
    else {
        exp = 113u;
        while ((mant & 0x400u) == 0) {
            mant <<= 1;
            --exp;
        }
        u = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

std::string_view to_string(ValueType t) noexcept {
    switch (t) {
        case ValueType::f16:
            return "f16";
        case ValueType::bf16:
            return "bf16";
        case ValueType::f32:
            return "f32";
        case ValueType::f64:
            return "f64";
    }
    return "?";
}

std::string_view to_string(IndexType t) noexcept { return t == IndexType::i32 ? "i32" : "i64"; }

}  // namespace spk
