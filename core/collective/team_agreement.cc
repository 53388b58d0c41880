// Forming a multi-process team: every process publishes what selection
// depends on — devices per process, the algorithms it loaded, the collectives
// config — and checks everyone else's. Selection runs independently on each
// rank, so two ranks with different plugins or rules would pick different
// algorithms and deadlock inside them; refusing here turns that into an error
// that says which rank differs and how. Each also publishes its host key
// (host_key.h), not compared but counted: the team learns which processes
// share a host, for strata_team_desc_t.host_count and host composition.
#include <algorithm>
#include <set>
#include <sstream>

#include "core/collective/host_key.h"
#include "core/collective/team.h"
#include "core/common/units.h"
#include "core/runtime/runtime.h"

namespace strata {
namespace {

// FNV-1a: stable across processes and builds, unlike std::hash.
uint64_t fnv1a(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(uint64_t v) {
  std::ostringstream out;
  out << std::hex << v;
  return out.str();
}

struct Fingerprint {
  std::string local_devices;  // "2 x cpu"
  std::string plugins;        // "hierarchical_copy,mpi"
  std::string algorithms;     // hash of every algorithm id
  std::string collectives;    // hash of collectives config
  std::string host;           // host_key.h; not compared

  std::string encode() const {
    return local_devices + "\n" + plugins + "\n" + algorithms + "\n" + collectives + "\n" +
           host;
  }
  static Fingerprint decode(const std::string& text) {
    Fingerprint f;
    std::istringstream in(text);
    std::getline(in, f.local_devices);
    std::getline(in, f.plugins);
    std::getline(in, f.algorithms);
    std::getline(in, f.collectives);
    std::getline(in, f.host);
    return f;
  }
};

std::string describe_collectives(const CollectivesConfig& c) {
  std::string out = c.implementation + "|" + std::to_string(c.bytes_per_pack) + "|" +
                    std::to_string(c.timeout.count()) + "|" + c.hierarchy;
  for (const CollectiveRule& r : c.rules) {
    out += "|" + std::to_string(r.op ? static_cast<int>(*r.op) : -1) + "," +
           std::to_string(r.min_bytes) + "," + std::to_string(r.max_bytes) + "," +
           std::to_string(r.dtype ? static_cast<int>(*r.dtype) : -1) + "," + r.device_type +
           "," + r.use;
  }
  return out;
}

Fingerprint local_fingerprint(const Runtime& runtime, const std::vector<strata_device_t>& devs) {
  Fingerprint f;
  const DeviceTypeEntry* type = runtime.registry().device_type(devs.front().type);
  f.local_devices = std::to_string(devs.size()) + " x " + (type ? type->name : "?");
  std::set<std::string> plugins;
  std::string ids;
  for (const AlgorithmEntry* a : runtime.registry().algorithms()) {
    plugins.insert(a->plugin);
    ids += a->id + ";";
  }
  for (const std::string& p : plugins) f.plugins += (f.plugins.empty() ? "" : ",") + p;
  f.algorithms = hex(fnv1a(ids));
  f.collectives = hex(fnv1a(describe_collectives(runtime.config().collectives)));
  return f;
}

}  // namespace

Status Team::agree_with_peers(Deadline deadline) {
  const int rank = desc_.process_rank;
  const int world = desc_.process_count;
  Fingerprint mine = local_fingerprint(*runtime_, devices_);
  if (!spec_.host_key.empty()) {
    mine.host = spec_.host_key;
  } else {
    STRATA_ASSIGN_OR_RETURN(mine.host, local_host_key());
  }
  std::vector<std::string> host_keys(static_cast<size_t>(world));
  host_keys[static_cast<size_t>(rank)] = mine.host;
  STRATA_RETURN_IF_ERROR(store_->set("member/" + std::to_string(rank), mine.encode()));

  std::vector<int> missing;
  std::vector<std::string> differences;
  for (int r = 0; r < world; ++r) {
    if (r == rank) continue;
    auto theirs = store_->get("member/" + std::to_string(r), deadline);
    if (!theirs.ok()) {
      if (theirs.status().code() != Code::kTimedOut) return theirs.status();
      missing.push_back(r);
      continue;
    }
    const Fingerprint f = Fingerprint::decode(*theirs);
    host_keys[static_cast<size_t>(r)] = f.host;
    const std::string who = describe_process(r);
    if (f.local_devices != mine.local_devices) {
      differences.push_back(who + " drives " + f.local_devices + " devices, this process (" +
                            describe_process(rank) + ") " + mine.local_devices +
                            "; every process of a team must drive the same number");
    }
    if (f.plugins != mine.plugins || f.algorithms != mine.algorithms) {
      differences.push_back(who + " loaded algorithms of plugins {" + f.plugins +
                            "}, this process {" + mine.plugins +
                            "}; every rank must load the same plugins (same versions)");
    }
    if (f.collectives != mine.collectives) {
      differences.push_back(who + " runs with a different collectives config (implementation, "
                            "rules, timeout or bytes_per_pack); every rank must use the "
                            "same config");
    }
  }
  if (!missing.empty()) {
    std::string names;
    for (int r : missing) names += (names.empty() ? "" : ", ") + describe_process(r);
    return TimedOutError("forming team " + std::to_string(desc_.team_id) + " of " +
                         std::to_string(world) + " processes: " + names +
                         " never arrived" +
                         " (process rank " + std::to_string(rank) + " waited " +
                         format_duration(spec_.formation_timeout) + ")");
  }
  if (!differences.empty()) {
    std::string text;
    for (const auto& d : differences) text += (text.empty() ? "" : "; ") + d;
    return FailedPreconditionError("team " + std::to_string(desc_.team_id) +
                                   " refused: " + text);
  }
  host_of_rank_ = number_hosts(host_keys);
  int hosts = 0;
  for (int h : host_of_rank_) hosts = std::max(hosts, h + 1);
  desc_.host_count = hosts;
  return Status::Ok();
}

}  // namespace strata
