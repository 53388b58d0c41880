#include "core/collective/agreed_selection.h"

#include "core/collective/call_agreement.h"
#include "core/common/logging.h"
#include "core/runtime/runtime.h"

namespace strata {
namespace {

// After a candidate declined where only the walk's later rounds could see it
// (team_create, another rank's supports()): which one serves the shape now,
// and what was passed over, so a job that did not get the algorithm it
// would have picked shows why (STRATA_LOG_LEVEL=info).
void log_moved_on(const Team& team, const strata_call_desc_t& desc, const Selection& walked) {
  std::string skipped;
  for (const Candidate& c : walked.candidates) {
    if (c.algorithm == walked.chosen) break;
    if (c.declined_by_supports || c.verdict.rfind("declined at ", 0) != 0) continue;
    skipped += (skipped.empty() ? "" : "; ") + c.algorithm->id + " " + c.verdict;
  }
  STRATA_LOG_INFO("team {} ({}): {} runs on {}, skipping {}", team.desc().team_id,
                  team.describe_process(team.desc().process_rank), describe_call_shape(desc),
                  walked.chosen->id, skipped);
}

}  // namespace

StatusOr<AgreedChoice> select_on_every_rank(Team& team, const Selector& selector,
                                            const strata_call_desc_t& desc,
                                            std::string_view forced, uint64_t sequence,
                                            Deadline deadline, bool* team_in_doubt) {
  *team_in_doubt = false;
  const Registry& registry = team.runtime().registry();
  // Declines found by other ranks' supports() for this call only; the
  // team's own record holds team_create's, which hold for every call.
  KnownDeclines elsewhere;
  // Each further round skips at least one more algorithm.
  const int max_rounds = static_cast<int>(registry.algorithms().size()) + 1;
  for (int round = 0; round <= max_rounds; ++round) {
    KnownDeclines known = elsewhere;
    for (const auto& [algo, why] : team.declined_algorithms()) known[algo] = why;
    STRATA_ASSIGN_OR_RETURN(Selection walked, selector.walk(desc, forced, &known));
    if (team.multi_process()) {
      CallProposal proposal;
      if (walked.chosen != nullptr) proposal.choice = walked.chosen->id;
      for (const Candidate& c : walked.candidates) {
        if (!c.declined_by_supports) continue;
        // The text after "declined: ", as the peers will quote it.
        proposal.declined.emplace_back(c.algorithm->id, c.verdict.substr(c.verdict.find(": ") + 2));
      }
      auto verdict = agree_on_call(team, desc, proposal, sequence, round, deadline);
      if (!verdict.ok()) {
        *team_in_doubt = true;
        return verdict.status();
      }
      if (!verdict->declined_elsewhere.empty()) {
        for (const auto& [id, why] : verdict->declined_elsewhere) {
          if (const AlgorithmEntry* algo = registry.find_algorithm(id)) elsewhere.emplace(algo, why);
        }
        continue;
      }
    }
    if (walked.chosen == nullptr) return Selector::no_winner(desc, walked);
    auto state = team.state_for(*walked.chosen, deadline);
    if (state.ok()) {
      if (round > 0) log_moved_on(team, desc, walked);
      return AgreedChoice{walked.chosen, *state, std::move(walked)};
    }
    // A decline is on the team's record now: walk again without it.
    if (state.status().code() != Code::kNotSupported) {
      *team_in_doubt = true;
      return state.status();
    }
  }
  *team_in_doubt = true;
  return InternalError("selection for " + describe_call_shape(desc) + " did not settle in " +
                       std::to_string(max_rounds) + " rounds");
}

}  // namespace strata
