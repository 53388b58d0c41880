#include "core/cluster/resolvers/slurm_resolver.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster/resolvers/slurm_hostlist.h"

namespace strata {
namespace {

// A Slurm setting: the step's variable when srun set it, else the job's.
struct Setting {
  std::string name;
  std::string value;
  std::string text() const { return name + "='" + value + "'"; }
};

std::optional<Setting> step_or_job(const Environment& env, std::string_view step,
                                   std::string_view job) {
  for (std::string_view name : {step, job}) {
    if (auto value = env.find(name)) return Setting{std::string(name), *value};
  }
  return std::nullopt;
}

Status missing(std::string_view step, std::string_view job) {
  return InvalidArgumentError("SLURM_PROCID is set but neither " + std::string(step) + " nor " +
                              std::string(job) +
                              " is; start the program with srun, which sets both");
}

// Where each rank runs when srun lays tasks out in block order.
struct Placement {
  std::vector<std::string> addresses;  // by rank
  std::vector<size_t> node_of_rank;
  std::vector<int> local_index_of_rank;
};

Placement place_in_blocks(const std::vector<std::string>& nodes, const std::vector<int>& tasks,
                          int port_base) {
  Placement p;
  for (size_t node = 0; node < nodes.size(); ++node) {
    for (int local = 0; local < tasks[node]; ++local) {
      p.addresses.push_back(nodes[node] + ":" + std::to_string(port_base + local));
      p.node_of_rank.push_back(node);
      p.local_index_of_rank.push_back(local);
    }
  }
  return p;
}

// srun --distribution=cyclic (or plane, arbitrary) puts ranks elsewhere than
// block order; addresses computed from block order would then point at the
// wrong nodes, so say so instead of hanging at rendezvous.
Status check_block_order(const Environment& env, int rank, const std::string& node,
                         int local_index) {
  const std::string expected = "SLURM_PROCID=" + std::to_string(rank) + " is local task " +
                               std::to_string(local_index) + " on " + node + " in block order";
  const std::string advice = "; tasks are not laid out in block order (SLURM_DISTRIBUTION=" +
                             env.find("SLURM_DISTRIBUTION").value_or("unset") +
                             "): start srun with --distribution=block";
  if (auto actual = env.find("SLURMD_NODENAME"); actual && *actual != node) {
    return InvalidArgumentError(expected + ", but SLURMD_NODENAME='" + *actual + "'" + advice);
  }
  if (auto actual = env.find("SLURM_LOCALID"); actual && *actual != std::to_string(local_index)) {
    return InvalidArgumentError(expected + ", but SLURM_LOCALID='" + *actual + "'" + advice);
  }
  return Status::Ok();
}

}  // namespace

SlurmResolver::SlurmResolver(std::shared_ptr<const Environment> env)
    : EnvironmentResolver("slurm", "Slurm's srun variables (SLURM_PROCID, SLURM_STEP_*)",
                          std::move(env)) {}

StatusOr<ClusterSpec> SlurmResolver::describe() const {
  const auto procid_text = env().find("SLURM_PROCID");
  if (!procid_text) {
    return NotSupportedError("SLURM_PROCID is not set (not a task started by srun)");
  }
  const int max = static_cast<int>(kMaxSlurmHosts);
  STRATA_ASSIGN_OR_RETURN(int rank, parse_int_variable("SLURM_PROCID", *procid_text, 0, max));

  const auto ntasks = step_or_job(env(), "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS");
  if (!ntasks) return missing("SLURM_STEP_NUM_TASKS", "SLURM_NTASKS");
  STRATA_ASSIGN_OR_RETURN(int world, parse_int_variable(ntasks->name, ntasks->value, 1, max));
  if (rank >= world) {
    return InvalidArgumentError("SLURM_PROCID=" + std::to_string(rank) + " is out of range: " +
                                ntasks->text() + " gives ranks 0-" + std::to_string(world - 1));
  }

  const auto nodelist = step_or_job(env(), "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST");
  if (!nodelist) return missing("SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST");
  StatusOr<std::vector<std::string>> nodes = expand_slurm_hostlist(nodelist->value);
  if (!nodes.ok()) return nodes.status().prefixed(nodelist->name);

  const auto per_node = step_or_job(env(), "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE");
  if (!per_node) return missing("SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE");
  StatusOr<std::vector<int>> tasks = expand_slurm_tasks_per_node(per_node->value);
  if (!tasks.ok()) return tasks.status().prefixed(per_node->name);

  if (tasks->size() != nodes->size()) {
    return InvalidArgumentError(per_node->text() + " describes " + std::to_string(tasks->size()) +
                                " node(s) but " + nodelist->text() + " has " +
                                std::to_string(nodes->size()));
  }
  const int64_t sum = std::accumulate(tasks->begin(), tasks->end(), int64_t{0});
  if (sum != world) {
    return InvalidArgumentError(per_node->text() + " adds up to " + std::to_string(sum) +
                                " task(s) but " + ntasks->text());
  }

  int port_base = kDefaultSlurmPortBase;
  if (auto text = env().find("STRATA_SLURM_PORT_BASE")) {
    STRATA_ASSIGN_OR_RETURN(port_base,
                            parse_int_variable("STRATA_SLURM_PORT_BASE", *text, 1, 65535));
  }
  const int most_on_a_node = *std::max_element(tasks->begin(), tasks->end());
  if (port_base + most_on_a_node - 1 > 65535) {
    return InvalidArgumentError(
        "port base " + std::to_string(port_base) + " (STRATA_SLURM_PORT_BASE) leaves no room for " +
        std::to_string(most_on_a_node) + " tasks on one node: ports stop at 65535");
  }

  const Placement placement = place_in_blocks(*nodes, *tasks, port_base);
  const size_t me = static_cast<size_t>(rank);
  STRATA_RETURN_IF_ERROR(check_block_order(env(), rank, (*nodes)[placement.node_of_rank[me]],
                                           placement.local_index_of_rank[me]));
  ClusterSpec spec;
  spec.jobs["worker"] = placement.addresses;
  spec.task_type = "worker";
  spec.task_index = rank;
  spec.source = "Slurm (" + ntasks->name + ", " + nodelist->name + ", " + per_node->name + ")";
  spec.resolver = "slurm";
  return spec;
}

}  // namespace strata
