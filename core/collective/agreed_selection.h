// The first call of a shape on a team: which algorithm runs it, decided
// alike on every rank, and that algorithm's team state made. Selection is a
// walk down the Selector's candidate list; a candidate that cannot serve
// this team is skipped and the walk goes on, whether it says so in
// supports() or only in team_create (which may know more: that the
// processes are not one MPI world, that a peer cannot be reached). In a
// team of several processes the ranks agree, round by round, through the
// team's store:
//   1. each rank walks the list, skipping what is known to decline, and
//      proposes its choice (call_agreement.cc, which also checks shapes);
//   2. if some rank's choice was declined by another rank's supports(),
//      every rank skips it and walks again;
//   3. otherwise all chose alike, and each runs team_create for it and
//      reports the outcome (team_state_agreement.cc): used if it worked
//      everywhere, skipped by every rank if it declined anywhere.
// Each skip names the rank that declined and its reason, in the verdicts
// that `explain` shows. The number of rounds is bounded by the candidates.
#ifndef STRATA_CORE_COLLECTIVE_AGREED_SELECTION_H_
#define STRATA_CORE_COLLECTIVE_AGREED_SELECTION_H_

#include <cstdint>
#include <string_view>

#include "core/collective/selector.h"
#include "core/collective/team.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

struct AgreedChoice {
  const AlgorithmEntry* algorithm = nullptr;
  void* team_state = nullptr;
  Selection selection;  // the final walk, every candidate's verdict in it
};

// `sequence`: the call's number on the team, which keys the agreement.
// NOT_SUPPORTED, listing every candidate's verdict, when no candidate is
// left; other errors (shapes or choices that differ between ranks, a peer
// that never arrives, a team_create that failed on some rank) as they came,
// with `*team_in_doubt` set: the ranks may no longer be at the same point,
// so the team must not be used again. A `forced` id that names no algorithm
// for the op fails alike everywhere before anything is exchanged, and
// leaves the team as it was.
StatusOr<AgreedChoice> select_on_every_rank(Team& team, const Selector& selector,
                                            const strata_call_desc_t& desc,
                                            std::string_view forced, uint64_t sequence,
                                            Deadline deadline, bool* team_in_doubt);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_AGREED_SELECTION_H_
