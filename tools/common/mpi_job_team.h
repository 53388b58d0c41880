// The team a program started by mpirun forms to measure or test a plugin:
// the mpi resolver's cluster, the job's store, one CPU device per process.
// Shared by strata-mpi-bench, strata-ring-bench and tests/mpi; header-only,
// since each of them links core already and nothing else needs it.
#ifndef STRATA_TOOLS_COMMON_MPI_JOB_TEAM_H_
#define STRATA_TOOLS_COMMON_MPI_JOB_TEAM_H_

#include <memory>
#include <utility>
#include <vector>

#include "core/cluster/job_store.h"
#include "core/cluster/resolve.h"
#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"

namespace strata {

struct MpiJobTeam {
  std::unique_ptr<Store> store;  // declared first: the team uses it until destroyed
  std::vector<strata_device_t> devices;
  std::unique_ptr<CollectiveOps> ops;
};

inline StatusOr<MpiJobTeam> join_mpi_job(std::shared_ptr<Runtime> runtime, int rank, int world) {
  MpiJobTeam team;
  STRATA_ASSIGN_OR_RETURN(ClusterSpec cluster, resolve_cluster(runtime->registry(), "mpi"));
  STRATA_ASSIGN_OR_RETURN(team.store,
                          open_job_store(runtime->registry(), cluster, runtime->config().cluster));
  STRATA_ASSIGN_OR_RETURN(team.devices, runtime->devices("cpu", 1));
  TeamSpec spec;
  spec.local_devices = team.devices;
  spec.process_rank = rank;
  spec.process_count = world;
  spec.store = team.store.get();
  STRATA_ASSIGN_OR_RETURN(team.ops, CollectiveOps::create(std::move(runtime), spec));
  return team;
}

}  // namespace strata

#endif  // STRATA_TOOLS_COMMON_MPI_JOB_TEAM_H_
