// Loading the nccl plugin the way users get it (the loader, the build
// tree's plugin file). On a machine without a GPU or driver — CI — it must
// load, register nothing selectable, and say why in exactly one log line.
// With a GPU it must register the cuda device type (one device per visible
// GPU) and its five algorithms.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include "core/common/logging.h"
#include "core/runtime/runtime.h"
#include "plugin_runtime.h"

namespace strata {
namespace {

using nccl_test::kPlugin;
using nccl_test::visible_gpus;

// Copies core's log lines ("<level> <text>") at info and above while alive.
class LogCapture {
 public:
  LogCapture()
      : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(out_)), level_(logger().level()) {
    sink_->set_pattern("%l %v");
    sink_->set_level(spdlog::level::info);
    logger().sinks().push_back(sink_);
    logger().set_level(std::min(level_, spdlog::level::info));
  }
  ~LogCapture() {
    auto& sinks = logger().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    logger().set_level(level_);
  }
  std::vector<std::string> lines_with(const std::string& needle) const {
    std::vector<std::string> out;
    std::istringstream in(out_.str());
    for (std::string line; std::getline(in, line);) {
      if (line.find(needle) != std::string::npos) out.push_back(line);
    }
    return out;
  }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  spdlog::level::level_enum level_;
};

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
