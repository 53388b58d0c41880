// A Runtime with the in-tree hierarchical_copy plugin and nothing from the
// environment, for tests that run real collectives on virtual CPU devices.
#ifndef STRATA_TESTS_CORE_CORE_TEST_RUNTIME_H_
#define STRATA_TESTS_CORE_CORE_TEST_RUNTIME_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/runtime/runtime.h"
#include "strata/sdk/device_table.h"

namespace strata::testing {

inline std::shared_ptr<Runtime> make_runtime(int cpu_count) {
  Config config;
  config.devices.cpu_count = cpu_count;
  auto rt = Runtime::create(
      config, RuntimeOptions{.discover_plugins = false,
                             .use_environment = false,
                             .plugin_files = {std::string(STRATA_PLUGIN_DIR) +
                                              "/libstrata_hierarchical_copy.so"}});
  EXPECT_TRUE(rt.ok()) << rt.status();
  return rt.ok() ? *rt : nullptr;
}

// The cpu device type's table, to allocate and copy like a plugin would.
inline sdk::DeviceTable cpu_table(const Runtime& rt) {
  return sdk::DeviceTable(&rt.registry().find_device_type("cpu")->table);
}

}  // namespace strata::testing

#endif  // STRATA_TESTS_CORE_CORE_TEST_RUNTIME_H_
