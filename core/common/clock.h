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

// deadline_after for the per-call path. Clock::now() costs ~26 ns on a
// kvm-clock VM, and several times that right after a context switch, when
// its pages have left the caches: 4-6% of an 8 B all-reduce's cycles where
// ranks share a core (docs/performance/mpi_per_call.md, "Per-call cost, third pass").
// For timeouts of a second or more this reads the coarse monotonic clock
// instead (the same clock as of the last tick, ~4 ns) and adds two ticks:
// at most two ticks (8 ms at HZ=250) late, and early only if the kernel's
// timekeeping stalled for more than two ticks (a paused VM), then by that
// stall less two ticks, well under 1% of such a timeout. Shorter timeouts,
// and systems with no coarse clock or a tick over 10 ms, get deadline_after.
Deadline call_deadline_after(std::chrono::nanoseconds d);

}  // namespace strata

#endif  // STRATA_CORE_COMMON_CLOCK_H_
