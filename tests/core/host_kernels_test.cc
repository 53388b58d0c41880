// The host reduction kernel is behind every CPU all-reduce, so each dtype x
// op is checked against an independent reference, at sizes that straddle the
// kernel's blocks; and the half/bfloat16 conversions are checked bit for bit
// over every 16-bit pattern. Runs under UBSan: integer wrap-around must be
// computed without signed overflow.
#include "strata/sdk/host_kernels.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "strata/sdk/types.h"

namespace strata::sdk {
namespace {

constexpr strata_dtype_t kDTypes[] = {STRATA_F32, STRATA_F64, STRATA_F16, STRATA_BF16,
                                      STRATA_I32, STRATA_I64, STRATA_U8};
constexpr strata_redop_t kOps[] = {STRATA_SUM, STRATA_PROD, STRATA_MIN, STRATA_MAX,
                                   STRATA_MEAN};
constexpr uint32_t kDivisor = 4;  // a power of two keeps float means exact

bool is_float(strata_dtype_t d) { return d <= STRATA_BF16; }

// Test values are small integers, exact in every dtype. Float products use
// +-1 and +-2 only, so every partial product stays exact too; integers use
// [-9, 9], so u8 sees wrapped "negative" values and i32 products stay exact.
int64_t value(strata_dtype_t d, strata_redop_t op, uint64_t src, uint64_t i) {
  if (is_float(d) && op == STRATA_PROD) {
    static constexpr int64_t kFactors[] = {-2, -1, 1, 2};
    return kFactors[(src * 3 + i) % 4];
  }
  return static_cast<int64_t>((src * 7 + i * 13 + 5) % 19) - 9;
}

template <class T>
T load(const void* buf, uint64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(buf) + i * sizeof(T), sizeof(T));
  return v;
}

template <class T>
void store(void* buf, uint64_t i, T v) {
  std::memcpy(static_cast<char*>(buf) + i * sizeof(T), &v, sizeof(T));
}

// Stores the small integer v in element i of a buffer of dtype d.
void put(strata_dtype_t d, void* buf, uint64_t i, int64_t v) {
  const auto f = static_cast<float>(v);
  switch (d) {
    case STRATA_F32: store(buf, i, f); break;
    case STRATA_F64: store(buf, i, static_cast<double>(v)); break;
    case STRATA_F16: store(buf, i, float_to_half(f)); break;
    case STRATA_BF16: store(buf, i, float_to_bfloat16(f)); break;
    case STRATA_I32: store(buf, i, static_cast<int32_t>(v)); break;
    case STRATA_I64: store(buf, i, v); break;
    default: store(buf, i, static_cast<uint8_t>(v)); break;  // wraps: -1 -> 255
  }
}

// Element i as a double; exact for every value these tests produce.
double get(strata_dtype_t d, const void* buf, uint64_t i) {
  switch (d) {
    case STRATA_F32: return static_cast<double>(load<float>(buf, i));
    case STRATA_F64: return load<double>(buf, i);
    case STRATA_F16: return static_cast<double>(half_to_float(load<uint16_t>(buf, i)));
    case STRATA_BF16: return static_cast<double>(bfloat16_to_float(load<uint16_t>(buf, i)));
    case STRATA_I32: return load<int32_t>(buf, i);
    case STRATA_I64: return static_cast<double>(load<int64_t>(buf, i));
    default: return load<uint8_t>(buf, i);
  }
}

int64_t get_int(strata_dtype_t d, const void* buf, uint64_t i) {
  switch (d) {
    case STRATA_I32: return load<int32_t>(buf, i);
    case STRATA_I64: return load<int64_t>(buf, i);
    default: return load<uint8_t>(buf, i);
  }
}

// Reduces x modulo 2^width of d, as the dtype itself would hold it.
int64_t narrow(strata_dtype_t d, int64_t x) {
  if (d == STRATA_I32) return static_cast<int32_t>(x);
  if (d == STRATA_U8) return static_cast<uint8_t>(x);
  return x;
}

// The reference: folds the typed inputs in source order. Integers use
// modular arithmetic in uint64 (exact modulo 2^width), floats exact doubles.
double expected(strata_dtype_t d, strata_redop_t op, const std::vector<std::vector<char>>& in,
                uint64_t i) {
  if (is_float(d)) {
    double acc = get(d, in[0].data(), i);
    for (size_t s = 1; s < in.size(); ++s) {
      const double v = get(d, in[s].data(), i);
      if (op == STRATA_PROD) acc *= v;
      else if (op == STRATA_MIN) acc = std::min(acc, v);
      else if (op == STRATA_MAX) acc = std::max(acc, v);
      else acc += v;
    }
    return op == STRATA_MEAN ? acc / kDivisor : acc;
  }
  int64_t acc = get_int(d, in[0].data(), i);
  for (size_t s = 1; s < in.size(); ++s) {
    const int64_t v = get_int(d, in[s].data(), i);
    const auto ua = static_cast<uint64_t>(acc);
    const auto uv = static_cast<uint64_t>(v);
    if (op == STRATA_PROD) acc = narrow(d, static_cast<int64_t>(ua * uv));
    else if (op == STRATA_MIN) acc = std::min(acc, v);
    else if (op == STRATA_MAX) acc = std::max(acc, v);
    else acc = narrow(d, static_cast<int64_t>(ua + uv));
  }
  if (op == STRATA_MEAN) acc /= kDivisor;  // C++ division truncates toward zero
  return static_cast<double>(acc);
}

// Where results go: a fresh buffer; the first source (in place); or, via
// reduce_host_multi, two fresh buffers plus the last source.
enum class Dst { kFresh, kFirstSource, kMulti };

// Runs one reduction of n sources of `count` elements and compares every
// element of every destination with the reference.
void check_reduce(strata_dtype_t d, strata_redop_t op, uint32_t n, uint64_t count, Dst where) {
  std::vector<std::vector<char>> in(n, std::vector<char>(count * dtype_size(d)));
  for (uint32_t s = 0; s < n; ++s) {
    for (uint64_t i = 0; i < count; ++i) put(d, in[s].data(), i, value(d, op, s, i));
  }
  std::vector<double> want(count);
  for (uint64_t i = 0; i < count; ++i) want[i] = expected(d, op, in, i);

  std::vector<char> out(count * dtype_size(d), 0x5a);
  std::vector<char> out2(count * dtype_size(d), 0x5a);
  std::vector<const void*> srcs;
  for (auto& b : in) srcs.push_back(b.data());
  std::vector<void*> dsts = {out.data()};
  if (where == Dst::kFirstSource) dsts = {in[0].data()};
  if (where == Dst::kMulti) dsts = {out.data(), in[n - 1].data(), out2.data()};
  const bool ok = where == Dst::kMulti
                      ? reduce_host_multi(d, op, dsts.data(), 3, srcs.data(), n, count, kDivisor)
                      : reduce_host(d, op, dsts[0], srcs.data(), n, count, kDivisor);
  ASSERT_TRUE(ok);
  for (size_t k = 0; k < dsts.size(); ++k) {
    for (uint64_t i = 0; i < count; ++i) {
      ASSERT_EQ(get(d, dsts[k], i), want[i])
          << dtype_name(d) << " " << redop_name(op) << " n=" << n << " count=" << count
          << " element " << i << " of destination " << k << " (layout "
          << static_cast<int>(where) << ")";
    }
  }
}

TEST(ReduceHostTest, EveryDTypeOpAndSourceCount) {
  for (strata_dtype_t d : kDTypes) {
    for (strata_redop_t op : kOps) {
      for (uint32_t n = 1; n <= 9; ++n) check_reduce(d, op, n, 37, Dst::kFresh);
    }
  }
}

TEST(ReduceHostTest, CountsAcrossBlockBoundaries) {
  // Blocks are 8 KiB of the compute type (2048 f32 or 16-bit floats, 1024
  // f64, 8192 u8); these counts end just before and after them.
  for (uint64_t count : {1023u, 1025u, 2047u, 2049u, 8191u, 8193u}) {
    for (strata_dtype_t d : kDTypes) {
      for (strata_redop_t op : kOps) check_reduce(d, op, 3, count, Dst::kFresh);
    }
  }
}

TEST(ReduceHostTest, InPlaceAndSeveralDestinations) {
  for (strata_dtype_t d : kDTypes) {
    for (strata_redop_t op : kOps) {
      check_reduce(d, op, 4, 8193, Dst::kFirstSource);
      check_reduce(d, op, 1, 5, Dst::kFirstSource);  // one source in place: a no-op
      check_reduce(d, op, 3, 8193, Dst::kMulti);
      check_reduce(d, op, 1, 9, Dst::kMulti);
    }
  }
}

TEST(ReduceHostTest, LargeOutputsAlignedOrNot) {
  // From 2 MiB of output the kernel streams its stores to 16-byte aligned
  // destinations; a misaligned one and a ragged tail must still be exact.
  constexpr uint64_t kCount = (uint64_t{1} << 19) + 3;
  std::vector<float> a(kCount), b(kCount), aligned(kCount), shifted(kCount + 1);
  for (uint64_t i = 0; i < kCount; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  const void* srcs[] = {a.data(), b.data()};
  void* const dsts[] = {aligned.data(), shifted.data() + 1};
  ASSERT_TRUE(reduce_host_multi(STRATA_F32, STRATA_SUM, dsts, 2, srcs, 2, kCount, 1));
  for (uint64_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(aligned[i], static_cast<float>(3 * i)) << i;
    ASSERT_EQ(shifted[i + 1], static_cast<float>(3 * i)) << i;
  }
  EXPECT_EQ(shifted[0], 0.0f);
}

template <class T>
T reduce2(strata_dtype_t d, strata_redop_t op, T a, T b, uint32_t divisor = 1) {
  const void* srcs[] = {&a, &b};
  T out{};
  EXPECT_TRUE(reduce_host(d, op, &out, srcs, 2, 1, divisor));
  return out;
}

TEST(ReduceHostTest, IntegerMeanTruncatesTowardZero) {
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_MEAN, -7, 0, 2), -3);  // not -4
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_MEAN, 7, 0, 2), 3);
  EXPECT_EQ(reduce2<int64_t>(STRATA_I64, STRATA_MEAN, -10, 0, 3), -3);
  EXPECT_EQ(reduce2<int64_t>(STRATA_I64, STRATA_MEAN, -12, 0, 3), -4);
  EXPECT_EQ(reduce2<uint8_t>(STRATA_U8, STRATA_MEAN, 200, 7, 2), 103);
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_MEAN, -5, -4, 1), -9);  // divisor 1: the sum
  EXPECT_EQ(reduce2<float>(STRATA_F32, STRATA_MEAN, 1.0f, 0.0f, 3), 1.0f / 3.0f);
}

TEST(ReduceHostTest, IntegerSumAndProductWrapWithoutOverflow) {
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_SUM, kMax32, 1), kMin32);
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_SUM, kMin32, -1), kMax32);
  EXPECT_EQ(reduce2<int64_t>(STRATA_I64, STRATA_SUM, kMax64, 1), kMin64);
  EXPECT_EQ(reduce2<uint8_t>(STRATA_U8, STRATA_SUM, 255, 1), 0);
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_PROD, 65536, 65536), 0);
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_PROD, 46341, 46341), -2147479015);
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_PROD, kMin32, -1), kMin32);
  EXPECT_EQ(reduce2<int64_t>(STRATA_I64, STRATA_PROD, kMin64, -1), kMin64);
  EXPECT_EQ(reduce2<int64_t>(STRATA_I64, STRATA_PROD, int64_t{1} << 32, int64_t{1} << 32), 0);
  EXPECT_EQ(reduce2<uint8_t>(STRATA_U8, STRATA_PROD, 255, 255), 1);
  EXPECT_EQ(reduce2<uint8_t>(STRATA_U8, STRATA_PROD, 16, 16), 0);
  // MEAN divides the wrapped sum, as the integer SUM would have produced it.
  EXPECT_EQ(reduce2<int32_t>(STRATA_I32, STRATA_MEAN, kMax32, 1, 2), kMin32 / 2);
}

TEST(ReduceHostTest, HalfPrecisionRoundsOnceAfterFoldingInFloat) {
  // Folding in f16 would round 2048 + 1 back to 2048 twice; f32 keeps 2050.
  const uint16_t a = float_to_half(2048.0f);
  const uint16_t one = float_to_half(1.0f);
  const void* srcs[] = {&a, &one, &one};
  uint16_t out = 0;
  ASSERT_TRUE(reduce_host(STRATA_F16, STRATA_SUM, &out, srcs, 3, 1, 1));
  EXPECT_EQ(half_to_float(out), 2050.0f);
  // The mean of two maxima does not overflow on the way.
  const uint16_t big = 0x7bff;  // 65504
  const void* bigs[] = {&big, &big};
  ASSERT_TRUE(reduce_host(STRATA_F16, STRATA_MEAN, &out, bigs, 2, 1, 2));
  EXPECT_EQ(out, 0x7bff);
  // bf16 keeps 8 significant bits: 256 + 1 + 1 is 258 only when rounded once.
  const uint16_t b256 = float_to_bfloat16(256.0f);
  const uint16_t b1 = float_to_bfloat16(1.0f);
  const void* bsrcs[] = {&b256, &b1, &b1};
  ASSERT_TRUE(reduce_host(STRATA_BF16, STRATA_SUM, &out, bsrcs, 3, 1, 1));
  EXPECT_EQ(bfloat16_to_float(out), 258.0f);
}

TEST(ReduceHostTest, RefusesBadArgumentsAndAcceptsEmptyCalls) {
  float a = 1, b = 2, out = 7;
  const void* srcs[] = {&a, &b};
  EXPECT_FALSE(reduce_host(STRATA_F32, STRATA_SUM, &out, srcs, 0, 1, 1));
  void* const dsts[] = {&out};
  EXPECT_FALSE(reduce_host_multi(STRATA_F32, STRATA_SUM, dsts, 0, srcs, 2, 1, 1));
  EXPECT_FALSE(reduce_host(STRATA_F32, STRATA_REDOP_COUNT, &out, srcs, 2, 1, 1));
  EXPECT_FALSE(reduce_host(STRATA_F32, -1, &out, srcs, 2, 1, 1));
  EXPECT_FALSE(reduce_host(STRATA_DTYPE_COUNT, STRATA_SUM, &out, srcs, 2, 1, 1));
  EXPECT_FALSE(reduce_host(STRATA_DTYPE_COUNT, STRATA_SUM, &out, srcs, 2, 0, 1));
  EXPECT_EQ(out, 7);
  EXPECT_TRUE(reduce_host(STRATA_F32, STRATA_SUM, nullptr, srcs, 2, 0, 1));
}

}  // namespace
}  // namespace strata::sdk
