#include "tpu_test_runtime.h"

#include <cstdlib>

#include "core/plugin/registry.h"

namespace strata::testing {

std::string plugin_file(const std::string& name) {
  return std::string(STRATA_PLUGIN_DIR) + "/libstrata_" + name + ".so";
}

StatusOr<std::shared_ptr<Runtime>> tpu_runtime(int rows, int cols, PluginOptions options,
                                               bool general, int cpu_devices) {
  // The variable overrides the config; a test says its shape itself.
  unsetenv("STRATA_TPU_SIM_TOPOLOGY");
  Config config;
  config.devices.cpu_count = cpu_devices;
  options["rows"] = std::to_string(rows);
  options["cols"] = std::to_string(cols);
  config.plugins.options["tpu_sim"] = std::move(options);
  RuntimeOptions ro{.discover_plugins = false, .use_environment = false, .plugin_files = {}};
  ro.plugin_files.push_back(plugin_file("tpu_sim"));
  if (general) ro.plugin_files.push_back(plugin_file("hierarchical_copy"));
  return Runtime::create(std::move(config), std::move(ro));
}

sdk::DeviceTable tpu_table(const Runtime& runtime) {
  return sdk::DeviceTable(&runtime.registry().find_device_type("tpu")->table);
}

StatusOr<std::unique_ptr<CollectiveOps>> tpu_team(std::shared_ptr<Runtime> runtime,
                                                  const std::vector<int>& cores) {
  const DeviceTypeEntry* tpu = runtime->registry().find_device_type("tpu");
  if (tpu == nullptr) return NotFoundError("no tpu device type registered");
  TeamSpec spec;
  for (int c : cores) spec.local_devices.push_back(strata_device_t{tpu->id, c});
  return CollectiveOps::create(std::move(runtime), std::move(spec));
}

}  // namespace strata::testing
