// TPUStrategy (TF's tf.distribute.TPUStrategy): in the seeds' words "the
// same as MirroredStrategy" — synchronous training, one replica per TPU
// core, variables mirrored on every core, gradients all-reduced — except
// that the replicas are the cores of a TPU slice and the all-reduce is the
// TPU's own (its interconnect's collectives, which a plugin registers for
// the device type and AUTO or the config's rules pick).
//
// Core knows nothing of any particular TPU backend: it asks the Runtime for
// devices of type "tpu", whichever loaded plugin provides them, and fails
// clearly when none does.
#ifndef STRATA_CORE_STRATEGY_TPU_STRATEGY_H_
#define STRATA_CORE_STRATEGY_TPU_STRATEGY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"
#include "core/strategy/strategy.h"

namespace strata {

class TPUStrategy final : public Strategy {
 public:
  // The device type whose devices are TPU cores.
  static constexpr std::string_view kDeviceType = "tpu";

  // `devices`: "tpu:0", ... (each must be of type tpu); empty: every tpu
  // device of the runtime, in index order.
  static StatusOr<std::unique_ptr<TPUStrategy>> create(std::shared_ptr<Runtime> runtime,
                                                       const std::vector<std::string>& devices,
                                                       const CommunicationOptions& communication);

  std::string_view kind() const override { return "tpu"; }

 private:
  // Mirrored's behaviour exactly: the Strategy base is what Mirrored is, so
  // nothing is overridden here but the kind.
  TPUStrategy(std::vector<strata_device_t> devices, std::unique_ptr<CollectiveOps> collectives)
      : Strategy(std::move(devices), std::move(collectives)) {}
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_TPU_STRATEGY_H_
