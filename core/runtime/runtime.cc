#include "core/runtime/runtime.h"

#include <charconv>

#include "core/cluster/file_store.h"
#include "core/cluster/memory_store.h"
#include "core/cluster/tcp_store_type.h"
#include "core/cluster/resolvers/builtin_resolvers.h"
#include "core/device/cpu_device_type.h"
#include "core/plugin/abi_status.h"

namespace strata {

LoaderOptions Runtime::loader_options(const Config& config, const RuntimeOptions& options) {
  LoaderOptions l;
  l.config_paths = config.plugins.path;
  l.enable = config.plugins.enable;
  l.disable = config.plugins.disable;
  l.options = config.plugins.options;
  // A plugin's store type is bounded like the TCP store (registrar.h).
  const StoreLimits& limits = config.cluster.store_limits;
  l.job_settings = {{"cluster.store_max_bytes", std::to_string(limits.max_bytes)},
                    {"cluster.store_max_keys", std::to_string(limits.max_keys)},
                    {"cluster.store_max_value", std::to_string(limits.max_value_bytes)}};
  l.use_environment = options.use_environment;
  l.use_install_dir = options.discover_plugins;
  l.quarantined = options.quarantined;
  return l;
}

namespace {

void register_core(sdk::Registrar& r, const Config& config) {
  CpuDeviceOptions cpu;
  cpu.count = config.devices.cpu_count;
  cpu.memory_per_device = config.devices.cpu_memory;
  r.add_device_type(std::make_unique<CpuDeviceType>(cpu));
  add_builtin_resolvers(r);  // tf_config, slurm, simple (docs/CLUSTER.md)
  r.add_store_type(make_memory_store_type());
  r.add_store_type(make_file_store_type());
  r.add_store_type(make_tcp_store_type(config.cluster.store_limits));
}

}  // namespace

StatusOr<std::shared_ptr<Runtime>> Runtime::create(Config config, RuntimeOptions options) {
  std::shared_ptr<Runtime> rt(new Runtime());
  STRATA_RETURN_IF_ERROR(rt->init(std::move(config), options));
  return rt;
}

StatusOr<std::shared_ptr<Runtime>> Runtime::from_config_file(const std::filesystem::path& path,
                                                             RuntimeOptions options) {
  STRATA_ASSIGN_OR_RETURN(Config config, load_config_file(path));
  return create(std::move(config), std::move(options));
}

StatusOr<std::shared_ptr<Runtime>> Runtime::from_choice(const ConfigChoice& choice,
                                                        Config built_in, RuntimeOptions options) {
  STRATA_ASSIGN_OR_RETURN(Config config, load_chosen_config(choice, std::move(built_in)));
  return create(std::move(config), std::move(options));
}

Runtime::~Runtime() {
  loader_.reset();  // unload plugins while the registry still exists
}

Status Runtime::init(Config config, const RuntimeOptions& options) {
  config_ = std::move(config);
  registry_ = std::make_unique<Registry>();
  loader_ = std::make_unique<PluginLoader>(*registry_);
  const LoaderOptions lopts = loader_options(config_, options);
  STRATA_RETURN_IF_ERROR(loader_->register_builtin(
      "core", "built-in CPU devices and stores",
      [&](sdk::Registrar& r) { register_core(r, config_); }, lopts));
  if (options.discover_plugins || !config_.plugins.path.empty()) {
    loader_->load_all(lopts);
  }
  for (const auto& file : options.plugin_files) {
    auto loaded = loader_->load_file(file, lopts);
    if (!loaded.ok()) return loaded.status();
  }
  return validate_config(config_, *registry_);
}

StatusOr<strata_device_t> Runtime::parse_device(std::string_view name) const {
  const auto colon = name.find(':');
  const std::string_view type = name.substr(0, colon);
  int index = 0;
  if (colon == std::string_view::npos) {
    return InvalidArgumentError("device '" + std::string(name) +
                                "' should be written TYPE:INDEX, e.g. cpu:0");
  }
  const std::string_view digits = name.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || index < 0) {
    return InvalidArgumentError("device '" + std::string(name) + "' has a bad index");
  }
  const DeviceTypeEntry* entry = registry_->find_device_type(type);
  if (entry == nullptr) {
    std::string known;
    for (const auto* t : registry_->device_types()) known += (known.empty() ? "" : ", ") + t->name;
    return NotFoundError("unknown device type '" + std::string(type) + "' in '" +
                         std::string(name) + "'; registered types: " + known);
  }
  const strata_device_t device{entry->id, index};
  if (!device_exists(device)) {
    return NotFoundError("device '" + std::string(name) + "' does not exist; this process has " +
                         std::to_string(device_count(type).value()) + " " + entry->name +
                         " device(s)");
  }
  return device;
}

std::string Runtime::device_name(strata_device_t device) const {
  const DeviceTypeEntry* entry = registry_->device_type(device.type);
  const std::string type = entry == nullptr ? "type" + std::to_string(device.type) : entry->name;
  return type + ":" + std::to_string(device.index);
}

bool Runtime::device_exists(strata_device_t device) const {
  const DeviceTypeEntry* entry = registry_->device_type(device.type);
  if (entry == nullptr) return false;
  AbiMessage m;
  int32_t count = 0;
  if (entry->table.device_count(entry->table.user_data, &count, m.view()) != STRATA_OK) {
    return false;
  }
  return device.index >= 0 && device.index < count;
}

StatusOr<int> Runtime::device_count(std::string_view type) const {
  const DeviceTypeEntry* entry = registry_->find_device_type(type);
  if (entry == nullptr) return NotFoundError("unknown device type '" + std::string(type) + "'");
  AbiMessage m;
  int32_t count = 0;
  STRATA_RETURN_IF_ERROR(from_abi(entry->table.device_count(entry->table.user_data, &count, m.view()),
                                  m, entry->name + " device_count"));
  return static_cast<int>(count);
}

StatusOr<std::vector<strata_device_t>> Runtime::devices(std::string_view type, int count) const {
  STRATA_ASSIGN_OR_RETURN(int available, device_count(type));
  if (count < 1 || count > available) {
    return InvalidArgumentError("asked for " + std::to_string(count) + " " + std::string(type) +
                                " device(s) but this process has " + std::to_string(available) +
                                (type == "cpu" ? " (raise devices.cpu.count in the config)" : ""));
  }
  const uint32_t id = registry_->find_device_type(type)->id;
  std::vector<strata_device_t> out;
  for (int i = 0; i < count; ++i) out.push_back({id, i});
  return out;
}

}  // namespace strata
