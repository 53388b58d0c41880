#include "core/collective/host_hierarchy.h"

#include <cstdio>

#include "core/common/dtype.h"

namespace strata {
namespace {

std::optional<double> time_of(const Selection& s) {
  for (const Candidate& c : s.candidates) {
    if (c.algorithm != s.chosen) continue;
    if (c.measured) return c.measured;
    return c.estimate;
  }
  return std::nullopt;
}

std::string hierarchy_seconds_text(double s) {
  char buf[32];
  if (s < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  }
  return buf;
}

// The steps of `op` for `hosts` hosts of at most `largest` processes
// (host_composed_collective.cc runs exactly these).
std::vector<HostStep> plan(CollectiveKind op, uint64_t count, uint64_t hosts, uint64_t largest,
                           uint64_t processes) {
  using K = CollectiveKind;
  const HostLevel in = HostLevel::kIntraHost;
  const HostLevel across = HostLevel::kInterHost;
  auto step = [](HostLevel level, K kind, uint64_t n) {
    HostStep s;
    s.level = level;
    s.op = kind;
    s.count = n;
    return s;
  };
  switch (op) {
    case K::kAllReduce:
      return {step(in, K::kReduce, count), step(across, K::kAllReduce, count),
              step(in, K::kBroadcast, count)};
    case K::kBroadcast:
      return {step(in, K::kBroadcast, count), step(across, K::kBroadcast, count),
              step(in, K::kBroadcast, count)};
    case K::kReduce:
      return {step(in, K::kReduce, count), step(across, K::kReduce, count),
              step(in, K::kBroadcast, count)};
    case K::kAllGather:
      return {step(in, K::kAllGather, count), step(across, K::kAllGather, largest * count),
              step(in, K::kBroadcast, processes * count)};
    case K::kReduceScatter:
      return {step(in, K::kReduce, hosts * largest * count),
              step(across, K::kReduceScatter, largest * count),
              step(in, K::kBroadcast, largest * count)};
    case K::kBarrier:
      return {step(in, K::kBarrier, 0), step(across, K::kBarrier, 0), step(in, K::kBarrier, 0)};
  }
  return {};
}

}  // namespace

const char* host_level_name(HostLevel level) {
  return level == HostLevel::kIntraHost ? "intra-host" : "inter-host";
}

bool host_composition_fits(const Team& team) {
  return team.multi_process() && team.local_count() == 1 && team.host_count() > 1 &&
         team.largest_host() > 1;
}

HierarchyDecision decide_hierarchy(const Team& team, const Selector& selector,
                                   const CollectivesConfig& config,
                                   const strata_call_desc_t& desc, const Selection& flat) {
  HierarchyDecision d;
  d.hierarchy = config.hierarchy;
  d.flat_seconds = time_of(flat);
  const int processes = team.desc().process_count;
  if (!host_composition_fits(team)) {
    d.reason = !team.multi_process()   ? "one process: nothing to compose by host"
               : team.local_count() > 1 ? "several devices per process: composed by host, if "
                                          "at all, in the cross-process step"
               : team.host_count() == 1
                   ? "all " + std::to_string(processes) + " processes are on one host"
                   : "one process per host: no host has processes to combine";
    return d;
  }
  d.qualifies = true;
  const uint64_t hosts = static_cast<uint64_t>(team.host_count());
  const uint64_t largest = static_cast<uint64_t>(team.largest_host());
  d.steps = plan(static_cast<CollectiveKind>(desc.op), desc.count, hosts, largest,
                 static_cast<uint64_t>(processes));

  // The levels' teams as the Selector will see them once they form.
  strata_team_desc_t intra = team.desc();
  intra.process_rank = 0;
  intra.replica_offset = 0;
  intra.process_count = intra.replica_count = static_cast<int32_t>(largest);
  intra.host_count = 1;
  strata_team_desc_t inter = intra;
  inter.process_count = inter.replica_count = static_cast<int32_t>(hosts);
  inter.host_count = static_cast<int32_t>(hosts);
  bool all_served = true;
  double total = 0;
  bool all_timed = true;
  for (HostStep& s : d.steps) {
    const bool within = s.level == HostLevel::kIntraHost;
    s.team = within ? std::to_string(largest) + " processes of the largest host"
                    : std::to_string(hosts) + " host leaders";
    strata_call_desc_t call = desc;
    call.op = to_abi(s.op);
    call.count = s.count;
    call.root = 0;
    call.in_place = 0;
    if (desc.redop == STRATA_MEAN) call.redop = STRATA_SUM;
    call.team = within ? &intra : &inter;
    auto walked = selector.walk(call);
    if (walked.ok()) s.selection = std::move(*walked);
    all_served = all_served && s.selection.chosen != nullptr;
    const auto t = time_of(s.selection);
    all_timed = all_timed && t.has_value();
    if (t) total += *t;
  }
  if (all_served && all_timed) d.composed_seconds = total;
  const std::string shape = std::to_string(processes) + " processes on " +
                            std::to_string(hosts) + " hosts";

  if (config.hierarchy == "flat") {
    d.reason = "collectives.hierarchy: flat";
    return d;
  }
  if (config.hierarchy == "host") {
    d.compose = true;
    d.reason = "collectives.hierarchy: host (" + shape + ")";
    return d;
  }
  const Candidate* winner = nullptr;
  for (const Candidate& c : flat.candidates) {
    if (c.algorithm == flat.chosen) winner = &c;
  }
  if (winner == nullptr) {
    d.compose = all_served;
    d.reason = all_served ? "no algorithm serves the " + shape + " flat; each level has one"
                          : "no algorithm serves the " + shape +
                                " flat, nor every level of a host composition";
    return d;
  }
  if (winner->source != "auto") {
    d.reason = winner->algorithm->id + " is chosen by " + winner->source + " for the whole team";
    return d;
  }
  if (!all_served) {
    d.reason = "some level has no algorithm for its step; " + winner->algorithm->id +
               " serves the whole team";
    return d;
  }
  if (!d.flat_seconds || !d.composed_seconds) {
    d.reason = "no time to compare (an algorithm without estimate); " + winner->algorithm->id +
               " serves the whole team";
    return d;
  }
  d.compose = *d.composed_seconds < *d.flat_seconds;
  d.reason = (d.compose ? "composed by host: " : "flat: ") + std::string("levels ") +
             hierarchy_seconds_text(*d.composed_seconds) + (d.compose ? " < " : " >= ") +
             winner->algorithm->id + " over all " + std::to_string(processes) + " processes " +
             hierarchy_seconds_text(*d.flat_seconds);
  return d;
}

}  // namespace strata
