#include "test_runtime.h"

#include <gtest/gtest.h>

namespace strata::testing {

std::string devices_name(Devices d) { return d == Devices::kCpu ? "cpu" : "no_peer"; }

std::unique_ptr<TestRuntime> TestRuntime::create() {
  std::unique_ptr<TestRuntime> t(new TestRuntime());
  Config config;
  config.devices.cpu_count = kDevices;
  auto rt = Runtime::create(
      config, RuntimeOptions{.discover_plugins = false,
                             .use_environment = false,
                             .plugin_files = {std::string(STRATA_PLUGIN_DIR) +
                                              "/libstrata_hierarchical_copy.so"}});
  if (!rt.ok()) {
    ADD_FAILURE() << "cannot load the hierarchical_copy plugin: " << rt.status();
    return nullptr;
  }
  const DeviceTypeEntry* cpu = (*rt)->registry().find_device_type("cpu");
  if (cpu == nullptr) {
    ADD_FAILURE() << "no cpu device type";
    return nullptr;
  }
  t->cpu_type_ = cpu->id;
  t->no_peer_ = std::make_unique<NoPeerDeviceType>(sdk::DeviceTable(&cpu->table));
  auto id = (*rt)->registry().add_device_type("hierarchical_copy_test", t->no_peer_->table());
  if (!id.ok()) {
    ADD_FAILURE() << "cannot register the no_peer device type: " << id.status();
    return nullptr;
  }
  t->no_peer_type_ = *id;
  t->runtime_ = std::move(*rt);
  return t;
}

sdk::DeviceTable TestRuntime::table(Devices d) const {
  return sdk::DeviceTable(&runtime_->registry().device_type(type_id(d))->table);
}

StatusOr<std::unique_ptr<CollectiveOps>> TestRuntime::team(Devices d, int n) const {
  TeamSpec spec;
  for (int i = 0; i < n; ++i) spec.local_devices.push_back(strata_device_t{type_id(d), i});
  return CollectiveOps::create(runtime_, std::move(spec));
}

}  // namespace strata::testing
