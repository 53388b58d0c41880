#include "core/collective/selector.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/collective/algorithm_call.h"
#include "core/collective/tuning_table.h"
#include "strata/sdk/types.h"

namespace strata {
namespace {

std::string format_seconds(double s) {
  char buf[32];
  if (s < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  }
  return buf;
}

// AUTO's order: lowest estimate first, then no estimate, ties by id.
bool auto_order(const Candidate& a, const Candidate& b) {
  if (a.estimate.has_value() != b.estimate.has_value()) return a.estimate.has_value();
  if (a.estimate && *a.estimate != *b.estimate) return *a.estimate < *b.estimate;
  return a.algorithm->id < b.algorithm->id;
}

// Measured beats modelled: the tuning table timed these algorithms on this
// host, the models only describe them.
bool measured_order(const Candidate& a, const Candidate& b) {
  if (a.measured.has_value() != b.measured.has_value()) return a.measured.has_value();
  if (a.measured && *a.measured != *b.measured) return *a.measured < *b.measured;
  return auto_order(a, b);
}

}  // namespace

uint64_t call_bytes(CollectiveKind op, DType dtype, uint64_t count, int replicas) {
  const bool gathered = op == CollectiveKind::kAllGather || op == CollectiveKind::kReduceScatter;
  return count * dtype_size(dtype) * static_cast<uint64_t>(gathered ? replicas : 1);
}

uint64_t call_bytes(const strata_call_desc_t& call) {
  return call_bytes(static_cast<CollectiveKind>(call.op), static_cast<DType>(call.dtype),
                    call.count, static_cast<int>(call.team->replica_count));
}

bool Selector::scope_fits(const AlgorithmEntry& algo, const strata_team_desc_t& team) {
  uint32_t needed;
  if (team.process_count == 1) {
    needed = STRATA_SCOPE_LOCAL;
  } else if (team.local_count == 1) {
    needed = STRATA_SCOPE_CROSS_PROCESS;
  } else {
    needed = STRATA_SCOPE_MULTI_DEVICE_PROCESSES;
  }
  return (algo.table.scope & needed) != 0;
}

bool Selector::rule_matches(const CollectiveRule& rule, const strata_call_desc_t& call) const {
  if (rule.op && to_abi(*rule.op) != call.op) return false;
  if (rule.dtype && to_abi(*rule.dtype) != call.dtype) return false;
  const uint64_t bytes = call_bytes(call);
  if (bytes < rule.min_bytes || bytes > rule.max_bytes) return false;
  if (!rule.device_type.empty()) {
    const DeviceTypeEntry* type = registry_.device_type(call.device_type);
    if (type == nullptr || type->name != rule.device_type) return false;
  }
  return true;
}

bool Selector::matches_implementation(const AlgorithmEntry& algo) const {
  const std::string& impl = config_.implementation;
  return impl == algo.name || impl == algo.plugin || impl == algo.id;
}

std::optional<double> Selector::measured_time(const AlgorithmEntry& algo,
                                              const strata_call_desc_t& call) const {
  if (!config_.tuning) return std::nullopt;
  const DeviceTypeEntry* type = registry_.device_type(call.device_type);
  if (type == nullptr) return std::nullopt;
  TuningKey key;
  key.op = algo.op;
  key.device_type = type->name;
  key.processes = static_cast<int>(call.team->process_count);
  key.local_devices = static_cast<int>(call.team->local_count);
  key.dtype = static_cast<DType>(call.dtype);
  return config_.tuning->lookup(key, algo.id, call_bytes(call));
}

std::vector<Candidate> Selector::ordered_candidates(const strata_call_desc_t& call) const {
  std::vector<Candidate> out;
  std::set<const AlgorithmEntry*> listed;
  const auto op = static_cast<CollectiveKind>(call.op);

  for (size_t i = 0; i < config_.rules.size(); ++i) {
    const CollectiveRule& rule = config_.rules[i];
    if (!rule_matches(rule, call)) continue;
    const AlgorithmEntry* algo = registry_.find_algorithm(rule.use);
    if (algo == nullptr || algo->op != op || listed.count(algo) != 0) continue;
    Candidate c;
    c.algorithm = algo;
    // Numbered from 0, as config error messages number them.
    c.source = "collectives.rules[" + std::to_string(i) + "] (" + rule.mark.to_string() + ")";
    c.estimate = call_estimate(*algo, call);
    c.measured = measured_time(*algo, call);
    out.push_back(std::move(c));
    listed.insert(algo);
  }

  std::vector<Candidate> preferred;
  std::vector<Candidate> rest;
  for (const AlgorithmEntry* algo : registry_.algorithms_for(op)) {
    if (listed.count(algo) != 0) continue;
    Candidate c;
    c.algorithm = algo;
    c.estimate = call_estimate(*algo, call);
    c.measured = measured_time(*algo, call);
    if (config_.implementation != "auto" && matches_implementation(*algo)) {
      c.source = "implementation: " + config_.implementation;
      preferred.push_back(std::move(c));
    } else {
      c.source = "auto";
      rest.push_back(std::move(c));
    }
  }
  // Algorithms whose scope cannot cover this team (a cross-process one for a
  // local team) go last: they would decline anyway, and listing them among
  // the others would make the order depend on estimates that do not apply.
  auto fits = [&](const Candidate& c) { return scope_fits(*c.algorithm, *call.team); };
  std::sort(preferred.begin(), preferred.end(), measured_order);
  std::sort(rest.begin(), rest.end(), measured_order);
  std::stable_partition(preferred.begin(), preferred.end(), fits);
  std::stable_partition(rest.begin(), rest.end(), fits);
  for (auto& c : preferred) out.push_back(std::move(c));
  for (auto& c : rest) out.push_back(std::move(c));
  return out;
}

StatusOr<Selection> Selector::select(const strata_call_desc_t& call, std::string_view forced,
                                     const KnownDeclines* known_declines) const {
  STRATA_ASSIGN_OR_RETURN(Selection sel, walk(call, forced, known_declines));
  if (sel.chosen == nullptr) return no_winner(call, sel);
  return sel;
}

Status Selector::no_winner(const strata_call_desc_t& call, const Selection& walked) {
  std::string why;
  for (const auto& c : walked.candidates) {
    why += "\n  " + c.algorithm->id + ": " + c.verdict;
  }
  if (walked.candidates.empty()) why = " (no algorithm is registered for this op)";
  return NotSupportedError(std::string("no algorithm accepts ") + sdk::op_name(call.op) + " of " +
                           std::to_string(call.count) + " x " + sdk::dtype_name(call.dtype) +
                           ":" + why);
}

StatusOr<Selection> Selector::walk(const strata_call_desc_t& call, std::string_view forced,
                                   const KnownDeclines* known_declines) const {
  Selection sel;
  if (!forced.empty()) {
    const AlgorithmEntry* algo = registry_.find_algorithm(forced);
    if (algo == nullptr) {
      return NotFoundError("no algorithm '" + std::string(forced) +
                           "' is registered; `strata info` lists them");
    }
    if (static_cast<int32_t>(algo->op) != call.op) {
      return InvalidArgumentError("algorithm '" + algo->id + "' implements " +
                                  std::string(collective_name(algo->op)) + ", not " +
                                  sdk::op_name(call.op));
    }
    Candidate c;
    c.algorithm = algo;
    c.source = "forced";
    c.estimate = call_estimate(*algo, call);
    c.measured = measured_time(*algo, call);
    sel.candidates.push_back(std::move(c));
  } else {
    sel.candidates = ordered_candidates(call);
  }

  for (Candidate& c : sel.candidates) {
    if (!scope_fits(*c.algorithm, *call.team)) {
      c.verdict = "declined: its scope does not cover " +
                  std::to_string(call.team->process_count) + " process(es) x " +
                  std::to_string(call.team->local_count) + " local device(s)";
      continue;
    }
    if (sel.chosen != nullptr) {
      c.verdict = "not tried";
      continue;
    }
    if (known_declines != nullptr) {
      if (auto known = known_declines->find(c.algorithm); known != known_declines->end()) {
        c.verdict = "declined " + known->second;
        continue;
      }
    }
    const Support support = call_supports(*c.algorithm, call);
    if (!support.accepted) {
      c.verdict = "declined: " + support.reason;
      c.declined_by_supports = true;
      continue;
    }
    c.accepted = true;
    c.verdict = "selected";
    sel.chosen = c.algorithm;
    sel.reason = winner_reason(c, sel.candidates);
  }
  return sel;
}

std::string Selector::winner_reason(const Candidate& c,
                                    const std::vector<Candidate>& candidates) const {
  if (c.source == "auto" && c.measured) {
    return "fastest measured (" + format_seconds(*c.measured) + " in " +
           config_.tuning->source() + ") among the algorithms that accept the call";
  }
  if (c.source != "auto") return "chosen by " + c.source;
  std::string reason = c.estimate ? "lowest estimate (" + format_seconds(*c.estimate) +
                                        ") among the algorithms that accept the call"
                                  : "first algorithm that accepts the call (no estimates)";
  if (config_.tuning) {
    // Measured candidates come first, so a winner without a measurement
    // means either none was measured here or every measured one declined.
    const bool measured_declined =
        std::any_of(candidates.begin(), candidates.end(),
                    [](const Candidate& m) { return m.measured.has_value(); });
    reason += "; " + config_.tuning->source() +
              (measured_declined ? " measured only algorithms that declined the call"
                                 : " has no measurement that covers it");
  }
  return reason;
}

}  // namespace strata
