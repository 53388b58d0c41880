#include "core/cluster/resolvers/environment_resolver.h"

#include <utility>

#include "strata/sdk/error.h"

namespace strata {

EnvironmentResolver::EnvironmentResolver(std::string name, std::string description,
                                         std::shared_ptr<const Environment> env)
    : sdk::Resolver(std::move(name), std::move(description)), env_(std::move(env)) {}

void EnvironmentResolver::resolve(sdk::ClusterSink& sink) {
  StatusOr<ClusterSpec> spec = describe();
  if (!spec.ok()) {
    throw sdk::Error(static_cast<strata_status_t>(spec.status().code()), spec.status().message());
  }
  for (const auto& [job, addresses] : spec->jobs) {
    for (size_t i = 0; i < addresses.size(); ++i) {
      sink.add_task(job, static_cast<int>(i), addresses[i]);
    }
  }
  sink.set_self(spec->task_type, spec->task_index);
  if (!spec->rpc_layer.empty()) sink.set_rpc_layer(spec->rpc_layer);
  if (spec->devices_per_task > 0) {
    sink.set_devices_per_task(spec->device_type, spec->devices_per_task);
  }
}

}  // namespace strata
