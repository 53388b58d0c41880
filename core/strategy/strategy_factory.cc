#include "core/strategy/strategy_factory.h"

#include <algorithm>

#include "core/strategy/default_strategy.h"
#include "core/strategy/mirrored_strategy.h"
#include "core/strategy/multi_worker_mirrored_strategy.h"
#include "core/strategy/parameter_server/parameter_server_strategy.h"
#include "core/strategy/tpu_strategy.h"

namespace strata {
namespace {

StatusOr<std::vector<strata_device_t>> resolve_devices(const Runtime& runtime,
                                                       const std::vector<std::string>& names,
                                                       int default_count) {
  if (names.empty()) {
    int count = default_count;
    if (count < 0) {
      STRATA_ASSIGN_OR_RETURN(count, runtime.device_count("cpu"));
    }
    return runtime.devices("cpu", count);
  }
  std::vector<strata_device_t> devices;
  for (const std::string& name : names) {
    STRATA_ASSIGN_OR_RETURN(strata_device_t d, runtime.parse_device(name));
    if (!runtime.device_exists(d)) {
      return NotFoundError("device " + name + " does not exist (see `strata info` for the " +
                           "devices of each type)");
    }
    if (std::find_if(devices.begin(), devices.end(),
                     [&](strata_device_t o) { return o == d; }) != devices.end()) {
      return InvalidArgumentError("device " + name + " is listed twice; each replica needs " +
                                  "its own device");
    }
    devices.push_back(d);
  }
  return devices;
}

StatusOr<std::unique_ptr<CollectiveOps>> team_for(std::shared_ptr<Runtime> runtime,
                                                  const std::vector<strata_device_t>& devices,
                                                  const CommunicationOptions& communication) {
  TeamSpec spec;
  spec.local_devices = devices;
  return CollectiveOps::create(std::move(runtime), std::move(spec), communication);
}

}  // namespace

namespace {

StatusOr<std::unique_ptr<Strategy>> make_unnamed(std::shared_ptr<Runtime> runtime,
                                                 std::string_view kind,
                                                 const StrategyOptions& options);

}  // namespace

StatusOr<std::unique_ptr<Strategy>> make_strategy(std::shared_ptr<Runtime> runtime,
                                                  std::string_view kind,
                                                  const StrategyOptions& options) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Strategy> strategy,
                          make_unnamed(runtime, kind, options));
  if (runtime != nullptr && kind != "default") {
    std::vector<std::string> names;
    for (strata_device_t d : strategy->devices()) names.push_back(runtime->device_name(d));
    strategy->set_device_names(std::move(names));
  }
  return strategy;
}

namespace {

StatusOr<std::unique_ptr<Strategy>> make_unnamed(std::shared_ptr<Runtime> runtime,
                                                 std::string_view kind,
                                                 const StrategyOptions& options) {
  if (kind == "default") {
    if (!options.devices.empty()) {
      return InvalidArgumentError("the default strategy takes no devices (it does not "
                                  "distribute); use one_device or mirrored");
    }
    return std::unique_ptr<Strategy>(std::make_unique<DefaultStrategy>());
  }
  if (runtime == nullptr) return InvalidArgumentError("strategy '" + std::string(kind) +
                                                      "' needs a Runtime");
  const std::chrono::nanoseconds timeout =
      options.communication.timeout.value_or(runtime->config().collectives.timeout);
  if (kind == "one_device") {
    if (options.devices.size() > 1) {
      return InvalidArgumentError("one_device takes one device, got " +
                                  std::to_string(options.devices.size()));
    }
    STRATA_ASSIGN_OR_RETURN(auto devices, resolve_devices(*runtime, options.devices, 1));
    return std::unique_ptr<Strategy>(std::make_unique<OneDeviceStrategy>(devices[0], timeout));
  }
  if (kind == "mirrored" || kind == "central_storage") {
    STRATA_ASSIGN_OR_RETURN(auto devices, resolve_devices(*runtime, options.devices, -1));
    STRATA_ASSIGN_OR_RETURN(auto collectives, team_for(runtime, devices, options.communication));
    if (kind == "mirrored") {
      return std::unique_ptr<Strategy>(
          std::make_unique<MirroredStrategy>(std::move(devices), std::move(collectives)));
    }
    int parameter_replica = 0;
    if (!options.parameter_device.empty()) {
      STRATA_ASSIGN_OR_RETURN(strata_device_t p, runtime->parse_device(options.parameter_device));
      auto it = std::find_if(devices.begin(), devices.end(),
                             [&](strata_device_t o) { return o == p; });
      if (it == devices.end()) {
        return InvalidArgumentError("parameter_device " + options.parameter_device +
                                    " is not one of the strategy's devices");
      }
      parameter_replica = static_cast<int>(it - devices.begin());
    }
    return std::unique_ptr<Strategy>(std::make_unique<CentralStorageStrategy>(
        std::move(devices), std::move(collectives), parameter_replica));
  }
  if (kind == "multi_worker_mirrored") {
    STRATA_ASSIGN_OR_RETURN(auto strategy, MultiWorkerMirroredStrategy::create(
                                               runtime, options.devices, options.communication));
    return std::unique_ptr<Strategy>(std::move(strategy));
  }
  if (kind == "parameter_server") {
    if (!options.devices.empty()) {
      return InvalidArgumentError("parameter_server takes no devices: each worker is one "
                                  "replica on cpu:0");
    }
    STRATA_ASSIGN_OR_RETURN(auto strategy, ParameterServerStrategy::create(runtime));
    return std::unique_ptr<Strategy>(std::move(strategy));
  }
  if (kind == "tpu") {
    STRATA_ASSIGN_OR_RETURN(auto strategy, TPUStrategy::create(runtime, options.devices,
                                                               options.communication));
    return std::unique_ptr<Strategy>(std::move(strategy));
  }
  return InvalidArgumentError("unknown strategy '" + std::string(kind) +
                              "'; expected one of: default, one_device, mirrored, "
                              "central_storage, multi_worker_mirrored, parameter_server, tpu");
}

}  // namespace

StatusOr<std::unique_ptr<Strategy>> make_strategy_from_config(
    std::shared_ptr<Runtime> runtime, CommunicationOptions communication) {
  const StrategyConfig& config = runtime->config().strategy;
  StrategyOptions options;
  options.devices = config.devices;
  options.parameter_device = config.parameter_device;
  options.communication = std::move(communication);
  auto strategy = make_strategy(runtime, config.kind, options);
  if (!strategy.ok()) {
    return strategy.status().prefixed(runtime->config().source + ": strategy");
  }
  return strategy;
}

}  // namespace strata
