#include "core/strategy/multi_worker_mirrored_strategy.h"

#include "core/common/logging.h"

namespace strata {

StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> MultiWorkerMirroredStrategy::create(
    std::shared_ptr<Runtime> runtime, std::vector<std::string> devices,
    CommunicationOptions communication) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<JobTeam> job,
                          JobTeam::join(runtime, std::move(devices), std::move(communication),
                                        kind_name()));
  return from_job(std::move(job));
}

StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> MultiWorkerMirroredStrategy::create_in_job(
    std::shared_ptr<Runtime> runtime, ClusterSpec cluster, std::unique_ptr<Store> store,
    std::vector<std::string> devices, CommunicationOptions communication, StoreHost store_host) {
  STRATA_ASSIGN_OR_RETURN(
      std::unique_ptr<JobTeam> job,
      JobTeam::form_in_job(std::move(runtime), std::move(cluster), std::move(store),
                           std::move(devices), std::move(communication), std::move(store_host),
                           kind_name()));
  return from_job(std::move(job));
}

std::unique_ptr<MultiWorkerMirroredStrategy> MultiWorkerMirroredStrategy::from_job(
    std::unique_ptr<JobTeam> job) {
  const ClusterSpec& cluster = *job->cluster();
  STRATA_LOG_INFO("multi_worker_mirrored: {}, {} local device(s), {} replicas",
                  cluster.to_string(), job->devices().size(),
                  job->world() * static_cast<int>(job->devices().size()));
  std::vector<strata_device_t> devices = job->devices();
  std::unique_ptr<CollectiveOps> collectives = job->release_ops();
  return std::unique_ptr<MultiWorkerMirroredStrategy>(new MultiWorkerMirroredStrategy(
      std::move(devices), std::move(collectives), cluster, std::move(job)));
}

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(
    std::vector<strata_device_t> devices, std::unique_ptr<CollectiveOps> collectives,
    ClusterSpec cluster, std::unique_ptr<JobTeam> job)
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
