// f16 / bf16 conversions: exact values, rounding to nearest even, subnormals, inf and NaN.
#include <cmath>
#include <limits>

#include "support/test_support.hpp"

namespace spk {
namespace {

TEST(F16, ExactValuesRoundTrip) {
    for (float v : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f /* smallest normal */, 5.9604645e-8f /* smallest subnormal */})
        EXPECT_EQ(static_cast<float>(f16(v)), v) << v;
}

TEST(F16, EveryBitPatternRoundTripsThroughFloat) {
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
        const f16 h = f16::from_bits(static_cast<std::uint16_t>(b));
        const float f = static_cast<float>(h);
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(static_cast<float>(f16(f))));
            continue;
        }
        EXPECT_EQ(f16(f).bits, h.bits) << "bits " << b;
    }
}

TEST(F16, RoundsToNearestEvenAndOverflowsToInf) {
    EXPECT_EQ(static_cast<float>(f16(1.0f + 1.0f / 2048.0f)), 1.0f);                   // halfway: down to even
    EXPECT_EQ(static_cast<float>(f16(1.0f + 3.0f / 2048.0f)), 1.0f + 2.0f / 1024.0f);  // halfway: up to even
    EXPECT_TRUE(std::isinf(static_cast<float>(f16(70000.0f))));
    EXPECT_TRUE(std::isinf(static_cast<float>(f16(-std::numeric_limits<float>::infinity()))));
    EXPECT_TRUE(std::isnan(static_cast<float>(f16(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_EQ(static_cast<float>(f16(1e-9f)), 0.0f);
}

TEST(BF16, RoundsToNearestEvenAndKeepsSpecials) {
    EXPECT_EQ(static_cast<float>(bf16(1.0f)), 1.0f);
    EXPECT_EQ(static_cast<float>(bf16(1.0f + 1.0f / 256.0f)), 1.0f);                  // halfway: down to even
    EXPECT_EQ(static_cast<float>(bf16(1.0f + 3.0f / 256.0f)), 1.0f + 2.0f / 128.0f);  // halfway: up to even
    EXPECT_TRUE(std::isnan(static_cast<float>(bf16(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_TRUE(std::isinf(static_cast<float>(bf16(std::numeric_limits<float>::infinity()))));
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
        const float f = static_cast<float>(bf16::from_bits(static_cast<std::uint16_t>(b)));
        if (!std::isnan(f)) {
            EXPECT_EQ(bf16(f).bits, b);
        }
    }
}

}  // namespace
}  // namespace spk
