#include "core/collective/peer_exchange.h"

#include <algorithm>

#include "core/collective/progress.h"

namespace strata {

StatusOr<PeerValues> exchange_with_peers(const Team& team, std::string_view key,
                                         const std::string& mine, Deadline deadline,
                                         std::string_view what) {
  Store* store = team.store();
  if (store == nullptr) return InternalError("exchange_with_peers on a team of one process");
  const int rank = team.desc().process_rank;
  const std::string prefix = std::string(key) + "/";
  STRATA_RETURN_IF_ERROR(store->set(prefix + std::to_string(rank), mine));

  PeerValues out;
  out.by_rank.resize(static_cast<size_t>(team.desc().process_count));
  out.by_rank[static_cast<size_t>(rank)] = mine;
  for (int r = 0; r < team.desc().process_count; ++r) {
    if (r == rank) continue;
    StatusOr<std::string> theirs = TimedOutError("not asked yet");
    for (;;) {
      const Deadline slice = std::min(deadline, Deadline(Clock::now() + kHealthInterval));
      theirs = store->get(prefix + std::to_string(r), slice);
      if (theirs.ok() || theirs.status().code() != Code::kTimedOut) break;
      if (Clock::now() >= deadline) break;
      Status health = team.check_health();
      if (!health.ok()) return health.prefixed(what);
    }
    if (theirs.ok()) {
      out.by_rank[static_cast<size_t>(r)] = std::move(*theirs);
    } else if (theirs.status().code() == Code::kTimedOut) {
      out.missing.push_back(team.describe_process(r));
    } else {
      return theirs.status();
    }
  }
  return out;
}

}  // namespace strata
