// MultiWorkerMirroredStrategy (TF's tf.distribute.MultiWorkerMirroredStrategy):
// synchronous training over several processes ("workers"), each with one or
// more local devices; replicas = local devices x workers, numbered worker by
// worker. Variables are mirrored on every replica and start from the chief's
// values; gradients are all-reduced over the whole team — by one algorithm
// when a plugin covers that shape, else composed by core as local reduce →
// cross-process all-reduce → local broadcast.
//
// The job comes from a cluster resolver (TF_CONFIG, Slurm, mpirun, simple),
// its processes meet through the job's rendezvous store, and each proves it
// is alive with heartbeats, so a collective stuck on a dead worker ends with
// an error naming that worker instead of waiting out the timeout.
#ifndef STRATA_CORE_STRATEGY_MULTI_WORKER_MIRRORED_STRATEGY_H_
#define STRATA_CORE_STRATEGY_MULTI_WORKER_MIRRORED_STRATEGY_H_

#include <memory>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/health_monitor.h"
#include "core/cluster/job_team.h"
#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"
#include "core/strategy/strategy.h"

namespace strata {

class MultiWorkerMirroredStrategy final : public Strategy {
 public:
  // `devices`: this worker's devices; empty: the resolver's devices per
  // task (strata launch --devices-per-worker), else one cpu device.
  static StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> create(
      std::shared_ptr<Runtime> runtime, std::vector<std::string> devices = {},
      CommunicationOptions communication = {});
  // The same, for a job already resolved and a store already open (tests
  // run workers as threads over a memory store; embedders with their own
  // discovery). `store` is shared by this worker's collectives;
  // `store_host` names the rank whose process serves it, if any, so the
  // health check can name that rank when the store stops answering.
  static StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> create_in_job(
      std::shared_ptr<Runtime> runtime, ClusterSpec cluster, std::unique_ptr<Store> store,
      std::vector<std::string> devices = {}, CommunicationOptions communication = {},
      StoreHost store_host = {});
  ~MultiWorkerMirroredStrategy() override;

  static constexpr std::string_view kind_name() { return "multi_worker_mirrored"; }
  std::string_view kind() const override { return kind_name(); }
  const ClusterSpec& cluster() const { return cluster_; }

  Status broadcast_from_chief(std::span<Tensor* const> copies) override;

 private:
  MultiWorkerMirroredStrategy(std::vector<strata_device_t> devices,
                              std::unique_ptr<CollectiveOps> collectives, ClusterSpec cluster,
                              std::unique_ptr<JobTeam> job);
  static std::unique_ptr<MultiWorkerMirroredStrategy> from_job(std::unique_ptr<JobTeam> job);

  ClusterSpec cluster_;
  std::unique_ptr<JobTeam> job_;  // its ops are the base's; they keep its store alive
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_MULTI_WORKER_MIRRORED_STRATEGY_H_
