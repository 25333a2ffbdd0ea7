#pragma once
// Loads and stores of spk value types in their accumulation type, cheap enough for inner loops.
// f16::operator float is out of line (portable bit manipulation); here F16C instructions convert
// instead (the library is built for x86-64-v3, which includes F16C).
#include <immintrin.h>

#include <type_traits>

#include "spk/types.hpp"

namespace spk::detail::cpu {

// Accumulation type of a value type: double for f64, float otherwise.
template <class V>
using accum_t = typename value_traits<V>::accum;

template <class Acc, class V>
inline Acc load_as(const V& x) noexcept {
    if constexpr (std::is_same_v<V, f16>)
        return static_cast<Acc>(_cvtsh_ss(x.bits));
    else if constexpr (std::is_same_v<V, bf16>)
        return static_cast<Acc>(static_cast<float>(x));  // a shift, inline
    else
        return static_cast<Acc>(x);
}

template <class V, class Acc>
inline V store_as(Acc x) noexcept {
    if constexpr (std::is_same_v<V, f16>)
        return f16::from_bits(static_cast<std::uint16_t>(_cvtss_sh(static_cast<float>(x), _MM_FROUND_TO_NEAREST_INT)));
    else if constexpr (std::is_same_v<V, bf16>)
        return bf16(static_cast<float>(x));
    else
        return static_cast<V>(x);
}

// dst[0, count) = src[0, count) converted to Acc; 8 at a time for f16.
template <class Acc, class V>
inline void load_row(const V* src, Acc* dst, long count) noexcept {
    long k = 0;
    if constexpr (std::is_same_v<V, f16> && std::is_same_v<Acc, float>) {
        for (; k + 8 <= count; k += 8)
            _mm256_storeu_ps(dst + k, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k))));
    }
    for (; k < count; ++k) dst[k] = load_as<Acc>(src[k]);
}

}  // namespace spk::detail::cpu
