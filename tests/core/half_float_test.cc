// half/bfloat16 <-> float conversions (sdk/include/strata/sdk/host_kernels.h).
// Every 16-bit pattern is small enough to check exhaustively, so these tests
// do: decoding against an independent formula, exact round trips, and round
// to nearest even at every midpoint between neighbouring values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "strata/sdk/host_kernels.h"

namespace strata::sdk {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kInfD = std::numeric_limits<double>::infinity();

bool half_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool bf16_is_nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

// binary16 decoded straight from its definition, in double.
double half_reference(uint16_t h) {
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  const double sign = (h & 0x8000u) ? -1.0 : 1.0;
  if (exp == 0x1f) return mant == 0 ? sign * kInfD : std::nan("");
  if (exp == 0) return sign * std::ldexp(mant, -24);  // subnormal: no implicit bit
  return sign * std::ldexp(1024 + mant, exp - 25);
}

TEST(HalfTest, DecodesEveryPatternExactly) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float f = half_to_float(bits);
    if (half_is_nan(bits)) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), half_reference(bits)) << std::hex << h;
    ASSERT_EQ(std::signbit(f), (h & 0x8000u) != 0) << std::hex << h;  // -0 stays -0
  }
}

TEST(HalfTest, EveryPatternRoundTripsAndNaNsStayNaN) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const uint16_t back = float_to_half(half_to_float(bits));
    if (half_is_nan(bits)) {
      EXPECT_TRUE(half_is_nan(back)) << std::hex << h << " -> " << back;
      EXPECT_EQ(back & 0x8000u, bits & 0x8000u) << std::hex << h;
    } else {
      ASSERT_EQ(back, bits) << std::hex << h;
    }
  }
}

TEST(HalfTest, RoundsToNearestEvenAtEveryMidpoint) {
  // Between each pair of neighbours, including 0 / smallest subnormal and
  // largest subnormal / smallest normal: the exact midpoint goes to the even
  // pattern; a hair either side goes to the nearer one.
  for (uint16_t h = 0; h < 0x7bff; ++h) {
    const uint16_t next = static_cast<uint16_t>(h + 1);
    const auto mid = static_cast<float>((half_reference(h) + half_reference(next)) / 2);
    const uint16_t even = (h & 1u) == 0 ? h : next;
    ASSERT_EQ(float_to_half(mid), even) << std::hex << h;
    ASSERT_EQ(float_to_half(-mid), 0x8000u | even) << std::hex << h;
    ASSERT_EQ(float_to_half(std::nextafter(mid, kInf)), next) << std::hex << h;
    ASSERT_EQ(float_to_half(std::nextafter(mid, 0.0f)), h) << std::hex << h;
  }
}

TEST(HalfTest, OverflowUnderflowAndSpecials) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  // 65520 is halfway between 65504 (odd mantissa) and 65536: ties go to inf.
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);
  EXPECT_EQ(float_to_half(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(float_to_half(1e10f), 0x7c00);
  EXPECT_EQ(float_to_half(-1e10f), 0xfc00);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::max()), 0x7c00);
  EXPECT_EQ(float_to_half(kInf), 0x7c00);
  EXPECT_EQ(float_to_half(-kInf), 0xfc00);
  EXPECT_TRUE(half_is_nan(float_to_half(std::numeric_limits<float>::quiet_NaN())));
  // A float NaN whose payload sits below half's mantissa must not become inf.
  EXPECT_TRUE(half_is_nan(float_to_half(std::bit_cast<float>(0x7f800001u))));
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half(1e-30f), 0x0000);
  EXPECT_EQ(float_to_half(-1e-30f), 0x8000);  // the sign survives underflow
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(half_to_float(0x7c00), kInf);
  EXPECT_EQ(half_to_float(0xfc00), -kInf);
}

TEST(BFloat16Test, EveryPatternDecodesAndRoundTrips) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float f = bfloat16_to_float(bits);
    // bfloat16 is by definition the top half of an f32.
    ASSERT_EQ(std::bit_cast<uint32_t>(f), b << 16) << std::hex << b;
    const uint16_t back = float_to_bfloat16(f);
    if (bf16_is_nan(bits)) {
      EXPECT_TRUE(bf16_is_nan(back)) << std::hex << b;
    } else {
      ASSERT_EQ(back, bits) << std::hex << b;
    }
  }
}

TEST(BFloat16Test, RoundsToNearestEven) {
  for (uint32_t b = 0; b < 0x7f7f; ++b) {
    const uint32_t mid = (b << 16) | 0x8000u;  // halfway to b + 1
    const uint16_t even = static_cast<uint16_t>((b & 1u) == 0 ? b : b + 1);
    ASSERT_EQ(float_to_bfloat16(std::bit_cast<float>(mid)), even) << std::hex << b;
    ASSERT_EQ(float_to_bfloat16(std::bit_cast<float>(mid | 0x80000000u)), 0x8000u | even);
    ASSERT_EQ(float_to_bfloat16(std::bit_cast<float>(mid + 1)), b + 1) << std::hex << b;
    ASSERT_EQ(float_to_bfloat16(std::bit_cast<float>(mid - 1)), b) << std::hex << b;
  }
}

TEST(BFloat16Test, OverflowAndNaN) {
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to inf
  EXPECT_EQ(float_to_bfloat16(-std::numeric_limits<float>::max()), 0xff80);
  EXPECT_EQ(float_to_bfloat16(kInf), 0x7f80);
  // Truncating 0x7f800001 would give inf; a NaN must stay a NaN.
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(bf16_is_nan(float_to_bfloat16(std::bit_cast<float>(0xffc00000u))));
  EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0xffc00000u)) & 0x8000u, 0x8000u);
}

}  // namespace
}  // namespace strata::sdk
