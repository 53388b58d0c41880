// ParameterServerStrategy (TF's tf.distribute.experimental.
// ParameterServerStrategy with its ClusterCoordinator, in the seeds'
// between-graph style). The job's TF_CONFIG names `ps` tasks and `worker`
// (and `chief`) tasks. A ps task holds shards of the variables and runs
// the chosen scheme's update rule (serve()); ps task 0 also schedules the
// steps. A worker runs steps the coordinator gives it, pulling variables
// and pushing gradients or deltas as its scheme says (fit()). Without any
// ps in the cluster and a single worker, one ps runs as a thread of the
// process, so the same config also trains on one machine.
//
// Each process is one replica on one device: the Strategy API's run,
// reduce and Model::evaluate work locally (num_replicas_in_sync 1); the
// distribution is in fit(). docs/PARAMETER_SERVER.md has the schemes, the
// protocol and the failure behaviour.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_STRATEGY_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_STRATEGY_H_

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/cluster/cluster_spec.h"
#include "core/config/config.h"
#include "core/runtime/runtime.h"
#include "core/strategy/parameter_server/parameter_server_trainer.h"
#include "core/strategy/parameter_server/scheme.h"
#include "core/strategy/strategy.h"

namespace strata {

namespace ps {
class ParameterServer;
}

class ParameterServerStrategy final : public Strategy {
 public:
  // From the runtime's config (strategy.*) and the resolved cluster.
  static StatusOr<std::unique_ptr<ParameterServerStrategy>> create(std::shared_ptr<Runtime> runtime);
  // For a cluster already resolved (tests, embedders).
  static StatusOr<std::unique_ptr<ParameterServerStrategy>> create_in_cluster(
      std::shared_ptr<Runtime> runtime, ClusterSpec cluster, ParameterServerConfig config);
  ~ParameterServerStrategy() override;

  std::string_view kind() const override { return "parameter_server"; }
  bool is_ps_task() const { return ps_index_ >= 0; }
  int ps_index() const { return ps_index_; }          // -1 on a worker
  int ps_worker_index() const { return worker_index_; }  // -1 on a ps task
  int ps_worker_count() const { return num_workers_; }
  int ps_task_count() const;
  const ps::Scheme& scheme() const { return *scheme_; }
  const ParameterServerConfig& config() const { return config_; }
  // "hogwild, worker 1 of 2, 1 ps task(s)", for the demo's first line.
  std::string describe_job() const;

  // ps task: serves until every worker is done or dead, then returns.
  Status serve();
  // worker: trains `network` on every batch of `epochs` passes over
  // `global_batches`; afterwards the network holds the trained center.
  StatusOr<ps::TrainerResult> fit(Mlp& network, ps::TrainLoss loss, const Dataset& global_batches,
                                  int epochs, std::ostream* progress = nullptr);

 private:
  ParameterServerStrategy(strata_device_t device, ClusterSpec cluster,
                          ParameterServerConfig config, std::shared_ptr<const ps::Scheme> scheme);
  StatusOr<std::vector<ps::PsTarget>> connect(Deadline deadline);

  ClusterSpec cluster_;
  ParameterServerConfig config_;
  std::shared_ptr<const ps::Scheme> scheme_;
  std::string token_;
  int ps_index_ = -1;
  int worker_index_ = -1;
  int num_workers_ = 1;
  std::vector<std::string> ps_addresses_;       // empty: local mode
  std::shared_ptr<ps::ParameterServer> local_;  // local mode's ps
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_STRATEGY_H_
