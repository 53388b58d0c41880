#include "tools/strata/explain_hierarchy.h"

#include <cstdio>

#include "tools/strata/text_table.h"

namespace strata::cli {
namespace {

std::optional<double> winner_time(const Selection& s) {
  for (const Candidate& c : s.candidates) {
    if (c.algorithm == s.chosen) return c.measured ? c.measured : c.estimate;
  }
  return std::nullopt;
}

std::string winner_id(const Selection& s) {
  return s.chosen != nullptr ? s.chosen->id : "none: every candidate declined";
}

}  // namespace

std::string format_seconds_or_dash(const std::optional<double>& seconds) {
  if (!seconds) return "-";
  char buf[32];
  if (*seconds < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.2f us", *seconds * 1e6);
  } else if (*seconds < 1) {
    std::snprintf(buf, sizeof buf, "%.3f ms", *seconds * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", *seconds);
  }
  return buf;
}

void print_hierarchy(std::ostream& os, const HierarchyDecision& d) {
  os << "\nhierarchy: " << (d.compose ? "composed by host" : "flat")
     << " (collectives.hierarchy: " << d.hierarchy << ")\n"
     << "why:       " << d.reason << "\n";
  if (d.steps.empty()) return;
  os << "times:     flat " << format_seconds_or_dash(d.flat_seconds) << ", levels "
     << format_seconds_or_dash(d.composed_seconds) << "\n\n";
  TextTable table({"step", "level", "team", "op", "algorithm", "time", "why"});
  table.align_right(0);
  table.align_right(5);
  int index = 0;
  for (const HostStep& s : d.steps) {
    table.add_row({std::to_string(++index), host_level_name(s.level), s.team,
                   std::string(collective_name(s.op)), winner_id(s.selection),
                   format_seconds_or_dash(winner_time(s.selection)), s.selection.reason});
  }
  table.print(os);
}

nlohmann::json hierarchy_json(const HierarchyDecision& d) {
  nlohmann::json out = {{"composed", d.compose}, {"hierarchy", d.hierarchy}, {"reason", d.reason}};
  out["flat_seconds"] = d.flat_seconds ? nlohmann::json(*d.flat_seconds) : nlohmann::json();
  out["levels_seconds"] =
      d.composed_seconds ? nlohmann::json(*d.composed_seconds) : nlohmann::json();
  out["steps"] = nlohmann::json::array();
  for (const HostStep& s : d.steps) {
    const auto t = winner_time(s.selection);
    out["steps"].push_back({{"level", host_level_name(s.level)},
                            {"team", s.team},
                            {"op", std::string(collective_name(s.op))},
                            {"count", s.count},
                            {"algorithm", s.selection.chosen ? nlohmann::json(s.selection.chosen->id)
                                                             : nlohmann::json()},
                            {"seconds", t ? nlohmann::json(*t) : nlohmann::json()},
                            {"reason", s.selection.reason}});
  }
  return out;
}

}  // namespace strata::cli
