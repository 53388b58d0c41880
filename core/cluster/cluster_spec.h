// ClusterSpec: what a cluster resolver learned about the job — its jobs and
// their tasks' addresses, which task this process is, and how many devices
// each task drives. TF's ClusterSpec plus the task, so one value answers
// "who am I and who are my peers".
//
// The collective world (MultiWorkerMirrored's workers) is the chief, if any,
// followed by the workers in index order; "ps" and "evaluator" tasks are not
// part of it (as in TF, where the chief is worker 0 when there is no chief).
#ifndef STRATA_CORE_CLUSTER_CLUSTER_SPEC_H_
#define STRATA_CORE_CLUSTER_CLUSTER_SPEC_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace strata {

struct ClusterSpec {
  // Job name ("chief", "worker", "ps", "evaluator", or a resolver's own)
  // -> task addresses by index ("host:port"; may be "" when unknown).
  std::map<std::string, std::vector<std::string>> jobs;
  std::string task_type = "worker";  // this process's job
  int task_index = 0;                // this process's index in its job
  std::string rpc_layer;             // e.g. "grpc"; may be empty
  std::string device_type;           // "" when the resolver did not say
  int devices_per_task = 0;          // 0 when the resolver did not say
  std::string resolver;              // which resolver produced this ("tf_config")
  std::string source;                // where it came from ("TF_CONFIG", "SLURM_* variables")

  // Tasks of the collective world: chief first (if any), then workers.
  int world_size() const;
  // This task's place in the collective world; nullopt for ps / evaluator.
  std::optional<int> rank() const;
  // The chief task, or worker 0 when there is no chief job.
  bool is_chief() const;
  std::string chief_address() const;
  // Address of collective rank r ("" when unknown or out of range).
  std::string address_of_rank(int rank) const;
  // "worker 1" / "chief 0" for collective rank r, for messages.
  std::string task_name_of_rank(int rank) const;
  // Checks the shape: the task exists in its job, indices in range, no empty
  // jobs. The error names `source`.
  Status validate() const;
  // One line for logs: "worker 1 of {chief: 1, worker: 3} (tf_config)".
  std::string to_string() const;
};

// A single-process job: one worker, index 0, no addresses.
ClusterSpec single_process_cluster();

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_CLUSTER_SPEC_H_
