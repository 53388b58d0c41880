// The "slurm" resolver: a task started by srun learns the job from Slurm's
// variables, as TF's SlurmClusterResolver does:
//   SLURM_PROCID                                   this task's rank
//   SLURM_STEP_NUM_TASKS      or SLURM_NTASKS          how many tasks
//   SLURM_STEP_NODELIST       or SLURM_JOB_NODELIST    the nodes, "node[01-04]"
//   SLURM_STEP_TASKS_PER_NODE or SLURM_TASKS_PER_NODE  "2(x3),1"
//   STRATA_SLURM_PORT_BASE    (default 8888)       first port on every node
// Tasks fill the nodes in block order (ranks 0-1 on the first node, ...);
// the task with local index i on a node listens on port base + i. Every task
// is a "worker"; worker 0 is the chief. Without SLURM_PROCID (not under
// srun): NOT_SUPPORTED.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_SLURM_RESOLVER_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_SLURM_RESOLVER_H_

#include <memory>

#include "core/cluster/resolvers/environment_resolver.h"

namespace strata {

inline constexpr int kDefaultSlurmPortBase = 8888;

class SlurmResolver final : public EnvironmentResolver {
 public:
  explicit SlurmResolver(std::shared_ptr<const Environment> env);
  StatusOr<ClusterSpec> describe() const override;
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_SLURM_RESOLVER_H_
