#include "core/cluster/resolvers/simple_resolver.h"

#include <array>
#include <string>
#include <vector>

namespace strata {
namespace {

constexpr std::array<std::string_view, 5> kVariables = {
    "STRATA_WORKERS", "STRATA_CHIEF", "STRATA_PS", "STRATA_TASK_TYPE", "STRATA_TASK_INDEX"};
constexpr int kMaxTasks = 1 << 16;

// "host:port" with a port a process can listen on; "[::1]:2222" works too,
// since the port follows the last colon.
bool is_host_port(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  return parse_int_variable("", address.substr(colon + 1), 1, 65535).ok();
}

StatusOr<std::vector<std::string>> read_addresses(std::string_view name, const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string entry = text.substr(start, comma - start);
    const std::string where = std::string(name) + "='" + text + "'";
    if (entry.empty()) {
      return InvalidArgumentError(where + " has an empty entry at position " +
                                  std::to_string(out.size()) + "; write host:port,host:port");
    }
    if (!is_host_port(entry)) {
      return InvalidArgumentError(where + ": entry " + std::to_string(out.size()) + " '" + entry +
                                  "' is not host:port with a port from 1 to 65535");
    }
    if (out.size() == kMaxTasks) {
      return InvalidArgumentError(where + " lists more than " + std::to_string(kMaxTasks) +
                                  " tasks");
    }
    out.push_back(entry);
    start = comma + 1;
  }
  return out;
}

// The variable that lists the tasks of `job`, for messages.
std::string_view list_variable(std::string_view job) {
  if (job == "chief") return "STRATA_CHIEF";
  if (job == "ps") return "STRATA_PS";
  return "STRATA_WORKERS";
}

StatusOr<int> read_task_index(const Environment& env, const ClusterSpec& spec) {
  const size_t count = spec.jobs.at(spec.task_type).size();
  const std::string listed = std::string(list_variable(spec.task_type)) + " lists " +
                             std::to_string(count) + " task(s), indices 0-" +
                             std::to_string(count - 1);
  const auto text = env.find("STRATA_TASK_INDEX");
  if (!text) {
    if (count == 1) return 0;
    return InvalidArgumentError("STRATA_TASK_INDEX is not set; " + listed +
                                ", so say which one this process is");
  }
  STRATA_ASSIGN_OR_RETURN(int index, parse_int_variable("STRATA_TASK_INDEX", *text, 0, kMaxTasks));
  if (static_cast<size_t>(index) >= count) {
    return InvalidArgumentError("STRATA_TASK_INDEX=" + std::to_string(index) +
                                " is out of range: " + listed);
  }
  return index;
}

}  // namespace

SimpleResolver::SimpleResolver(std::shared_ptr<const Environment> env)
    : EnvironmentResolver("simple",
                          "STRATA_WORKERS / STRATA_TASK_INDEX; a single process when unset",
                          std::move(env)) {}

StatusOr<ClusterSpec> SimpleResolver::describe() const {
  std::string set;
  for (std::string_view name : kVariables) {
    if (env().find(name)) set += (set.empty() ? "" : ", ") + std::string(name);
  }
  if (set.empty()) {
    ClusterSpec spec = single_process_cluster();
    spec.resolver = "simple";
    return spec;
  }
  ClusterSpec spec;
  spec.resolver = "simple";
  spec.source = "STRATA_WORKERS, STRATA_TASK_INDEX (simple resolver)";
  const std::array<std::pair<std::string_view, std::string_view>, 3> lists = {
      {{"worker", "STRATA_WORKERS"}, {"chief", "STRATA_CHIEF"}, {"ps", "STRATA_PS"}}};
  for (const auto& [job, variable] : lists) {
    if (auto text = env().find(variable)) {
      STRATA_ASSIGN_OR_RETURN(spec.jobs[std::string(job)], read_addresses(variable, *text));
    }
  }
  if (spec.jobs.count("worker") == 0 && spec.jobs.count("chief") == 0) {
    return InvalidArgumentError(set + " set, but neither STRATA_WORKERS nor STRATA_CHIEF lists " +
                                "the job's tasks; set STRATA_WORKERS=host:port,host:port");
  }
  if (spec.jobs.count("chief") != 0 && spec.jobs["chief"].size() != 1) {
    return InvalidArgumentError("STRATA_CHIEF='" + *env().find("STRATA_CHIEF") + "' lists " +
                                std::to_string(spec.jobs["chief"].size()) +
                                " addresses; a job has one chief");
  }
  spec.task_type = env().find("STRATA_TASK_TYPE").value_or("worker");
  if (spec.task_type != "worker" && spec.task_type != "chief" && spec.task_type != "ps") {
    return InvalidArgumentError("STRATA_TASK_TYPE='" + spec.task_type +
                                "' is not one of worker, chief, ps");
  }
  if (spec.jobs.count(spec.task_type) == 0) {
    return InvalidArgumentError("STRATA_TASK_TYPE=" + spec.task_type + " but " +
                                std::string(list_variable(spec.task_type)) +
                                " is not set; list that job's addresses there");
  }
  STRATA_ASSIGN_OR_RETURN(spec.task_index, read_task_index(env(), spec));
  return spec;
}

}  // namespace strata
