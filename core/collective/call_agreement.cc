#include "core/collective/call_agreement.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/collective/peer_exchange.h"
#include "core/common/dtype.h"
#include "core/common/logging.h"

namespace strata {
namespace {

// Shape, choice, then one "id<TAB>reason" line per declined candidate.
std::string encode_proposal(const std::string& shape, const CallProposal& p) {
  std::string out = shape + "\n" + p.choice;
  for (const auto& [id, reason] : p.declined) {
    std::string flat = reason;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    std::replace(flat.begin(), flat.end(), '\t', ' ');
    out += "\n" + id + "\t" + flat;
  }
  return out;
}

struct Published {
  std::string shape;
  CallProposal proposal;
};

Published decode_proposal(const std::string& text) {
  Published p;
  std::istringstream in(text);
  std::getline(in, p.shape);
  std::getline(in, p.proposal.choice);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    p.proposal.declined.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return p;
}

std::string choice_name(const std::string& id) { return id.empty() ? "nothing" : id; }

}  // namespace

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

StatusOr<CallVerdict> agree_on_call(const Team& team, const strata_call_desc_t& desc,
                                    const CallProposal& proposal, uint64_t sequence, int round,
                                    Deadline deadline) {
  if (team.store() == nullptr) return CallVerdict{};
  const int rank = team.desc().process_rank;
  const std::string mine = describe_call_shape(desc);
  // Round 0 keeps the key it always had; later rounds are rare.
  const std::string key =
      "call/" + std::to_string(sequence) + (round == 0 ? "" : "." + std::to_string(round));
  // Shape and choice travel together; the choice is compared only when the
  // shapes agree, since a different shape explains a different choice.
  STRATA_ASSIGN_OR_RETURN(PeerValues values,
                          exchange_with_peers(team, key, encode_proposal(mine, proposal), deadline,
                                              "before call seq " + std::to_string(sequence)));
  std::vector<Published> all(values.by_rank.size());
  std::string differences;
  for (size_t r = 0; r < values.by_rank.size(); ++r) {
    if (!values.by_rank[r]) continue;
    all[r] = decode_proposal(*values.by_rank[r]);
    if (static_cast<int>(r) != rank && all[r].shape != mine) {
      differences += (differences.empty() ? "" : "; ") +
                     team.describe_process(static_cast<int>(r)) + " called " + all[r].shape;
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
  if (!values.missing.empty()) {
    std::string names;
    for (const auto& n : values.missing) names += (names.empty() ? "" : ", ") + n;
    Status health = team.check_health();
    return TimedOutError(names + " did not reach call seq " + std::to_string(sequence) + " (" +
                         mine + ") in time" +
                         (health.ok() ? "; they are alive, so they may be at a different call"
                                      : "; " + health.message()));
  }

  // Every rank holds the same proposals, so every rank reaches the same
  // verdict. A choice some other rank's supports() declined is skipped by
  // all: the plugin broke rule 5 (sdk/README.md), and the next round picks
  // among what every rank accepts.
  CallVerdict verdict;
  std::map<std::string, std::string> declined;
  for (size_t r = 0; r < all.size(); ++r) {
    for (const auto& [id, reason] : all[r].proposal.declined) {
      std::string& text = declined[id];
      text += (text.empty() ? "at supports() on " : "; on ") +
              team.describe_process(static_cast<int>(r)) + ": " + reason;
    }
  }
  std::set<std::string> contested;
  for (const Published& p : all) {
    if (!p.proposal.choice.empty() && declined.count(p.proposal.choice) != 0) {
      contested.insert(p.proposal.choice);
    }
  }
  if (!contested.empty()) {
    for (const std::string& id : contested) {
      STRATA_LOG_WARN("{} was accepted by supports() on some ranks and declined on others for "
                      "{} (sdk/README.md rule 5: supports() must answer alike on every rank); "
                      "every rank skips it: declined {}",
                      id, mine, declined[id]);
    }
    verdict.declined_elsewhere = std::move(declined);
    return verdict;
  }
  std::string other_choices;
  for (size_t r = 0; r < all.size(); ++r) {
    if (static_cast<int>(r) == rank || all[r].proposal.choice == proposal.choice) continue;
    other_choices += (other_choices.empty() ? "" : "; ") +
                     team.describe_process(static_cast<int>(r)) + " chose " +
                     choice_name(all[r].proposal.choice);
  }
  if (!other_choices.empty()) {
    return FailedPreconditionError(
        "ranks chose different algorithms for " + mine + " at seq " + std::to_string(sequence) +
        ": this process (" + team.describe_process(rank) + ") chose " +
        choice_name(proposal.choice) + "; " + other_choices +
        " (every rank must select alike: give them the same collectives.rules, implementation "
        "and collectives.tuning file, and the same plugins)");
  }
  return verdict;
}

}  // namespace strata
