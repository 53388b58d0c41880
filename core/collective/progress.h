// Driving one operation to completion under a deadline. Core owns this loop
// (not the plugin), so a dead peer or a stuck backend ends in TIMED_OUT with
// the operation aborted — never in a hang.
#ifndef STRATA_CORE_COLLECTIVE_PROGRESS_H_
#define STRATA_CORE_COLLECTIVE_PROGRESS_H_

#include <functional>

#include "core/collective/algorithm_call.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

// The first wait() slice Operation::start gets: at most 1 ms.
std::chrono::nanoseconds first_slice(std::chrono::nanoseconds timeout);

// Ends what Operation::start began: its failure, or wait()/test() until
// done, an error, or `deadline` (then abort() and TIMED_OUT). `timeout` is
// only for the message. A PEER_FAILED from post() gets the health verdict
// below too: with run() (ABI 1.1) core cannot tell post() from wait().
//
// `health` (may be empty), for calls that wait on other processes: asked
// every kHealthInterval while the call runs and once more at the deadline.
// An error from it (PEER_FAILED naming the dead ranks) aborts the call at
// once instead of waiting out the deadline: a dead peer is reported by rank.
// When the operation itself fails with PEER_FAILED or UNAVAILABLE, the
// health check gets a few seconds (within the deadline) to name the worker
// that went silent, and its verdict (code and message) leads the error:
// the peer an algorithm lost may only be a survivor that gave up first.
Status finish_call(StartedCall& started, Deadline deadline, std::chrono::nanoseconds timeout,
                   const std::function<Status()>& health = {});

inline constexpr std::chrono::milliseconds kHealthInterval{200};

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_PROGRESS_H_
