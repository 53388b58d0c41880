// copy_host is memcpy with a detour around glibc's page-aliasing slow path
// (host_copy.h): every distance between source and destination within a
// page, and sizes on both sides of the detour's threshold and its 64-byte
// rounds, must copy exactly the bytes asked for and nothing past them.
#include "strata/sdk/host_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace strata::sdk {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<std::byte, FreeDeleter>;

// Page-aligned room for `most` bytes at any offset the tests use, the
// source filled with a pattern.
struct Buffers {
  explicit Buffers(uint64_t most)
      : room((most + 3 * 4096) / 4096 * 4096),  // aligned_alloc wants whole pages (ASan)
        src(static_cast<std::byte*>(std::aligned_alloc(4096, room))),
        dst(static_cast<std::byte*>(std::aligned_alloc(4096, room))) {
    for (uint64_t i = 0; i < room; ++i) src.get()[i] = static_cast<std::byte>((i * 131 + 7) & 0xff);
  }
  uint64_t room;
  Buffer src;
  Buffer dst;
};

// `to` holds the `bytes` of `from`, and the 0xee guard bytes on either side
// of it are untouched.
::testing::AssertionResult CopiedExactly(const std::byte* to, const std::byte* from,
                                         uint64_t bytes) {
  for (uint64_t i = 0; i < bytes; ++i) {
    if (to[i] != from[i]) return ::testing::AssertionFailure() << "byte " << i << " of " << bytes;
  }
  if (to[bytes] != std::byte{0xee}) return ::testing::AssertionFailure() << "wrote past " << bytes;
  if (to[-1] != std::byte{0xee}) {
    return ::testing::AssertionFailure() << "wrote before the destination";
  }
  return ::testing::AssertionSuccess();
}

TEST(HostCopyTest, EveryDistanceAndSizeCopiesExactly) {
  constexpr uint64_t kMost = 3 * 4096 + 77;
  Buffers b(kMost);
  const uint64_t kRoom = b.room;
  Buffer& src = b.src;
  Buffer& dst = b.dst;
  int detours = 0;
  for (uint64_t distance = 0; distance < 130; ++distance) {
    for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{63}, uint64_t{2047}, uint64_t{2048},
                           uint64_t{2048 + 63}, uint64_t{4096}, kMost}) {
      const std::byte* from = src.get() + 16;  // where malloc's blocks start
      std::byte* to = dst.get() + 16 + distance;
      std::memset(dst.get(), 0xee, kRoom);
      detours += copy_host_avoids_memcpy(to, from, bytes) ? 1 : 0;
      copy_host(to, from, bytes);
      ASSERT_TRUE(CopiedExactly(to, from, bytes)) << "distance " << distance;
    }
  }
#if defined(__SSE2__)
  // Distances 1-63 with 2048 bytes or more: 63 distances x 4 sizes.
  EXPECT_EQ(detours, 63 * 4);
#endif
}

// The streaming copy: ordinary stores up to the destination's first
// 16-byte boundary and for the tail, non-temporal ones in between.
TEST(HostCopyTest, StreamingCopiesExactlyAtEveryAlignment) {
  constexpr uint64_t kMost = 2 * 4096 + 77;
  Buffers b(kMost);
  const uint64_t kRoom = b.room;
  Buffer& src = b.src;
  Buffer& dst = b.dst;
  for (uint64_t misaligned = 0; misaligned < 20; ++misaligned) {
    for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{15}, uint64_t{16}, uint64_t{63},
                           uint64_t{64}, uint64_t{65}, uint64_t{127}, uint64_t{4096}, kMost}) {
      const std::byte* from = src.get() + 16 + misaligned / 3;
      std::byte* to = dst.get() + 64 + misaligned;
      std::memset(dst.get(), 0xee, kRoom);
      copy_host_streaming(to, from, bytes);
      ASSERT_TRUE(CopiedExactly(to, from, bytes)) << "destination +" << misaligned;
    }
  }
}

TEST(HostCopyTest, OnlyTheSlowDistancesTakeTheDetour) {
#if defined(__SSE2__)
  alignas(4096) static std::byte page[3 * 4096];
  EXPECT_TRUE(copy_host_avoids_memcpy(page + 4096 + 16, page + 0, 4096));
  EXPECT_TRUE(copy_host_avoids_memcpy(page + 4096 + 63, page + 0, 2048));
  EXPECT_FALSE(copy_host_avoids_memcpy(page + 4096 + 64, page + 0, 4096));
  EXPECT_FALSE(copy_host_avoids_memcpy(page + 4096, page + 0, 4096)) << "same offset";
  EXPECT_FALSE(copy_host_avoids_memcpy(page + 16, page + 32, 4096)) << "destination behind";
  EXPECT_FALSE(copy_host_avoids_memcpy(page + 4096 + 16, page + 0, 2047)) << "below rep movsb";
  // Sizes are only compared, nothing is read: glibc's own loops from the L2 size on.
  EXPECT_FALSE(copy_host_avoids_memcpy(page + 4096 + 16, page + 0, uint64_t{64} << 20))
      << "above rep movsb";
#else
  GTEST_SKIP() << "no SSE2 on this target: copy_host is memcpy";
#endif
}

}  // namespace
}  // namespace strata::sdk
