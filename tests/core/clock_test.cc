// call_deadline_after (core/common/clock.cc): the per-call deadline read
// from the coarse clock must not come before the precise one, and may
// trail it only by the coarse clock's margin.
#include "core/common/clock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace strata {
namespace {

using namespace std::chrono_literals;

// Two ticks of margin at the longest tick the coarse clock is used with
// (10 ms), plus room for a preempted test thread.
constexpr auto kMostLate = 2 * 10ms + 50ms;
constexpr int kTries = 2000;

// Long timeouts take the coarse clock. Without its margin nearly every
// deadline would be early (the coarse clock trails by up to a tick); with
// it, only a timekeeping stall of over two ticks can make one early, so a
// few are allowed for a loaded or paused machine.
TEST(ClockTest, LongTimeoutDeadlinesAreNotEarlyAndAtMostAMarginLate) {
  for (auto timeout : {std::chrono::nanoseconds(1s), std::chrono::nanoseconds(300s)}) {
    int early = 0;
    for (int i = 0; i < kTries; ++i) {
      const Deadline precise = deadline_after(timeout);
      const Deadline call = call_deadline_after(timeout);
      if (call < precise) ++early;
      ASSERT_LE(call - deadline_after(timeout), kMostLate) << "timeout " << timeout.count();
    }
    EXPECT_LE(early, kTries / 100) << "timeout " << timeout.count() << " ns";
  }
}

// Short timeouts, where two ticks would be a large error, take the precise
// clock: never early, not even once.
TEST(ClockTest, ShortTimeoutDeadlinesComeFromThePreciseClock) {
  for (auto timeout : {0ns, std::chrono::nanoseconds(1ms), std::chrono::nanoseconds(999ms)}) {
    for (int i = 0; i < kTries; ++i) {
      const Deadline before = deadline_after(timeout);
      const Deadline call = call_deadline_after(timeout);
      const Deadline after = deadline_after(timeout);
      ASSERT_GE(call, before) << "timeout " << timeout.count() << " ns";
      ASSERT_LE(call, after) << "timeout " << timeout.count() << " ns";
    }
  }
}

}  // namespace
}  // namespace strata
