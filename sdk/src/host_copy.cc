#include "strata/sdk/host_copy.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::sdk {
namespace {

// Below this glibc does not use `rep movsb` (its rep_movsb_threshold).
constexpr uint64_t kSmallest = 2048;
// From this size on glibc copies with vector loops (and, far above it,
// non-temporal stores) that beat ours: on AMD its rep_movsb_stop_threshold
// is the L2 size, which sysconf reports from the same detection.
uint64_t largest() {
  static const uint64_t bytes = [] {
    const long l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<uint64_t>(l2) : uint64_t{1} << 20;
  }();
  return bytes;
}
constexpr uintptr_t kPage = 4096;
// Destinations this far past the source (mod the page) are the slow ones.
constexpr uintptr_t kAliasing = 64;

}  // namespace

bool copy_host_avoids_memcpy(const void* dst, const void* src, uint64_t bytes) noexcept {
#if defined(__SSE2__)
  const uintptr_t distance =
      (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & (kPage - 1);
  return bytes >= kSmallest && bytes < largest() && distance != 0 && distance < kAliasing;
#else
  (void)dst, (void)src, (void)bytes;
  return false;
#endif
}

#if defined(__SSE2__)
namespace {

// Copies whole 64-byte lines from `s` to `d`, four 16-byte vectors a round
// (one cache line in flight per round), each stored with `store`; returns
// the bytes copied (the rest is under a line).
template <void (*Store)(__m128i*, __m128i)>
uint64_t copy_lines(char* d, const char* s, uint64_t bytes) noexcept {
  uint64_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    Store(reinterpret_cast<__m128i*>(d + i), a);
    Store(reinterpret_cast<__m128i*>(d + i + 16), b);
    Store(reinterpret_cast<__m128i*>(d + i + 32), c);
    Store(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  return i;
}

void store_unaligned(__m128i* d, __m128i v) noexcept { _mm_storeu_si128(d, v); }
void store_streaming(__m128i* d, __m128i v) noexcept { _mm_stream_si128(d, v); }

}  // namespace
#endif

void copy_host(void* dst, const void* src, uint64_t bytes) noexcept {
#if defined(__SSE2__)
  if (copy_host_avoids_memcpy(dst, src, bytes)) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    const uint64_t i = copy_lines<store_unaligned>(d, s, bytes);
    std::memcpy(d + i, s + i, bytes - i);  // under 64 bytes: no rep movsb
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

void copy_host_streaming(void* dst, const void* src, uint64_t bytes) noexcept {
#if defined(__SSE2__)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  // Up to the first 16-byte boundary of the destination, and the tail:
  // ordinary stores.
  const uint64_t head = std::min<uint64_t>(bytes, (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  const uint64_t i = head + copy_lines<store_streaming>(d + head, s + head, bytes - head);
  std::memcpy(d + i, s + i, bytes - i);
  _mm_sfence();
#else
  copy_host(dst, src, bytes);
#endif
}

}  // namespace strata::sdk
