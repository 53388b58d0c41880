#include "core/strategy/multi_worker_mirrored_strategy.h"


#include "core/cluster/health_monitor.h"
#include "core/cluster/job_store.h"
#include "core/cluster/resolve.h"
#include "core/common/logging.h"

namespace strata {

// What a worker needs from the job while its team lives: the store and the
// heartbeats. Owned jointly by the strategy and the team's health check,
// so it outlives every collective that may still ask for health.
struct WorkerJob {
  std::unique_ptr<Store> store;
  std::unique_ptr<HealthMonitor> health;

  ~WorkerJob() {
    // A clean exit is not a death: peers still finishing must not report
    // this worker dead once its heartbeats stop.
    if (health != nullptr) {
      Status left = health->leave();
      if (!left.ok()) STRATA_LOG_DEBUG("leaving the job: {}", left.to_string());
    }
    health.reset();
    store.reset();
  }
};

namespace {

// Team ids must agree across workers: the n-th strategy each worker builds
// in this job gets the n-th id. Counted in the job store per rank (not per
// process), so workers that share a process (tests, embedders) agree too.
StatusOr<uint64_t> next_strategy_team_id(Store& store, int rank) {
  STRATA_ASSIGN_OR_RETURN(int64_t n, store.add("mwms/strategies/" + std::to_string(rank), 1));
  return (uint64_t{1} << 40) + static_cast<uint64_t>(n);
}

StatusOr<std::vector<strata_device_t>> worker_devices(const Runtime& runtime,
                                                      const ClusterSpec& cluster,
                                                      std::vector<std::string> names) {
  if (names.empty() && cluster.devices_per_task > 0) {
    return runtime.devices(cluster.device_type.empty() ? "cpu" : cluster.device_type,
                           cluster.devices_per_task);
  }
  if (names.empty()) names = runtime.config().strategy.devices;
  if (names.empty()) return runtime.devices("cpu", 1);
  std::vector<strata_device_t> devices;
  for (const std::string& name : names) {
    STRATA_ASSIGN_OR_RETURN(strata_device_t d, runtime.parse_device(name));
    if (!runtime.device_exists(d)) {
      return NotFoundError("device " + name + " does not exist on this worker");
    }
    devices.push_back(d);
  }
  return devices;
}

}  // namespace

StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> MultiWorkerMirroredStrategy::create(
    std::shared_ptr<Runtime> runtime, std::vector<std::string> devices,
    CommunicationOptions communication) {
  const ClusterConfig& config = runtime->config().cluster;
  STRATA_ASSIGN_OR_RETURN(ClusterSpec cluster,
                          resolve_cluster(runtime->registry(), config.resolver));
  if (!cluster.rank()) {
    return InvalidArgumentError("task " + cluster.task_type + " " +
                                std::to_string(cluster.task_index) +
                                " has no place in multi_worker_mirrored: only the chief and "
                                "workers train (" + cluster.to_string() + ")");
  }
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Store> store,
                          open_job_store(runtime->registry(), cluster, config));
  StoreHost host = job_store_host(cluster, config);
  return create_in_job(std::move(runtime), std::move(cluster), std::move(store),
                       std::move(devices), std::move(communication), std::move(host));
}

StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> MultiWorkerMirroredStrategy::create_in_job(
    std::shared_ptr<Runtime> runtime, ClusterSpec cluster, std::unique_ptr<Store> store,
    std::vector<std::string> devices, CommunicationOptions communication, StoreHost store_host) {
  const ClusterConfig& config = runtime->config().cluster;
  const std::optional<int> rank = cluster.rank();
  if (!rank) {
    return InvalidArgumentError("task " + cluster.task_type + " " +
                                std::to_string(cluster.task_index) +
                                " has no place in multi_worker_mirrored: only the chief and "
                                "workers train (" + cluster.to_string() + ")");
  }
  const int world = cluster.world_size();
  STRATA_ASSIGN_OR_RETURN(std::vector<strata_device_t> local,
                          worker_devices(*runtime, cluster, std::move(devices)));

  auto job = std::make_shared<WorkerJob>();
  job->store = std::move(store);
  auto describe = [cluster](int r) { return cluster.task_name_of_rank(r); };
  job->health = std::make_unique<HealthMonitor>(*job->store, *rank, world, config.heartbeat,
                                                describe, std::move(store_host));

  TeamSpec spec;
  spec.local_devices = local;
  spec.process_rank = *rank;
  spec.process_count = world;
  spec.store = job->store.get();
  STRATA_ASSIGN_OR_RETURN(spec.team_id, next_strategy_team_id(*job->store, *rank));
  spec.formation_timeout = config.rendezvous_timeout;
  spec.describe_process = describe;
  spec.health_check = [job] { return job->health->check(); };
  auto collectives = CollectiveOps::create(runtime, std::move(spec), std::move(communication));
  if (!collectives.ok()) {
    return collectives.status().prefixed("multi_worker_mirrored: forming the team of " +
                                         std::to_string(world) + " workers (" +
                                         cluster.to_string() + ")");
  }
  STRATA_LOG_INFO("multi_worker_mirrored: {}, {} local device(s), {} replicas",
                  cluster.to_string(), local.size(), world * static_cast<int>(local.size()));
  return std::unique_ptr<MultiWorkerMirroredStrategy>(new MultiWorkerMirroredStrategy(
      std::move(local), std::move(*collectives), std::move(cluster), std::move(job)));
}

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(
    std::vector<strata_device_t> devices, std::unique_ptr<CollectiveOps> collectives,
    ClusterSpec cluster, std::shared_ptr<WorkerJob> job)
    : Strategy(std::move(devices), std::move(collectives)),
      cluster_(std::move(cluster)),
      job_(std::move(job)) {
  set_workers(*cluster_.rank(), cluster_.world_size());
}

MultiWorkerMirroredStrategy::~MultiWorkerMirroredStrategy() = default;

Status MultiWorkerMirroredStrategy::broadcast_from_chief(std::span<Tensor* const> copies) {
  DeviceStaging::Lists per_replica;
  for (size_t i = 0; i < copies.size(); ++i) {
    copies[i]->set_device(devices()[i]);
    per_replica.push_back({copies[i]->buffer()});
  }
  return on_devices(per_replica, [&](const DeviceStaging::Lists& lists) {
    std::vector<Buffer> buffers;
    for (const auto& list : lists) buffers.push_back(list.front());
    return collectives()->broadcast(buffers, buffers, /*root=*/0);
  });
}

}  // namespace strata
