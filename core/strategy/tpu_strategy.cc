#include "core/strategy/tpu_strategy.h"

#include <algorithm>

#include "core/collective/buffer.h"
#include "core/plugin/plugin_loader.h"
#include "core/plugin/registry.h"

namespace strata {
namespace {

// "hierarchical_copy, mpi", or "none": what the user has, for the error.
std::string loaded_plugins(const Runtime& runtime) {
  std::string names;
  for (const PluginRecord& p : runtime.loader().records()) {
    if (p.state != PluginRecord::State::kLoaded || p.builtin) continue;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return names.empty() ? "none" : names;
}

StatusOr<std::vector<strata_device_t>> tpu_devices(const Runtime& runtime,
                                                   const std::vector<std::string>& names) {
  const std::string type(TPUStrategy::kDeviceType);
  const DeviceTypeEntry* entry = runtime.registry().find_device_type(type);
  if (entry == nullptr) {
    return FailedPreconditionError("TPUStrategy needs devices of type '" + type +
                                   "'; no loaded plugin provides one (loaded: " +
                                   loaded_plugins(runtime) + ")");
  }
  if (names.empty()) {
    STRATA_ASSIGN_OR_RETURN(int count, runtime.device_count(type));
    if (count == 0) {
      return FailedPreconditionError("TPUStrategy: the '" + type + "' device type (plugin " +
                                     entry->plugin + ") has no devices");
    }
    return runtime.devices(type, count);
  }
  std::vector<strata_device_t> devices;
  for (const std::string& name : names) {
    STRATA_ASSIGN_OR_RETURN(strata_device_t d, runtime.parse_device(name));
    if (d.type != entry->id) {
      return InvalidArgumentError("TPUStrategy runs on '" + type + "' devices, not " + name);
    }
    if (!runtime.device_exists(d)) {
      return NotFoundError("device " + name + " does not exist (see `strata info` for the " +
                           "devices of each type)");
    }
    if (std::any_of(devices.begin(), devices.end(), [&](strata_device_t o) { return o == d; })) {
      return InvalidArgumentError("device " + name + " is listed twice; each replica needs " +
                                  "its own core");
    }
    devices.push_back(d);
  }
  return devices;
}

}  // namespace

StatusOr<std::unique_ptr<TPUStrategy>> TPUStrategy::create(
    std::shared_ptr<Runtime> runtime, const std::vector<std::string>& devices,
    const CommunicationOptions& communication) {
  if (runtime == nullptr) return InvalidArgumentError("TPUStrategy needs a Runtime");
  STRATA_ASSIGN_OR_RETURN(std::vector<strata_device_t> cores, tpu_devices(*runtime, devices));
  TeamSpec spec;
  spec.local_devices = cores;
  STRATA_ASSIGN_OR_RETURN(auto collectives,
                          CollectiveOps::create(std::move(runtime), std::move(spec), communication));
  return std::unique_ptr<TPUStrategy>(new TPUStrategy(std::move(cores), std::move(collectives)));
}

}  // namespace strata
