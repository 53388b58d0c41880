// Cross-rank check of a call's shape and of the algorithm each rank chose
// for it. MPI, NCCL and Gloo leave a call whose count or dtype differs
// between ranks undefined (a hang, a truncation, a corrupted buffer); Strata
// compares shapes through the team's store the first time each shape is
// seen, so the usual bug — one rank with another batch size or dtype — is a
// clear error naming both sides before any plugin sees it. Later calls of a
// known shape cost nothing.
#ifndef STRATA_CORE_COLLECTIVE_CALL_AGREEMENT_H_
#define STRATA_CORE_COLLECTIVE_CALL_AGREEMENT_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/collective/team.h"
#include "core/common/clock.h"
#include "core/common/status.h"
#include "strata/abi/algorithm.h"

namespace strata {

// "all_reduce f32 count=1024 op=sum" (root for broadcast and reduce).
std::string describe_call_shape(const strata_call_desc_t& desc);

// What one rank proposes in one round of selecting a call's algorithm.
struct CallProposal {
  std::string choice;  // an algorithm id; empty when nothing here accepts the call
  // Candidates this rank's supports() declined (id, reason), which another
  // rank may have accepted.
  std::vector<std::pair<std::string, std::string>> declined;
};

struct CallVerdict {
  // Empty when every rank chose the same algorithm. Otherwise some rank
  // chose an algorithm that another rank's supports() declined: every
  // candidate declined on some rank, id -> "at supports() on worker 1:
  // <reason>", which every rank must skip in its next round.
  std::map<std::string, std::string> declined_elsewhere;
};

// Publishes this rank's shape and proposal for call `sequence` (round
// `round` of its selection) and compares them with every other process's.
// INVALID_ARGUMENT naming the ranks and both shapes when the shapes differ;
// TIMED_OUT naming the ranks that never reached the call; a verdict asking
// for another round when a choice was declined elsewhere (every rank reads
// the same proposals, so every rank asks for it); FAILED_PRECONDITION
// naming each rank's choice when the choices differ for another reason (the
// ranks' configs or tuning files differ).
StatusOr<CallVerdict> agree_on_call(const Team& team, const strata_call_desc_t& desc,
                                    const CallProposal& proposal, uint64_t sequence, int round,
                                    Deadline deadline);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_CALL_AGREEMENT_H_
