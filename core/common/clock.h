// The one clock behind every deadline in Strata, core and plugins alike
// (strata_host_services_t.now_ns hands it to plugins).
#ifndef STRATA_CORE_COMMON_CLOCK_H_
#define STRATA_CORE_COMMON_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace strata {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}
inline int64_t to_ns(Deadline d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d.time_since_epoch())
      .count();
}
inline Deadline from_ns(int64_t ns) {
  return Deadline(std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns)));
}
inline Deadline deadline_after(std::chrono::nanoseconds d) { return Clock::now() + d; }

}  // namespace strata

#endif  // STRATA_CORE_COMMON_CLOCK_H_
