// JobTeam: one process's place in a multi-process team — the job's store,
// the heartbeats that prove this process alive, and the CollectiveOps of
// the team, torn down in the one safe order. MultiWorkerMirroredStrategy,
// the mpirun tools and the Python bindings (strata.join(), the torch
// backend, which forms its team through the c10d store torch hands it) all
// form their teams through it.
#ifndef STRATA_CORE_CLUSTER_JOB_TEAM_H_
#define STRATA_CORE_CLUSTER_JOB_TEAM_H_

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/health_monitor.h"
#include "core/cluster/store.h"
#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"

namespace strata {

struct JobTeamSpec {
  std::vector<strata_device_t> devices;  // this process's devices, one type
  int rank = 0;
  int world = 1;
  // The job's store, shared by the heartbeats and the team's agreements;
  // must be safe to use from two threads. Needed when world > 1.
  std::unique_ptr<Store> store;
  StoreHost store_host;  // who serves the store, for the health check's messages
  // Equal on every rank. 0: counted in the store per rank, so the n-th team
  // each rank forms in this job gets the n-th id.
  uint64_t team_id = 0;
  std::chrono::nanoseconds formation_timeout = std::chrono::seconds(120);
  // 0: no heartbeats, so no health check (benchmarks that measure without
  // a thread writing to the store).
  std::chrono::nanoseconds heartbeat = std::chrono::seconds(1);
  std::function<std::string(int)> describe_rank;  // "worker 1"; default "rank 1"
  CommunicationOptions communication;
};

class JobTeam {
 public:
  // Starts the heartbeats (world > 1) and forms the team; every rank of the
  // job calls it with the same world and team id.
  static StatusOr<std::unique_ptr<JobTeam>> form(std::shared_ptr<Runtime> runtime,
                                                 JobTeamSpec spec);
  // The job of an already resolved cluster, over its open store: `devices`
  // by name, else the resolver's devices per task, else the config's
  // strategy.devices, else one cpu device. `user` names who asks, for
  // messages ("multi_worker_mirrored").
  static StatusOr<std::unique_ptr<JobTeam>> form_in_job(
      std::shared_ptr<Runtime> runtime, ClusterSpec cluster, std::unique_ptr<Store> store,
      std::vector<std::string> devices, CommunicationOptions communication,
      StoreHost store_host, std::string_view user);
  // Resolves the job with cluster.resolver, opens its store (cluster.store),
  // then form_in_job().
  static StatusOr<std::unique_ptr<JobTeam>> join(std::shared_ptr<Runtime> runtime,
                                                 std::vector<std::string> devices,
                                                 CommunicationOptions communication,
                                                 std::string_view user);
  // The same for a job already resolved (a resolver object of Python's
  // strata.distribute): validates it, opens its store, then form_in_job().
  static StatusOr<std::unique_ptr<JobTeam>> join(std::shared_ptr<Runtime> runtime,
                                                 ClusterSpec cluster,
                                                 std::vector<std::string> devices,
                                                 CommunicationOptions communication,
                                                 std::string_view user);
  // Tears down the team, then leaves the job: a clean exit is not a death,
  // so peers still finishing do not report this process dead.
  ~JobTeam();
  JobTeam(const JobTeam&) = delete;
  JobTeam& operator=(const JobTeam&) = delete;

  CollectiveOps& ops() { return *ops_; }
  // For an owner that must hold the CollectiveOps itself (a Strategy). The
  // ops keep the store and heartbeats alive, so either may go first.
  std::unique_ptr<CollectiveOps> release_ops() { return std::move(ops_); }
  const std::vector<strata_device_t>& devices() const { return devices_; }
  int rank() const { return rank_; }
  int world() const { return world_; }
  // The job's store (null for a team of one process formed without one).
  Store* store() const;
  // The resolved job, when the team was formed from one.
  const std::optional<ClusterSpec>& cluster() const { return cluster_; }

  // The store and heartbeats, shared with the team's health check.
  struct Membership;

 private:
  JobTeam() = default;

  std::vector<strata_device_t> devices_;
  int rank_ = 0;
  int world_ = 1;
  std::optional<ClusterSpec> cluster_;
  std::shared_ptr<Membership> membership_;
  std::unique_ptr<CollectiveOps> ops_;  // last: goes first
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_JOB_TEAM_H_
