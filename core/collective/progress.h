// Driving one operation to completion under a deadline. Core owns this loop
// (not the plugin), so a dead peer or a stuck backend ends in TIMED_OUT with
// the operation aborted — never in a hang.
#ifndef STRATA_CORE_COLLECTIVE_PROGRESS_H_
#define STRATA_CORE_COLLECTIVE_PROGRESS_H_

#include "core/collective/algorithm_call.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

// post(), then wait()/test() until done, an error, or `deadline` (then
// abort() and TIMED_OUT). `timeout` is only for the message.
Status drive_to_completion(Operation& op, Deadline deadline, std::chrono::nanoseconds timeout);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_PROGRESS_H_
