#pragma once
// Explicit-instantiation lists, so every backend builds the same set of (value, index) types.
#include <cstdint>

#include "spk/types.hpp"

// All four value types with both index types.
#define SPK_FOR_ALL_VALUES_AND_INDICES(M) \
    M(float, std::int32_t)                \
    M(float, std::int64_t)                \
    M(double, std::int32_t)               \
    M(double, std::int64_t)               \
    M(::spk::f16, std::int32_t)           \
    M(::spk::f16, std::int64_t)           \
    M(::spk::bf16, std::int32_t)          \
    M(::spk::bf16, std::int64_t)

// f32 and f64 only (operations where 16-bit storage has no use case yet).
#define SPK_FOR_FLOAT_VALUES_AND_INDICES(M) \
    M(float, std::int32_t)                  \
    M(float, std::int64_t)                  \
    M(double, std::int32_t)                 \
    M(double, std::int64_t)
