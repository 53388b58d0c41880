#include "core/cluster/resolve.h"

#include <algorithm>
#include <array>

#include "core/cluster/resolvers/builtin_resolvers.h"
#include "core/cluster/resolvers/cluster_spec_sink.h"
#include "core/cluster/resolvers/environment.h"
#include "core/common/logging.h"
#include "core/plugin/abi_status.h"
#include "core/plugin/registry.h"

namespace strata {
namespace {

// auto's order: the schedulers' own descriptions first, most specific
// first; plugins' resolvers next; simple last, since it always answers.
constexpr std::array<std::string_view, 3> kFirst = {"tf_config", "slurm", "mpi"};
constexpr std::string_view kLast = "simple";
constexpr std::string_view kAuto = "auto";
constexpr int kMaxDevicesPerWorker = 1 << 16;

std::string who(const ResolverEntry& entry) {
  std::string text = "cluster resolver '" + entry.name + "'";
  if (entry.plugin != "core") text += " of plugin '" + entry.plugin + "'";
  return text;
}

// One resolver's answer; NOT_SUPPORTED when it declined.
StatusOr<ClusterSpec> run(const ResolverEntry& entry) {
  ClusterSpecSink sink;
  AbiMessage message;
  const strata_status_t status =
      entry.table.resolve(entry.table.user_data, sink.table(), message.view());
  // A refused sink call is a bug in the resolver even if it then declined.
  if (sink.refusal())
    return InvalidArgumentError(who(entry) + ": " + sink.finish().status().message());
  STRATA_RETURN_IF_ERROR(from_abi(status, message, who(entry)));
  StatusOr<ClusterSpec> spec = sink.finish();
  if (!spec.ok()) return spec.status().prefixed(who(entry));
  spec->resolver = entry.name;
  spec->source = entry.plugin == "core" ? builtin_resolver_source(entry.name) : "";
  if (spec->source.empty()) spec->source = who(entry);
  return spec;
}

// "2" or "cpu:2": how many local devices each task drives, when the
// resolver could not know (TF_CONFIG and Slurm do not say).
Status apply_devices_per_worker(const Registry& registry, const Environment& env,
                                ClusterSpec* spec) {
  if (spec->devices_per_task > 0) return Status::Ok();
  const auto text = env.find("STRATA_DEVICES_PER_WORKER");
  if (!text) return Status::Ok();
  const size_t colon = text->find(':');
  const std::string type = colon == std::string::npos ? "" : text->substr(0, colon);
  const std::string count = colon == std::string::npos ? *text : text->substr(colon + 1);
  if ((colon != std::string::npos && !is_valid_name(type)) ||
      !parse_int_variable("", count, 1, kMaxDevicesPerWorker).ok()) {
    return InvalidArgumentError("STRATA_DEVICES_PER_WORKER='" + *text +
                                "' should be a count (2) or type:count (cpu:2), the count from "
                                "1 to " +
                                std::to_string(kMaxDevicesPerWorker));
  }
  if (!type.empty() && registry.find_device_type(type) == nullptr) {
    std::string known;
    for (const auto* t : registry.device_types()) known += (known.empty() ? "" : ", ") + t->name;
    return NotFoundError(
        "STRATA_DEVICES_PER_WORKER='" + *text + "' names device type '" + type +
        "', which nobody registered; registered types: " + (known.empty() ? "none" : known));
  }
  spec->device_type = type;
  spec->devices_per_task = parse_int_variable("", count, 1, kMaxDevicesPerWorker).value();
  return Status::Ok();
}

StatusOr<ClusterSpec> finish(const Registry& registry, const Environment& env, ClusterSpec spec) {
  STRATA_RETURN_IF_ERROR(apply_devices_per_worker(registry, env, &spec));
  STRATA_RETURN_IF_ERROR(spec.validate());
  STRATA_LOG_INFO("cluster: {} from {}", spec.to_string(), spec.source);
  return spec;
}

StatusOr<ClusterSpec> resolve_auto(const Registry& registry, const Environment& env) {
  std::string declined;
  for (const std::string& name : auto_resolver_order(registry)) {
    const ResolverEntry* entry = registry.find_resolver(name);
    if (entry == nullptr) continue;  // unloaded since the order was taken
    StatusOr<ClusterSpec> spec = run(*entry);
    if (spec.ok()) return finish(registry, env, std::move(*spec));
    if (spec.status().code() != Code::kNotSupported) return spec.status();
    STRATA_LOG_DEBUG("cluster.resolver auto: {}", spec.status().message());
    declined += (declined.empty() ? "" : "; ") + spec.status().message();
  }
  return NotFoundError("cluster.resolver auto: no resolver answered (" +
                       (declined.empty() ? std::string("none is registered") : declined) + ")");
}

}  // namespace

std::vector<std::string> auto_resolver_order(const Registry& registry) {
  std::vector<std::string> order;
  for (std::string_view name : kFirst) {
    if (registry.find_resolver(name) != nullptr) order.emplace_back(name);
  }
  for (const ResolverEntry* entry : registry.resolvers()) {  // sorted by name
    const bool placed = std::find(kFirst.begin(), kFirst.end(), entry->name) != kFirst.end() ||
                        entry->name == kLast || entry->name == kAuto;
    if (!placed) order.push_back(entry->name);
  }
  if (registry.find_resolver(kLast) != nullptr) order.emplace_back(kLast);
  return order;
}

StatusOr<ClusterSpec> resolve_cluster(const Registry& registry, std::string_view name) {
  return resolve_cluster(registry, name, *process_environment());
}

StatusOr<ClusterSpec> resolve_cluster(const Registry& registry, std::string_view name,
                                      const Environment& env) {
  if (name == kAuto) return resolve_auto(registry, env);
  const ResolverEntry* entry = registry.find_resolver(name);
  if (entry == nullptr) {
    std::string known(kAuto);
    for (const ResolverEntry* e : registry.resolvers()) known += ", " + e->name;
    return NotFoundError("unknown cluster resolver '" + std::string(name) +
                         "' (cluster.resolver); registered: " + known);
  }
  StatusOr<ClusterSpec> spec = run(*entry);
  if (!spec.ok() && spec.status().code() == Code::kNotSupported) {
    // Named explicitly, a resolver that finds nothing is a mistake, not a
    // reason to fall back: "auto" is how a user asks for falling back.
    return FailedPreconditionError(spec.status().message() + "; cluster.resolver is '" +
                                   std::string(name) +
                                   "', so it must answer (use auto to "
                                   "try the others)");
  }
  if (!spec.ok()) return spec.status();
  return finish(registry, env, std::move(*spec));
}

}  // namespace strata
