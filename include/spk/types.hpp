#pragma once
// Value and index types. f16 and bf16 are 16-bit storage types: they convert to and from
// float (round to nearest even) and every kernel accumulates them in f32 or wider.
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace spk {

struct f16 {
    std::uint16_t bits = 0;
    f16() = default;
    explicit f16(float value) noexcept;
    explicit operator float() const noexcept;
    static f16 from_bits(std::uint16_t b) noexcept {
        f16 h;
        h.bits = b;
        return h;
    }
};

struct bf16 {
    std::uint16_t bits = 0;
    bf16() = default;
    explicit bf16(float value) noexcept {
        std::uint32_t u;
        std::memcpy(&u, &value, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) {
            bits = static_cast<std::uint16_t>((u >> 16) | 0x40u);
            return;
        }                                 // quiet NaN
        u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
        bits = static_cast<std::uint16_t>(u >> 16);
    }
    explicit operator float() const noexcept {
        std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    static bf16 from_bits(std::uint16_t b) noexcept {
        bf16 h;
        h.bits = b;
        return h;
    }
};

using f32 = float;
using f64 = double;

enum class ValueType { f16, bf16, f32, f64 };
enum class IndexType { i32, i64 };

template <class V>
struct value_traits;
template <>
struct value_traits<f16> {
    static constexpr ValueType id = ValueType::f16;
    using accum = float;
    static constexpr std::string_view name = "f16";
};
template <>
struct value_traits<bf16> {
    static constexpr ValueType id = ValueType::bf16;
    using accum = float;
    static constexpr std::string_view name = "bf16";
};
template <>
struct value_traits<float> {
    static constexpr ValueType id = ValueType::f32;
    using accum = float;
    static constexpr std::string_view name = "f32";
};
template <>
struct value_traits<double> {
    static constexpr ValueType id = ValueType::f64;
    using accum = double;
    static constexpr std::string_view name = "f64";
};

template <class I>
struct index_traits;
template <>
struct index_traits<std::int32_t> {
    static constexpr IndexType id = IndexType::i32;
    static constexpr std::string_view name = "i32";
};
template <>
struct index_traits<std::int64_t> {
    static constexpr IndexType id = IndexType::i64;
    static constexpr std::string_view name = "i64";
};

// Convert between any two spk value types through float/double.
template <class To, class From>
inline To value_cast(From x) noexcept {
    if constexpr (std::is_same_v<To, From>)
        return x;
    else if constexpr (std::is_same_v<From, f16> || std::is_same_v<From, bf16>)
        return To(static_cast<float>(x));
    else
        return To(x);
}

std::string_view to_string(ValueType t) noexcept;
std::string_view to_string(IndexType t) noexcept;

}  // namespace spk
