// One round of "everyone tells everyone" through a multi-process team's
// store: this process publishes its value under key/<rank> and reads every
// other process's, with a deadline. Call shapes, selection proposals and
// team_create outcomes are compared this way.
#ifndef STRATA_CORE_COLLECTIVE_PEER_EXCHANGE_H_
#define STRATA_CORE_COLLECTIVE_PEER_EXCHANGE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective/team.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

struct PeerValues {
  // Indexed by process rank, this process's own value included; nullopt for
  // a process that published nothing by the deadline.
  std::vector<std::optional<std::string>> by_rank;
  // Those processes, named as the team names them ("worker 1").
  std::vector<std::string> missing;
};

// Waits in kHealthInterval slices, so a dead peer ends the wait early: its
// PEER_FAILED, prefixed with `what` ("before call seq 4"), is returned.
// A store error other than TIMED_OUT is returned as it is.
StatusOr<PeerValues> exchange_with_peers(const Team& team, std::string_view key,
                                         const std::string& mine, Deadline deadline,
                                         std::string_view what);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_PEER_EXCHANGE_H_
