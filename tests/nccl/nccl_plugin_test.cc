// Loading the nccl plugin the way users get it (the loader, the build
// tree's plugin file). On a machine without a GPU or driver — CI — it must
// load, register nothing selectable, and say why in exactly one log line.
// With a GPU it must register the cuda device type (one device per visible
// GPU) and its five algorithms.
#include <cuda_runtime_api.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/runtime/runtime.h"
#include "plugin_runtime.h"
#include "tests/common/log_capture.h"

namespace strata {
namespace {

using nccl_test::kPlugin;
using nccl_test::visible_gpus;
using strata::testing::LogCapture;

const PluginRecord* nccl_record(const Runtime& runtime) {
  for (const PluginRecord& r : runtime.loader().records()) {
    if (r.name == "nccl") return &r;
  }
  return nullptr;
}

TEST(NcclPlugin, LoadsAndSaysWhatItRegistered) {
  LogCapture log;
  auto runtime = nccl_test::load_nccl_plugin();
  ASSERT_NE(runtime, nullptr);
  const PluginRecord* record = nccl_record(*runtime);
  ASSERT_NE(record, nullptr) << "no record of " << kPlugin;
  EXPECT_EQ(record->state, PluginRecord::State::kLoaded) << record->reason;

  const std::vector<std::string> registered = runtime->registry().registered_by("nccl");
  const int gpus = visible_gpus();
  if (gpus == 0) {
    // Nothing selectable: no device type, no algorithm, and one reason.
    EXPECT_TRUE(registered.empty()) << "registered " << registered.size() << " things, first "
                                    << (registered.empty() ? "" : registered[0]);
    EXPECT_EQ(runtime->registry().find_device_type("cuda"), nullptr);
    const auto lines = log.lines_with("nccl: ");
    ASSERT_EQ(lines.size(), 1u) << "expected one line from the plugin";
    EXPECT_NE(lines[0].find("nccl: no CUDA device (cudaGetDeviceCount"), std::string::npos)
        << lines[0];
    EXPECT_NE(lines[0].find("); registering nothing"), std::string::npos) << lines[0];
    std::cout << "the plugin said: " << lines[0] << "\n";
    return;
  }
  auto count = runtime->device_count("cuda");
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(*count, gpus);
  for (const char* op : {"all_reduce", "broadcast", "all_gather", "reduce_scatter", "reduce"}) {
    EXPECT_NE(runtime->registry().find_algorithm(std::string("nccl/") + op + "/native"), nullptr)
        << op;
  }
  EXPECT_EQ(log.lines_with("CUDA device(s), NCCL ").size(), 1u);
}

}  // namespace
}  // namespace strata
