// slice(), which splits a buffer between streams: the parts tile exactly
// [0, count) in order, every non-empty part starts on a 64-byte boundary (so
// no two streams write one cache line), and the parts are balanced to within
// one 64-byte unit.
#include "local_operation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

namespace strata::hierarchical_copy {
namespace {

TEST(SliceTest, PartsTileTheRangeOnCacheLineBoundaries) {
  for (size_t elem : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
    const uint64_t unit = 64 / elem;
    for (uint64_t count : {0, 1, 7, 15, 16, 17, 63, 64, 65, 1023, 65537}) {
      for (int parts : {1, 2, 3, 4, 5, 8}) {
        SCOPED_TRACE("elem=" + std::to_string(elem) + " count=" + std::to_string(count) +
                     " parts=" + std::to_string(parts));
        const uint64_t units = (count + unit - 1) / unit;
        const auto ps = static_cast<uint64_t>(parts);
        const uint64_t fair = (units + ps - 1) / ps;
        uint64_t next = 0;
        for (int p = 0; p < parts; ++p) {
          const Range s = slice(count, elem, p, parts);
          EXPECT_EQ(s.begin, next) << "part " << p << " does not start where the last ended";
          if (s.count > 0) {
            EXPECT_EQ(s.begin * elem % 64, 0u) << "part " << p;
          }
          EXPECT_LE(s.count, fair * unit) << "part " << p << " is unbalanced";
          next = s.begin + s.count;
        }
        EXPECT_EQ(next, count) << "the parts do not cover [0, count)";
      }
    }
  }
}

TEST(SliceTest, LargeCountsSplitEvenly) {
  // 1 MiB of f32 over 8 parts: exactly 32768 elements each.
  for (int p = 0; p < 8; ++p) {
    const Range s = slice(uint64_t{1} << 18, 4, p, 8);
    EXPECT_EQ(s.begin, static_cast<uint64_t>(p) * 32768);
    EXPECT_EQ(s.count, 32768u);
  }
}

}  // namespace
}  // namespace strata::hierarchical_copy
