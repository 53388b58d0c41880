#include "core/cluster/cluster_spec.h"

#include <string_view>

#include "core/plugin/registry.h"  // is_valid_name

namespace strata {
namespace {

constexpr std::string_view kChief = "chief";
constexpr std::string_view kWorker = "worker";

int job_size(const ClusterSpec& spec, std::string_view job) {
  auto it = spec.jobs.find(std::string(job));
  return it == spec.jobs.end() ? 0 : static_cast<int>(it->second.size());
}

// The job and index of collective rank r: chief tasks first, then workers.
std::optional<std::pair<std::string_view, int>> task_of_rank(const ClusterSpec& spec, int rank) {
  const int chiefs = job_size(spec, kChief);
  if (rank < 0 || rank >= spec.world_size()) return std::nullopt;
  if (rank < chiefs) return std::make_pair(kChief, rank);
  return std::make_pair(kWorker, rank - chiefs);
}

std::string range_text(size_t count) {
  return count == 1 ? "index 0" : "indices 0-" + std::to_string(count - 1);
}

}  // namespace

int ClusterSpec::world_size() const { return job_size(*this, kChief) + job_size(*this, kWorker); }

std::optional<int> ClusterSpec::rank() const {
  if (task_type != kChief && task_type != kWorker) return std::nullopt;
  if (task_index < 0 || task_index >= job_size(*this, task_type)) return std::nullopt;
  return task_type == kChief ? task_index : job_size(*this, kChief) + task_index;
}

bool ClusterSpec::is_chief() const {
  const std::optional<int> r = rank();
  return r.has_value() && *r == 0;
}

std::string ClusterSpec::chief_address() const { return address_of_rank(0); }

std::string ClusterSpec::address_of_rank(int r) const {
  const auto task = task_of_rank(*this, r);
  if (!task) return "";
  return jobs.at(std::string(task->first))[static_cast<size_t>(task->second)];
}

std::string ClusterSpec::task_name_of_rank(int r) const {
  const auto task = task_of_rank(*this, r);
  if (!task) {
    return "rank " + std::to_string(r) + " (outside a world of " + std::to_string(world_size()) +
           ")";
  }
  return std::string(task->first) + " " + std::to_string(task->second);
}

Status ClusterSpec::validate() const {
  const std::string where = source.empty() ? std::string("cluster") : source;
  auto fail = [&](const std::string& problem) {
    return InvalidArgumentError(where + ": " + problem);
  };
  if (jobs.empty()) return fail("the cluster has no jobs");
  std::map<std::string, std::string> owner_of_address;
  for (const auto& [job, addresses] : jobs) {
    if (!is_valid_name(job)) {
      return fail("job name '" + job + "' is not 1-63 characters of [a-z0-9_]");
    }
    if (addresses.empty()) return fail("job '" + job + "' has no tasks");
    for (size_t i = 0; i < addresses.size(); ++i) {
      if (addresses[i].empty()) continue;
      const std::string name = job + " " + std::to_string(i);
      auto [it, fresh] = owner_of_address.emplace(addresses[i], name);
      // Two tasks on one address cannot both listen there: a copy-paste slip.
      if (!fresh) {
        return fail(it->second + " and " + name + " have the same address '" + addresses[i] + "'");
      }
    }
  }
  if (job_size(*this, kChief) > 1) {
    return fail("job 'chief' has " + std::to_string(job_size(*this, kChief)) +
                " tasks; there can be at most one chief");
  }
  auto own = jobs.find(task_type);
  if (own == jobs.end()) {
    std::string names;
    for (const auto& [job, addresses] : jobs) names += (names.empty() ? "" : ", ") + job;
    return fail("this task's type '" + task_type + "' is not a job of the cluster (jobs: " + names +
                ")");
  }
  if (task_index < 0 || static_cast<size_t>(task_index) >= own->second.size()) {
    return fail("task index " + std::to_string(task_index) + " is out of range for job '" +
                task_type + "', which has " + std::to_string(own->second.size()) + " task(s) (" +
                range_text(own->second.size()) + ")");
  }
  if (devices_per_task < 0) {
    return fail("devices per task is " + std::to_string(devices_per_task) +
                "; it must be 0 (unknown) or more");
  }
  if (!device_type.empty() && !is_valid_name(device_type)) {
    return fail("device type '" + device_type + "' is not 1-63 characters of [a-z0-9_]");
  }
  return Status::Ok();
}

std::string ClusterSpec::to_string() const {
  std::string text = task_type + " " + std::to_string(task_index) + " of {";
  bool first = true;
  for (const auto& [job, addresses] : jobs) {
    text += (first ? "" : ", ") + job + ": " + std::to_string(addresses.size());
    first = false;
  }
  text += "}";
  if (!resolver.empty()) text += " (" + resolver + ")";
  if (devices_per_task > 0) {
    text += ", " + std::to_string(devices_per_task) + " " +
            (device_type.empty() ? std::string("local") : device_type) + " device(s) per task";
  }
  return text;
}

ClusterSpec single_process_cluster() {
  ClusterSpec spec;
  spec.jobs["worker"] = {""};
  spec.task_type = "worker";
  spec.task_index = 0;
  spec.source = "single process (no cluster variables set)";
  return spec;
}

}  // namespace strata
