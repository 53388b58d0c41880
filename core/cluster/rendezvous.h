// Rendezvous: every rank of a world announces itself in a store and waits
// until all have, so a team forms together or fails together with an error
// that names the ranks that never came.
#ifndef STRATA_CORE_CLUSTER_RENDEZVOUS_H_
#define STRATA_CORE_CLUSTER_RENDEZVOUS_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster/store.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

// Announces `rank` (0 <= rank < world) under "rendezvous/<name>/" and waits
// until all `world` ranks have, or until `deadline`. Names are single-use:
// a second rendezvous under the same name in the same store returns at once
// (or reports a rank arriving twice), so callers make them unique ("team/7",
// "job_start").
//
// Errors:
//   TIMED_OUT   "ranks 2 and 3 (worker 2, worker 3) never arrived at
//               rendezvous 'x' within 120 s" — describe_rank(r) gives the
//               parenthesised names; without it the ranks alone are listed.
//   FAILED_PRECONDITION  a rank arrived twice (two processes claim it).
//   INVALID_ARGUMENT     rank or world out of range.
//   any store error, prefixed with the rendezvous it happened in.
Status rendezvous(Store& store, std::string_view name, int rank, int world,
                  Deadline deadline,
                  const std::function<std::string(int)>& describe_rank = {});

// "rank 2", "ranks 2 and 3", "ranks 1, 2 and 5", plus " (worker 1, ...)"
// when describe_rank is set; long lists end in "and N more". For messages.
std::string describe_ranks(const std::vector<int>& ranks,
                           const std::function<std::string(int)>& describe_rank);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RENDEZVOUS_H_
