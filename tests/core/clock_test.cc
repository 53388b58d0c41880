// call_deadline_after (core/common/clock.cc): the per-call deadline read
// from the coarse clock must never come before the precise one, and may
// trail it only by the coarse clock's margin.
#include "core/common/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace strata {
namespace {

using namespace std::chrono_literals;

// Two ticks of margin at the longest tick the coarse clock is used with
// (10 ms), plus room for a preempted test thread.
constexpr auto kMostLate = 2 * 10ms + 50ms;

TEST(ClockTest, CallDeadlineIsNeverEarlierThanThePreciseOne) {
  for (auto timeout : {0ns, std::chrono::nanoseconds(1ms), std::chrono::nanoseconds(30s)}) {
    for (int i = 0; i < 2000; ++i) {
      const Deadline precise = deadline_after(timeout);
      const Deadline call = call_deadline_after(timeout);
      ASSERT_GE(call, precise) << "timeout " << timeout.count() << " ns, try " << i;
      const Deadline precise_after = deadline_after(timeout);
      ASSERT_LE(call - precise_after, kMostLate) << "timeout " << timeout.count() << " ns";
    }
  }
}

TEST(ClockTest, CallDeadlineFollowsTheClock) {
  const Deadline first = call_deadline_after(1s);
  std::this_thread::sleep_for(30ms);
  const Deadline later = call_deadline_after(1s);
  EXPECT_GE(later - first, 30ms - 10ms);  // the coarse clock advanced with time
  EXPECT_GT(later, Clock::now() + 1s - 1ms);
}

}  // namespace
}  // namespace strata
