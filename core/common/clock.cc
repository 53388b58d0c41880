#include "core/common/clock.h"

#include <time.h>

namespace strata {
namespace {

// How far the coarse clock may trail Clock::now(): one tick, and a second
// for a tick that ran late (a 4.18 ms lag was seen with a 4 ms tick).
// Zero: no usable coarse clock.
int64_t coarse_margin_ns() {
#if defined(CLOCK_MONOTONIC_COARSE)
  timespec resolution{};
  if (clock_getres(CLOCK_MONOTONIC_COARSE, &resolution) != 0) return 0;
  const int64_t tick = resolution.tv_sec * 1'000'000'000 + resolution.tv_nsec;
  constexpr int64_t kLongestTick = 10'000'000;
  if (tick <= 0 || tick > kLongestTick) return 0;
  return 2 * tick;
#else
  return 0;
#endif
}

}  // namespace

Deadline call_deadline_after(std::chrono::nanoseconds d) {
  static const int64_t margin = coarse_margin_ns();
#if defined(CLOCK_MONOTONIC_COARSE)
  constexpr std::chrono::seconds kShortestCoarse{1};
  timespec now{};
  if (margin > 0 && d >= kShortestCoarse && clock_gettime(CLOCK_MONOTONIC_COARSE, &now) == 0) {
    // steady_clock is CLOCK_MONOTONIC in libstdc++: the same time base.
    const int64_t ns = now.tv_sec * 1'000'000'000 + now.tv_nsec + margin;
    return from_ns(ns) + d;
  }
#endif
  return deadline_after(d);
}

}  // namespace strata
