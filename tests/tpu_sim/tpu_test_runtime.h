// What every tpu_sim test needs: a Runtime that loads the in-tree plugin
// (and nothing from the environment) with the slice shape and options a
// test asks for, and teams of its cores.
#ifndef STRATA_TESTS_TPU_SIM_TPU_TEST_RUNTIME_H_
#define STRATA_TESTS_TPU_SIM_TPU_TEST_RUNTIME_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"
#include "strata/sdk/device_table.h"

namespace strata::testing {

using PluginOptions = std::map<std::string, std::string>;

// "rows x cols" slice plus `options` for plugins.options.tpu_sim; with
// `general`, hierarchical_copy is loaded too (fallbacks, Mirrored on cpu).
StatusOr<std::shared_ptr<Runtime>> tpu_runtime(int rows, int cols, PluginOptions options = {},
                                               bool general = false, int cpu_devices = 4);

// The table of the "tpu" device type of `runtime`.
sdk::DeviceTable tpu_table(const Runtime& runtime);

// A team of the given tpu cores, in that order.
StatusOr<std::unique_ptr<CollectiveOps>> tpu_team(std::shared_ptr<Runtime> runtime,
                                                  const std::vector<int>& cores);

std::string plugin_file(const std::string& name);  // in STRATA_PLUGIN_DIR

}  // namespace strata::testing

#endif  // STRATA_TESTS_TPU_SIM_TPU_TEST_RUNTIME_H_
