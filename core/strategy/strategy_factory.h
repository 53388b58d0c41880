// Building a strategy by name, from code or from the YAML config's
// `strategy:` section (kind, devices, parameter_device).
#ifndef STRATA_CORE_STRATEGY_STRATEGY_FACTORY_H_
#define STRATA_CORE_STRATEGY_STRATEGY_FACTORY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"
#include "core/strategy/strategy.h"

namespace strata {

struct StrategyOptions {
  // "cpu:0", ...; empty: one_device uses cpu:0, mirrored and
  // central_storage every cpu device the runtime has.
  std::vector<std::string> devices;
  std::string parameter_device;  // central_storage; empty: the first device
  CommunicationOptions communication;  // implementation, bytes_per_pack, timeout
};

// kind: default | one_device | mirrored | central_storage | multi_worker_mirrored |
// parameter_server (ParameterServerStrategy; strategy.* keys from the config)
// (which resolves the cluster, joins the job store and forms the team).
StatusOr<std::unique_ptr<Strategy>> make_strategy(std::shared_ptr<Runtime> runtime,
                                                  std::string_view kind,
                                                  const StrategyOptions& options = {});

// The strategy the runtime's config describes; `communication` overrides
// the config's collectives section.
StatusOr<std::unique_ptr<Strategy>> make_strategy_from_config(
    std::shared_ptr<Runtime> runtime, CommunicationOptions communication = {});

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_STRATEGY_FACTORY_H_
