#include "core/collective/call_agreement.h"

#include <algorithm>
#include <vector>

#include "core/collective/progress.h"
#include "core/common/dtype.h"
#include "core/common/units.h"

namespace strata {

std::string describe_call_shape(const strata_call_desc_t& desc) {
  const auto kind = static_cast<CollectiveKind>(desc.op);
  std::string out(collective_name(kind));
  if (kind == CollectiveKind::kBarrier) return out;
  out += " " + std::string(dtype_name(static_cast<DType>(desc.dtype)));
  out += " count=" + std::to_string(desc.count);
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter ||
      kind == CollectiveKind::kReduce) {
    out += " op=" + std::string(reduce_op_name(static_cast<ReduceOp>(desc.redop)));
  }
  if (kind == CollectiveKind::kBroadcast || kind == CollectiveKind::kReduce) {
    out += " root=" + std::to_string(desc.root);
  }
  return out;
}

Status agree_on_call(const Team& team, const strata_call_desc_t& desc,
                     std::string_view algorithm, uint64_t sequence, Deadline deadline) {
  Store* store = team.store();
  if (store == nullptr) return Status::Ok();
  const int rank = team.desc().process_rank;
  const std::string prefix = "call/" + std::to_string(sequence) + "/";
  const std::string mine = describe_call_shape(desc);
  // Shape and choice travel together; the choice is compared only when the
  // shapes agree, since a different shape explains a different choice.
  STRATA_RETURN_IF_ERROR(
      store->set(prefix + std::to_string(rank), mine + "\n" + std::string(algorithm)));

  std::vector<std::string> missing;
  std::string differences;
  std::string other_choices;
  for (int r = 0; r < team.desc().process_count; ++r) {
    if (r == rank) continue;
    // Waits in slices so a dead peer ends the wait early, by rank.
    StatusOr<std::string> theirs = TimedOutError("not asked yet");
    for (;;) {
      const Deadline slice = std::min(deadline, Deadline(Clock::now() + kHealthInterval));
      theirs = store->get(prefix + std::to_string(r), slice);
      if (theirs.ok() || theirs.status().code() != Code::kTimedOut) break;
      if (Clock::now() >= deadline) break;
      Status health = team.check_health();
      if (!health.ok()) return health.prefixed("before call seq " + std::to_string(sequence));
    }
    if (!theirs.ok()) {
      if (theirs.status().code() != Code::kTimedOut) return theirs.status();
      missing.push_back(team.describe_process(r));
      continue;
    }
    const size_t split = theirs->find('\n');
    const std::string their_shape = theirs->substr(0, split);
    const std::string their_choice = split == std::string::npos ? "" : theirs->substr(split + 1);
    if (their_shape != mine) {
      differences += (differences.empty() ? "" : "; ") + team.describe_process(r) +
                     " called " + their_shape;
    } else if (their_choice != algorithm) {
      other_choices += (other_choices.empty() ? "" : "; ") + team.describe_process(r) +
                       " chose " + their_choice;
    }
  }
  if (!differences.empty()) {
    return InvalidArgumentError("mismatched call across ranks at seq " +
                                std::to_string(sequence) + ": this process (" +
                                team.describe_process(rank) + ") called " + mine + "; " +
                                differences +
                                " (every rank must issue the same collectives, with the same "
                                "counts and dtypes, in the same order)");
  }
  if (!other_choices.empty()) {
    return FailedPreconditionError(
        "ranks chose different algorithms for " + mine + " at seq " + std::to_string(sequence) +
        ": this process (" + team.describe_process(rank) + ") chose " + std::string(algorithm) +
        "; " + other_choices +
        " (every rank must select alike: give them the same collectives.rules, implementation "
        "and collectives.tuning file, and the same plugins)");
  }
  if (!missing.empty()) {
    std::string names;
    for (const auto& n : missing) names += (names.empty() ? "" : ", ") + n;
    Status health = team.check_health();
    return TimedOutError(names + " did not reach call seq " + std::to_string(sequence) + " (" +
                         mine + ") in time" +
                         (health.ok() ? "; they are alive, so they may be at a different call"
                                      : "; " + health.message()));
  }
  return Status::Ok();
}

}  // namespace strata
