// Multi-replica strategies inside one process. Mirrored: one replica per
// device, variables mirrored on every device, gradients all-reduced by the
// collective layer with whatever algorithm the selector picks.
// CentralStorage: compute replicated the same way, but variables live on one
// device, so a cross-replica sum is a reduce to that device followed by a
// broadcast back (TF's CentralStorageStrategy).
#ifndef STRATA_CORE_STRATEGY_MIRRORED_STRATEGY_H_
#define STRATA_CORE_STRATEGY_MIRRORED_STRATEGY_H_

#include <memory>

#include "core/strategy/strategy.h"

namespace strata {

class MirroredStrategy final : public Strategy {
 public:
  MirroredStrategy(std::vector<strata_device_t> devices,
                   std::unique_ptr<CollectiveOps> collectives);
  std::string_view kind() const override { return "mirrored"; }
};

class CentralStorageStrategy final : public Strategy {
 public:
  // parameter_replica: the replica whose device holds the variables.
  CentralStorageStrategy(std::vector<strata_device_t> devices,
                         std::unique_ptr<CollectiveOps> collectives, int parameter_replica);
  std::string_view kind() const override { return "central_storage"; }
  std::vector<strata_device_t> variable_devices() const override {
    return {devices()[static_cast<size_t>(parameter_replica_)]};
  }
  int parameter_replica() const { return parameter_replica_; }

  Status all_reduce_replicas(ReduceOp op, std::span<std::vector<Tensor*>> per_replica) override;

 private:
  int parameter_replica_;
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_MIRRORED_STRATEGY_H_
