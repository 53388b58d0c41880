// Team::state_for: an algorithm's team state, agreed by every process. A
// plugin's team_create may decline one process and accept another (one has
// what the backend needs, another lacks it), and a state that exists on some
// ranks only would leave those ranks in a collective their peers never
// join. So each rank publishes how its team_create went, under the team's
// store, and reads everyone's: the state is used when every rank made one;
// if any rank declined, every rank releases its state and records the
// decline, naming the rank and its reason, and selection moves on to the
// next candidate; a failure anywhere fails the call on every rank.
#include <cstdlib>
#include <string>

#include "core/collective/algorithm_call.h"
#include "core/collective/peer_exchange.h"
#include "core/collective/team.h"
#include "core/common/logging.h"

namespace strata {
namespace {

// "ok", "declined\n<reason>" or "failed\n<code>\n<message>".
std::string encode_outcome(const Status& outcome) {
  if (outcome.ok()) return "ok";
  if (outcome.code() == Code::kNotSupported) return "declined\n" + outcome.message();
  return "failed\n" + std::to_string(static_cast<int32_t>(outcome.code())) + "\n" +
         outcome.message();
}

Status decode_outcome(const std::string& text) {
  if (text == "ok") return Status::Ok();
  const size_t first = text.find('\n');
  const std::string kind = text.substr(0, first);
  if (kind == "declined" && first != std::string::npos) {
    return NotSupportedError(text.substr(first + 1));
  }
  const size_t second = first == std::string::npos ? first : text.find('\n', first + 1);
  if (kind == "failed" && second != std::string::npos) {
    const int value = std::atoi(text.substr(first + 1, second - first - 1).c_str());
    if (value < 0 && value >= static_cast<int>(Code::kDataLoss)) {
      return Status(static_cast<Code>(value), text.substr(second + 1));
    }
  }
  return InternalError("unreadable team_create outcome '" + text + "'");
}

// Every rank's team_create outcome for `algo`: OK when all made a state, a
// NOT_SUPPORTED whose message says who declined and why ("at team_create on
// worker 1: <reason>"), or the first failure, naming its rank.
Status compare_outcomes(const Team& team, const AlgorithmEntry& algo, const Status& mine,
                        Deadline deadline) {
  const int rank = team.desc().process_rank;
  STRATA_ASSIGN_OR_RETURN(
      PeerValues values,
      exchange_with_peers(team, "state/" + algo.id, encode_outcome(mine), deadline,
                          "while agreeing on " + algo.id + "'s team_create"));
  if (!mine.ok() && mine.code() != Code::kNotSupported) return mine;
  std::vector<std::pair<int, std::string>> declines;
  for (size_t r = 0; r < values.by_rank.size(); ++r) {
    if (!values.by_rank[r]) continue;
    const Status theirs = decode_outcome(*values.by_rank[r]);
    if (theirs.ok()) continue;
    const std::string who = team.describe_process(static_cast<int>(r));
    if (theirs.code() != Code::kNotSupported) {
      return Status(theirs.code(), algo.id + "'s team_create failed on " + who +
                                       " (so no rank can use it): " + theirs.message());
    }
    declines.emplace_back(static_cast<int>(r), theirs.message());
  }
  if (!values.missing.empty()) {
    std::string names;
    for (const auto& n : values.missing) names += (names.empty() ? "" : ", ") + n;
    return TimedOutError(names + " did not report the outcome of " + algo.id +
                         "'s team_create in time (this process, " +
                         team.describe_process(rank) + ", waited until the call's deadline)");
  }
  if (declines.empty()) return Status::Ok();
  bool same_reason = true;
  for (const auto& d : declines) same_reason = same_reason && d.second == declines[0].second;
  if (same_reason && declines.size() == values.by_rank.size()) {
    return NotSupportedError("at team_create on every rank: " + declines[0].second);
  }
  std::string text = "at team_create";
  for (size_t i = 0; i < declines.size(); ++i) {
    text += (i == 0 ? " on " : "; on ") + team.describe_process(declines[i].first) + ": " +
            declines[i].second;
  }
  return NotSupportedError(text);
}

}  // namespace

StatusOr<void*> Team::state_for(const AlgorithmEntry& algo, Deadline deadline) {
  if (auto it = states_.find(&algo); it != states_.end()) return it->second;
  if (auto it = declined_.find(&algo); it != declined_.end()) {
    return NotSupportedError(algo.id + " declined " + it->second);
  }
  strata_team_desc_t desc = desc_;
  desc.deadline_ns = to_ns(deadline);
  StatusOr<void*> mine = call_team_create(algo, desc);
  Status outcome;
  if (multi_process()) {
    outcome = compare_outcomes(*this, algo, mine.status(), deadline);
  } else if (!mine.ok() && mine.status().code() == Code::kNotSupported) {
    outcome = NotSupportedError("at team_create: " + mine.status().message());
  } else {
    outcome = mine.status();
  }
  if (outcome.ok()) {
    states_.emplace(&algo, *mine);
    return *mine;
  }
  if (mine.ok()) call_team_destroy(algo, *mine);
  if (outcome.code() != Code::kNotSupported) return outcome;
  STRATA_LOG_INFO("{} cannot serve team {} ({} process(es) x {} local device(s)): declined "
                  "{}; selection moves on to the next candidate",
                  algo.id, desc_.team_id, desc_.process_count, desc_.local_count,
                  outcome.message());
  declined_.emplace(&algo, outcome.message());
  return NotSupportedError(algo.id + " declined " + outcome.message());
}

}  // namespace strata
