// Cross-rank check of a call's shape. MPI, NCCL and Gloo leave a call whose
// count or dtype differs between ranks undefined (a hang, a truncation, a
// corrupted buffer); Strata compares shapes through the team's store the
// first time each shape is seen, so the usual bug — one rank with another
// batch size or dtype — is a clear error naming both sides before any plugin
// sees it. Later calls of a known shape cost nothing.
#ifndef STRATA_CORE_COLLECTIVE_CALL_AGREEMENT_H_
#define STRATA_CORE_COLLECTIVE_CALL_AGREEMENT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/collective/team.h"
#include "core/common/clock.h"
#include "core/common/status.h"
#include "strata/abi/algorithm.h"

namespace strata {

// "all_reduce f32 count=1024 op=sum" (root for broadcast and reduce).
std::string describe_call_shape(const strata_call_desc_t& desc);

// Publishes this rank's shape and chosen algorithm for call `sequence` and
// compares them with every other process's. INVALID_ARGUMENT naming the
// ranks and both shapes when the shapes differ; FAILED_PRECONDITION naming
// each rank's choice when the shapes agree but the selection did not (the
// ranks' configs or tuning files differ); TIMED_OUT naming the ranks that
// never reached the call.
Status agree_on_call(const Team& team, const strata_call_desc_t& desc,
                     std::string_view algorithm, uint64_t sequence, Deadline deadline);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_CALL_AGREEMENT_H_
