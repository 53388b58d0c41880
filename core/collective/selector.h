// Picks the algorithm for one call, the same way on every rank:
//   1. config rules, first match (op, size range, dtype, device type);
//   2. the `implementation:` override (a name like "ring", a plugin, an id),
//      best estimate first;
//   3. AUTO: every other algorithm whose scope fits: those the tuning table
//      (collectives.tuning) measured at this size first, fastest first; then
//      lowest estimate first, algorithms without an estimate last, ties
//      broken by id;
// then walks that list and takes the first that does not decline. A
// candidate declines when its scope does not cover the team, when its
// supports() says NOT_SUPPORTED, or when the caller already knows it cannot
// serve this team (`known_declines`: a team_create that declined on some
// rank, a supports() that declined on another rank). The full list, with
// each candidate's verdict, is what `strata explain` prints.
#ifndef STRATA_CORE_COLLECTIVE_SELECTOR_H_
#define STRATA_CORE_COLLECTIVE_SELECTOR_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/config/config.h"
#include "core/plugin/registry.h"
#include "strata/abi/algorithm.h"

namespace strata {

struct Candidate {
  const AlgorithmEntry* algorithm = nullptr;
  std::string source;  // "collectives.rules[1] (x.yaml:14:12)", "implementation: ring", "auto"
  std::optional<double> estimate;  // seconds, the algorithm's own model
  std::optional<double> measured;  // seconds, from the tuning table
  bool accepted = false;
  // This rank's supports() declined it (not the scope, not a known decline).
  bool declined_by_supports = false;
  std::string verdict;  // "selected", "declined: ...", "declined at team_create ...", "not tried"
};

// Candidates known not to serve a team or a call, with why: the text follows
// "declined " in the verdict ("at team_create on worker 1: <reason>").
using KnownDeclines = std::map<const AlgorithmEntry*, std::string>;

struct Selection {
  const AlgorithmEntry* chosen = nullptr;
  std::vector<Candidate> candidates;  // in the order they were tried
  std::string reason;                 // one line: why the winner won
};

class Selector {
 public:
  Selector(const Registry& registry, const CollectivesConfig& config)
      : registry_(registry), config_(config) {}

  // `forced`: an algorithm id that must be used (bench --algorithm, the
  // conformance suite); empty for normal selection. Fails with NOT_SUPPORTED
  // listing every candidate's reason when all decline.
  StatusOr<Selection> select(const strata_call_desc_t& call, std::string_view forced = {},
                             const KnownDeclines* known_declines = nullptr) const;
  // The same walk, but a walk where every candidate declined is a Selection
  // with `chosen == nullptr` (its verdicts say why), not an error; errors are
  // only for a bad `forced`.
  StatusOr<Selection> walk(const strata_call_desc_t& call, std::string_view forced = {},
                           const KnownDeclines* known_declines = nullptr) const;
  // NOT_SUPPORTED listing every candidate's verdict, for a walk without winner.
  static Status no_winner(const strata_call_desc_t& call, const Selection& walked);

  // Does `algo`'s scope cover this team's shape?
  static bool scope_fits(const AlgorithmEntry& algo, const strata_team_desc_t& team);
  // Does `rule` match this call? (device type by name)
  bool rule_matches(const CollectiveRule& rule, const strata_call_desc_t& call) const;

 private:
  std::vector<Candidate> ordered_candidates(const strata_call_desc_t& call) const;
  bool matches_implementation(const AlgorithmEntry& algo) const;
  // One line: why `winner` won over the rest of `candidates`.
  std::string winner_reason(const Candidate& winner,
                            const std::vector<Candidate>& candidates) const;
  // What the tuning table measured for `algo` at this call's size and team
  // shape, or nullopt (no table, or not measured there).
  std::optional<double> measured_time(const AlgorithmEntry& algo,
                                      const strata_call_desc_t& call) const;

  const Registry& registry_;
  const CollectivesConfig& config_;
};

// Bytes a call moves per replica, the size that rules, tuning files and
// explain talk about: count x dtype size, times the replicas for all_gather
// and reduce_scatter (the whole gathered buffer).
uint64_t call_bytes(const strata_call_desc_t& call);
uint64_t call_bytes(CollectiveKind op, DType dtype, uint64_t count, int replicas);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_SELECTOR_H_
