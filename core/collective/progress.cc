#include "core/collective/progress.h"

#include <algorithm>
#include <thread>

#include "core/common/units.h"
#include "strata/sdk/backoff.h"

namespace strata {
namespace {

// Longest single wait() slice: bounds how late a deadline is noticed.
constexpr std::chrono::milliseconds kMaxSlice{50};
// The first slice, which starts without reading the clock.
constexpr std::chrono::milliseconds kFirstSlice{1};

// How long a peer failure waits for the health check's verdict: a few
// missed heartbeats at the default 500 ms interval.
constexpr std::chrono::seconds kVerdictGrace{3};

// An algorithm that loses a peer knows only the neighbour whose connection
// ended, and that neighbour may merely have given up first because another
// worker died. The health check knows who went silent: give it a few
// heartbeats to say so, so the error names the dead worker, not the messenger.
// UNAVAILABLE too: an algorithm that moves data through the job store sees
// only "the server closed the connection" when the chief hosting it dies.
Status with_health_verdict(Status failure, Deadline deadline,
                           const std::function<Status()>& health) {
  if (!health) return failure;
  if (failure.code() != Code::kPeerFailed && failure.code() != Code::kUnavailable) return failure;
  const Deadline until = std::min(deadline, Clock::now() + kVerdictGrace);
  for (;;) {
    Status h = health();
    if (!h.ok()) {
      // The verdict's code leads too: PEER_FAILED naming the dead worker,
      // whatever the messenger's own failure was.
      Status named(h.code(), "health check: " + h.message() + "; the call: " + failure.message());
      return failure.context().empty() ? named : named.with_context(failure.context());
    }
    if (Clock::now() >= until) return failure;
    std::this_thread::sleep_for(kHealthInterval / 2);
  }
}

Status drive_to_completion(Operation& op, Deadline deadline, std::chrono::nanoseconds timeout,
                           const std::function<Status()>& health) {
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
    if (!done.ok()) return with_health_verdict(done.status(), deadline, health);
    if (*done) return Status::Ok();
    // A wait() that returns early, or plain polling, backs off here.
    if (!op.can_wait() || Clock::now() - now < slice / 2) backoff.pause();
  }
}

}  // namespace

std::chrono::nanoseconds first_slice(std::chrono::nanoseconds timeout) {
  // A first short slice before any clock read: a small call ends within
  // it, and a clock read costs 25-30 ns on a kvm-clock VM, a tenth of a
  // small call's whole overhead over the backend
  // (docs/performance/mpi_tuning.md, "Fewer clock reads").
  // The deadline may be nearer than `timeout` (team set-up ran first), so
  // the slice is short enough that overrunning it does not matter.
  return std::clamp<std::chrono::nanoseconds>(timeout, {}, kFirstSlice);
}

Status finish_call(StartedCall& started, Deadline deadline, std::chrono::nanoseconds timeout,
                   const std::function<Status()>& health) {
  if (!started.status.ok()) return with_health_verdict(started.status, deadline, health);
  if (!started.running) return Status::Ok();
  return drive_to_completion(*started.running, deadline, timeout, health);
}

}  // namespace strata
