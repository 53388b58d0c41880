#include "core/collective/progress.h"

#include <algorithm>

#include "core/common/units.h"
#include "strata/sdk/backoff.h"

namespace strata {
namespace {

// Longest single wait() slice: bounds how late a deadline is noticed.
constexpr std::chrono::milliseconds kMaxSlice{50};

}  // namespace

Status drive_to_completion(Operation& op, Deadline deadline, std::chrono::nanoseconds timeout,
                           const std::function<Status()>& health) {
  STRATA_RETURN_IF_ERROR(op.post());
  sdk::Backoff backoff;
  auto next_health_check = Clock::now() + kHealthInterval;
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline) {
      op.abort();
      std::string why;
      if (health) {
        Status h = health();
        if (!h.ok()) why = "; health check: " + h.message();
      }
      return TimedOutError("did not finish within " + format_duration(timeout) + why +
                           "; aborted, and the team is unusable until rebuilt");
    }
    if (health && now >= next_health_check) {
      Status h = health();
      if (!h.ok()) {
        op.abort();
        return h.prefixed("aborted while waiting on peers");
      }
      next_health_check = Clock::now() + kHealthInterval;
    }
    const auto slice = std::min<std::chrono::nanoseconds>(deadline - now, kMaxSlice);
    StatusOr<bool> done = op.can_wait() ? op.wait(slice) : op.test();
    if (!done.ok()) return done.status();
    if (*done) return Status::Ok();
    // A wait() that returns early, or plain polling, backs off here.
    if (!op.can_wait() || Clock::now() - now < slice / 2) backoff.pause();
  }
}

}  // namespace strata
