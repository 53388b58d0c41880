// Reduction kernels for host memory. Sources are combined block by block in
// a buffer that stays in L1, and the finished block is stored to every
// destination, so memory traffic is one read of every source and one write
// of every destination — the minimum. Signed integers wrap (computed
// unsigned) rather than overflow, so results are defined for every input.
#include "strata/sdk/host_kernels.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

#include "strata/sdk/host_copy.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
      // Promote u8 through unsigned int so the product wraps, not traps.
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

void store(void* dst, const void* src, uint64_t bytes, bool streaming) {
#if defined(__SSE2__)
  const bool aligned = (reinterpret_cast<uintptr_t>(dst) % 16 == 0) &&
                       (reinterpret_cast<uintptr_t>(src) % 16 == 0);
  if (streaming && aligned) {
    auto* d = static_cast<__m128i*>(dst);
    const auto* s = static_cast<const __m128i*>(src);
    const uint64_t vectors = bytes / 16;
    for (uint64_t i = 0; i < vectors; ++i) _mm_stream_si128(d + i, _mm_load_si128(s + i));
    std::memcpy(static_cast<char*>(dst) + vectors * 16,
                static_cast<const char*>(src) + vectors * 16, bytes % 16);
    return;
  }
#endif
  (void)streaming;
  copy_host(dst, src, bytes);
}

void finish_streaming(bool streaming) {
#if defined(__SSE2__)
  if (streaming) _mm_sfence();  // make streamed stores visible before we return
#endif
  (void)streaming;
}

// Narrowing of the compute type C into the storage type S for one block.
template <class S, class C>
struct Storage {
  static void narrow(S* out, const C* in, uint64_t n) { std::memcpy(out, in, n * sizeof(S)); }
  static void widen(C* out, const S* in, uint64_t n) { std::memcpy(out, in, n * sizeof(S)); }
};

template <float (*Widen)(uint16_t) noexcept, uint16_t (*Narrow)(float) noexcept>
struct HalfStorage {
  static void narrow(uint16_t* out, const float* in, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) out[i] = Narrow(in[i]);
  }
  static void widen(float* out, const uint16_t* in, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) out[i] = Widen(in[i]);
  }
};

// S: element type in memory; C: type arithmetic happens in; Store: converts.
template <class S, class C, class St, class Op>
void fold(void* const* dsts, uint32_t num_dsts, const void* const* srcs, uint32_t n,
          uint64_t count, bool mean, uint32_t divisor) {
  constexpr uint64_t kBlock = kBlockBytes / sizeof(C);
  alignas(64) C acc[kBlock];
  [[maybe_unused]] alignas(64) C next[kBlock];
  [[maybe_unused]] alignas(64) S narrow[kBlock];
  const bool streaming = count * sizeof(S) * num_dsts >= kReduceStreamingBytes;
  for (uint64_t base = 0; base < count; base += kBlock) {
    const uint64_t len = std::min(kBlock, count - base);
    St::widen(acc, static_cast<const S*>(srcs[0]) + base, len);
    for (uint32_t k = 1; k < n; ++k) {
      const S* sk = static_cast<const S*>(srcs[k]) + base;
      const C* in;
      if constexpr (std::is_same_v<S, C>) {
        in = sk;
      } else {
        St::widen(next, sk, len);
        in = next;
      }
      for (uint64_t i = 0; i < len; ++i) acc[i] = Op::apply(acc[i], in[i]);
    }
    if (mean && divisor > 1) {
      for (uint64_t i = 0; i < len; ++i) acc[i] = divide(acc[i], divisor);
    }
    const S* block;
    if constexpr (std::is_same_v<S, C>) {
      block = acc;
    } else {
      St::narrow(narrow, acc, len);
      block = narrow;
    }
    for (uint32_t d = 0; d < num_dsts; ++d) {
      store(static_cast<S*>(dsts[d]) + base, block, len * sizeof(S), streaming);
    }
  }
  finish_streaming(streaming);
}

template <class S, class C, class St>
bool dispatch(strata_redop_t op, void* const* dsts, uint32_t num_dsts, const void* const* srcs,
              uint32_t n, uint64_t count, uint32_t divisor) {
  switch (op) {
    case STRATA_SUM: fold<S, C, St, Sum<C>>(dsts, num_dsts, srcs, n, count, false, 1); return true;
    case STRATA_MEAN:
      fold<S, C, St, Sum<C>>(dsts, num_dsts, srcs, n, count, true, divisor);
      return true;
    case STRATA_PROD: fold<S, C, St, Prod<C>>(dsts, num_dsts, srcs, n, count, false, 1); return true;
    case STRATA_MIN: fold<S, C, St, Min<C>>(dsts, num_dsts, srcs, n, count, false, 1); return true;
    case STRATA_MAX: fold<S, C, St, Max<C>>(dsts, num_dsts, srcs, n, count, false, 1); return true;
    default: return false;
  }
}

template <class T>
bool dispatch_plain(strata_redop_t op, void* const* dsts, uint32_t num_dsts,
                    const void* const* srcs, uint32_t n, uint64_t count, uint32_t divisor) {
  return dispatch<T, T, Storage<T, T>>(op, dsts, num_dsts, srcs, n, count, divisor);
}

}  // namespace

bool reduce_host_multi(strata_dtype_t dtype, strata_redop_t op, void* const* dsts,
                       uint32_t num_dsts, const void* const* srcs, uint32_t num_srcs,
                       uint64_t count, uint32_t divisor) noexcept {
  if (num_srcs == 0 || num_dsts == 0 || op < 0 || op >= STRATA_REDOP_COUNT) return false;
  if (dtype < 0 || dtype >= STRATA_DTYPE_COUNT) return false;
  if (count == 0) return true;
  using F16 = HalfStorage<half_to_float, float_to_half>;
  using BF16 = HalfStorage<bfloat16_to_float, float_to_bfloat16>;
  switch (dtype) {
    case STRATA_F32: return dispatch_plain<float>(op, dsts, num_dsts, srcs, num_srcs, count, divisor);
    case STRATA_F64: return dispatch_plain<double>(op, dsts, num_dsts, srcs, num_srcs, count, divisor);
    case STRATA_I32: return dispatch_plain<int32_t>(op, dsts, num_dsts, srcs, num_srcs, count, divisor);
    case STRATA_I64: return dispatch_plain<int64_t>(op, dsts, num_dsts, srcs, num_srcs, count, divisor);
    case STRATA_U8: return dispatch_plain<uint8_t>(op, dsts, num_dsts, srcs, num_srcs, count, divisor);
    // 16-bit floats are combined in f32 and rounded once per element.
    case STRATA_F16:
      return dispatch<uint16_t, float, F16>(op, dsts, num_dsts, srcs, num_srcs, count, divisor);
    case STRATA_BF16:
      return dispatch<uint16_t, float, BF16>(op, dsts, num_dsts, srcs, num_srcs, count, divisor);
    default: return false;
  }
}

bool reduce_host(strata_dtype_t dtype, strata_redop_t op, void* dst, const void* const* srcs,
                 uint32_t num_srcs, uint64_t count, uint32_t divisor) noexcept {
  void* const dsts[1] = {dst};
  return reduce_host_multi(dtype, op, dsts, 1, srcs, num_srcs, count, divisor);
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
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN (keep NaN quiet)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow
  if (abs < 0x33000001u) return sign;  // rounds to zero
  int32_t exp = static_cast<int32_t>(abs >> 23) - 127 + 15;
  const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
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
    // The implicit bit lands in the exponent field; a rounding carry out of
    // the mantissa bumps the exponent, which is the correct result.
    return static_cast<uint16_t>(sign | ((static_cast<uint32_t>(exp) << 10) + (result - 0x400u)));
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
