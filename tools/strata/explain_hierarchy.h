// How `strata explain` shows a team's host composition (host_hierarchy.h):
// whether the call runs flat or by host, why, and for each step its level,
// op, the algorithm that level's team selects, its time and why it won.
#ifndef STRATA_TOOLS_STRATA_EXPLAIN_HIERARCHY_H_
#define STRATA_TOOLS_STRATA_EXPLAIN_HIERARCHY_H_

#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/collective/host_hierarchy.h"

namespace strata::cli {

// "1.23 us", "4.567 ms", "-" (the same units the candidate table uses).
std::string format_seconds_or_dash(const std::optional<double>& seconds);

void print_hierarchy(std::ostream& os, const HierarchyDecision& decision);
nlohmann::json hierarchy_json(const HierarchyDecision& decision);

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_EXPLAIN_HIERARCHY_H_
