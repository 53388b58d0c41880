#include "core/strategy/mirrored_strategy.h"

namespace strata {

MirroredStrategy::MirroredStrategy(std::vector<strata_device_t> devices,
                                   std::unique_ptr<CollectiveOps> collectives)
    : Strategy(std::move(devices), std::move(collectives)) {}

CentralStorageStrategy::CentralStorageStrategy(std::vector<strata_device_t> devices,
                                               std::unique_ptr<CollectiveOps> collectives,
                                               int parameter_replica)
    : Strategy(std::move(devices), std::move(collectives)),
      parameter_replica_(parameter_replica) {}

Status CentralStorageStrategy::all_reduce_replicas(ReduceOp op,
                                                   std::span<std::vector<Tensor*>> per_replica) {
  STRATA_RETURN_IF_ERROR(check_replica_values(per_replica));
  if (num_replicas_in_sync() == 1 || collectives() == nullptr) return Status();
  // The values meet on the parameter device, where the variables are, and
  // the result goes back out to every replica.
  return on_devices(replica_buffers(per_replica), [&](const DeviceStaging::Lists& buffers) {
    const size_t tensors = buffers.front().size();
    std::vector<Buffer> column(buffers.size());
    for (size_t t = 0; t < tensors; ++t) {
      for (size_t r = 0; r < buffers.size(); ++r) column[r] = buffers[r][t];
      STRATA_RETURN_IF_ERROR(collectives()->reduce(column, column, op, parameter_replica_));
      STRATA_RETURN_IF_ERROR(collectives()->broadcast(column, column, parameter_replica_));
    }
    return Status();
  });
}

}  // namespace strata
