// The team a program started by mpirun forms to measure or test a plugin:
// the mpi resolver's cluster, the job's store, one device per process,
// no heartbeats (nothing writes to the store while a benchmark measures).
// Shared by strata-mpi-bench, strata-ring-bench and tests/mpi; header-only,
// since each of them links core already and nothing else needs it.
#ifndef STRATA_TOOLS_COMMON_MPI_JOB_TEAM_H_
#define STRATA_TOOLS_COMMON_MPI_JOB_TEAM_H_

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster/job_store.h"
#include "core/cluster/job_team.h"
#include "core/cluster/resolve.h"
#include "core/runtime/runtime.h"

namespace strata {

struct MpiJobTeam {
  std::unique_ptr<JobTeam> job;  // owns what the pointers below point at
  std::vector<strata_device_t> devices;
  CollectiveOps* ops = nullptr;
  Store* store = nullptr;
};

// `device_type`: the type of each process's one device ("shm_host" for
// buffers the shm plugin's mapped algorithms read in place).
inline StatusOr<MpiJobTeam> join_mpi_job(std::shared_ptr<Runtime> runtime, int rank, int world,
                                         const std::string& device_type = "cpu") {
  STRATA_ASSIGN_OR_RETURN(ClusterSpec cluster, resolve_cluster(runtime->registry(), "mpi"));
  JobTeamSpec spec;
  STRATA_ASSIGN_OR_RETURN(spec.store,
                          open_job_store(runtime->registry(), cluster, runtime->config().cluster));
  STRATA_ASSIGN_OR_RETURN(spec.devices, runtime->devices(device_type, 1));
  spec.rank = rank;
  spec.world = world;
  spec.heartbeat = std::chrono::nanoseconds(0);
  MpiJobTeam team;
  STRATA_ASSIGN_OR_RETURN(team.job, JobTeam::form(std::move(runtime), std::move(spec)));
  team.devices = team.job->devices();
  team.ops = &team.job->ops();
  team.store = team.job->store();
  return team;
}

}  // namespace strata

#endif  // STRATA_TOOLS_COMMON_MPI_JOB_TEAM_H_
