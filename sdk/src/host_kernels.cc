// Reduction kernels for host memory. The loop is blocked so that dst stays in
// L1 while each further source is folded in: memory traffic is one read of
// every source and one write of dst, which is what keeps all-reduce near the
// machine's copy bandwidth. Signed integers wrap (computed unsigned) rather
// than overflow, so results are defined for every input.
#include "strata/sdk/host_kernels.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

namespace strata::sdk {
namespace {

constexpr uint64_t kBlockBytes = 8192;

template <class T>
struct Sum {
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};
template <class T>
struct Prod {
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      // Promote u8/u16 through unsigned int so the product wraps, not traps.
      using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
      return static_cast<T>(static_cast<W>(static_cast<U>(a)) *
                            static_cast<W>(static_cast<U>(b)));
    } else {
      return a * b;
    }
  }
};
template <class T>
struct Min {
  static T apply(T a, T b) { return b < a ? b : a; }
};
template <class T>
struct Max {
  static T apply(T a, T b) { return a < b ? b : a; }
};

template <class T>
T divide(T value, uint32_t divisor) {
  if constexpr (std::is_floating_point_v<T>) {
    return value / static_cast<T>(divisor);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(value / static_cast<T>(divisor));
  } else {
    return static_cast<T>(value / divisor);
  }
}

// Fold n sources into dst over [0, count) in the compute type T.
template <class T, class Op>
void fold(T* __restrict dst, const T* const* srcs, uint32_t n, uint64_t count,
          bool mean, uint32_t divisor) {
  constexpr uint64_t kBlock = kBlockBytes / sizeof(T);
  for (uint64_t base = 0; base < count; base += kBlock) {
    const uint64_t len = std::min(kBlock, count - base);
    T* d = dst + base;
    const T* s0 = srcs[0] + base;
    if (n == 1) {
      if (d != s0) std::memmove(d, s0, len * sizeof(T));
    } else {
      const T* s1 = srcs[1] + base;
      for (uint64_t i = 0; i < len; ++i) d[i] = Op::apply(s0[i], s1[i]);
      for (uint32_t k = 2; k < n; ++k) {
        const T* sk = srcs[k] + base;
        for (uint64_t i = 0; i < len; ++i) d[i] = Op::apply(d[i], sk[i]);
      }
    }
    if (mean && divisor > 1) {
      for (uint64_t i = 0; i < len; ++i) d[i] = divide(d[i], divisor);
    }
  }
}

template <class T>
bool reduce_typed(strata_redop_t op, void* dst, const void* const* srcs,
                  uint32_t n, uint64_t count, uint32_t divisor) {
  auto* d = static_cast<T*>(dst);
  auto* s = reinterpret_cast<const T* const*>(srcs);
  switch (op) {
    case STRATA_SUM: fold<T, Sum<T>>(d, s, n, count, false, 1); return true;
    case STRATA_MEAN: fold<T, Sum<T>>(d, s, n, count, true, divisor); return true;
    case STRATA_PROD: fold<T, Prod<T>>(d, s, n, count, false, 1); return true;
    case STRATA_MIN: fold<T, Min<T>>(d, s, n, count, false, 1); return true;
    case STRATA_MAX: fold<T, Max<T>>(d, s, n, count, false, 1); return true;
    default: return false;
  }
}

// 16-bit floats: widen a block to f32, fold there, narrow once. Rounding
// happens once per element, so the result equals the f32 result rounded.
template <float (*Widen)(uint16_t) noexcept, uint16_t (*Narrow)(float) noexcept>
bool reduce_half(strata_redop_t op, void* dst, const void* const* srcs,
                 uint32_t n, uint64_t count, uint32_t divisor) {
  constexpr uint64_t kBlock = 1024;
  float acc[kBlock];
  float next[kBlock];
  auto* d = static_cast<uint16_t*>(dst);
  for (uint64_t base = 0; base < count; base += kBlock) {
    const uint64_t len = std::min(kBlock, count - base);
    const auto* s0 = static_cast<const uint16_t*>(srcs[0]) + base;
    for (uint64_t i = 0; i < len; ++i) acc[i] = Widen(s0[i]);
    for (uint32_t k = 1; k < n; ++k) {
      const auto* sk = static_cast<const uint16_t*>(srcs[k]) + base;
      for (uint64_t i = 0; i < len; ++i) next[i] = Widen(sk[i]);
      const float* parts[2] = {acc, next};
      if (!reduce_typed<float>(op == STRATA_MEAN ? STRATA_SUM : op, acc,
                               reinterpret_cast<const void* const*>(parts), 2,
                               len, 1)) {
        return false;
      }
    }
    if (op == STRATA_MEAN && divisor > 1) {
      for (uint64_t i = 0; i < len; ++i) acc[i] /= static_cast<float>(divisor);
    }
    for (uint64_t i = 0; i < len; ++i) d[base + i] = Narrow(acc[i]);
  }
  return op >= STRATA_SUM && op < STRATA_REDOP_COUNT;
}

}  // namespace

bool reduce_host(strata_dtype_t dtype, strata_redop_t op, void* dst,
                 const void* const* srcs, uint32_t num_srcs, uint64_t count,
                 uint32_t divisor) noexcept {
  if (num_srcs == 0 || op < 0 || op >= STRATA_REDOP_COUNT) return false;
  if (count == 0) return dtype >= 0 && dtype < STRATA_DTYPE_COUNT;
  switch (dtype) {
    case STRATA_F32: return reduce_typed<float>(op, dst, srcs, num_srcs, count, divisor);
    case STRATA_F64: return reduce_typed<double>(op, dst, srcs, num_srcs, count, divisor);
    case STRATA_I32: return reduce_typed<int32_t>(op, dst, srcs, num_srcs, count, divisor);
    case STRATA_I64: return reduce_typed<int64_t>(op, dst, srcs, num_srcs, count, divisor);
    case STRATA_U8: return reduce_typed<uint8_t>(op, dst, srcs, num_srcs, count, divisor);
    case STRATA_F16:
      return reduce_half<half_to_float, float_to_half>(op, dst, srcs, num_srcs,
                                                       count, divisor);
    case STRATA_BF16:
      return reduce_half<bfloat16_to_float, float_to_bfloat16>(
          op, dst, srcs, num_srcs, count, divisor);
    default: return false;
  }
}

float half_to_float(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf or NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN (keep NaN quiet)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow
  if (abs < 0x33000001u) return sign;  // rounds to zero
  int32_t exp = static_cast<int32_t>(abs >> 23) - 127 + 15;
  uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
  uint32_t shift = 13;
  if (exp <= 0) {  // subnormal half
    shift += static_cast<uint32_t>(1 - exp);
    exp = 0;
  }
  uint32_t result = mant >> shift;
  const uint32_t rest = mant & ((1u << shift) - 1);
  const uint32_t half_way = 1u << (shift - 1);
  if (rest > half_way || (rest == half_way && (result & 1u))) ++result;
  if (exp > 0) {
    // Normal: the implicit bit lands in the exponent field; a carry out of
    // the mantissa bumps the exponent, which is the correct rounding.
    return static_cast<uint16_t>(sign | ((static_cast<uint32_t>(exp) << 10) +
                                         (result - 0x400u)));
  }
  return static_cast<uint16_t>(sign | result);
}

float bfloat16_to_float(uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

uint16_t float_to_bfloat16(float f) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  }
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace strata::sdk
