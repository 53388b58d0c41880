// Whether a call on a team that spans hosts runs flat (one algorithm over
// the whole team) or composed by host (host_composed_collective.h), and why.
// A team qualifies when it has one device per process, more than one host,
// and more than one process on some host. collectives.hierarchy decides:
//   flat  never composed;
//   host  always composed where the team qualifies;
//   auto  composed when no algorithm serves the team flat, or when the sum
//         of the levels' winners' times (measured, else estimated) is below
//         the flat winner's; a flat winner named by a rule or by
//         `implementation:` stays, as does one the levels cannot be
//         compared with (a time missing on either side).
// Each level's winner is what the Selector picks for a team of that level's
// shape (the largest host's processes; one leader per host), so the decision
// depends only on what every rank agreed at team formation: config, plugins
// and hosts. `strata explain` prints the same decision.
#ifndef STRATA_CORE_COLLECTIVE_HOST_HIERARCHY_H_
#define STRATA_CORE_COLLECTIVE_HOST_HIERARCHY_H_

#include <optional>
#include <string>
#include <vector>

#include "core/collective/selector.h"
#include "core/collective/team.h"

namespace strata {

enum class HostLevel { kIntraHost, kInterHost };
const char* host_level_name(HostLevel level);  // "intra-host", "inter-host"

// One step of a composed call: a collective on one level's team.
struct HostStep {
  HostLevel level = HostLevel::kIntraHost;
  CollectiveKind op = CollectiveKind::kAllReduce;
  uint64_t count = 0;  // the step's count, in the ABI's meaning for its op
  std::string team;    // "2 processes of host 0", "2 host leaders"
  Selection selection;  // that level's walk: supports() and estimates
};

struct HierarchyDecision {
  bool qualifies = false;  // the team's shape allows host composition
  bool compose = false;
  std::string hierarchy;   // collectives.hierarchy
  std::string reason;      // one line: why composed or flat
  std::optional<double> flat_seconds;      // the flat winner's time
  std::optional<double> composed_seconds;  // the steps' winners' times, summed
  std::vector<HostStep> steps;             // in order; empty when flat by shape
};

// `flat`: the walk over the whole team (its winner may be null).
HierarchyDecision decide_hierarchy(const Team& team, const Selector& selector,
                                   const CollectivesConfig& config,
                                   const strata_call_desc_t& desc, const Selection& flat);

// Does the team's shape allow host composition at all?
bool host_composition_fits(const Team& team);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_HOST_HIERARCHY_H_
