// What the tests of the nccl plugin as users load it share: how many GPUs
// this process sees, and a Runtime with only the build tree's nccl plugin.
#ifndef STRATA_TESTS_NCCL_PLUGIN_RUNTIME_H_
#define STRATA_TESTS_NCCL_PLUGIN_RUNTIME_H_

#include <cuda_runtime_api.h>

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "core/runtime/runtime.h"

namespace strata::nccl_test {

inline const std::filesystem::path kPlugin =
    std::filesystem::path(STRATA_PLUGIN_DIR) / "libstrata_nccl.so";

// Visible GPUs; 0 with `why` saying what CUDA answered when there are none.
inline int visible_gpus(std::string* why = nullptr) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  (void)cudaGetLastError();
  if (e != cudaSuccess) n = 0;
  if (n == 0 && why != nullptr) {
    *why = std::string("no usable GPU: cudaGetDeviceCount: ") + cudaGetErrorName(e) +
           ", 0 device(s)";
  }
  return n;
}

// A Runtime that loads the nccl plugin and nothing from the environment.
inline std::shared_ptr<Runtime> load_nccl_plugin() {
  RuntimeOptions options;
  options.discover_plugins = false;
  options.plugin_files = {kPlugin};
  auto runtime = Runtime::create({}, options);
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return runtime.ok() ? *runtime : nullptr;
}

}  // namespace strata::nccl_test

#endif  // STRATA_TESTS_NCCL_PLUGIN_RUNTIME_H_
