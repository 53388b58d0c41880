#include "tests/loader/loader_test_util.h"

#include <cstdlib>
#include <fstream>

namespace strata::loader_test {

fs::path fake_dir(std::string_view variant) {
  return fs::path(STRATA_FAKE_PLUGIN_ROOT) / variant;
}

fs::path fake_file(std::string_view variant, std::string_view stem) {
  const std::string file = "libstrata_fake_" + std::string(stem.empty() ? variant : stem) + ".so";
  return fake_dir(variant) / file;
}

std::shared_ptr<Runtime> make_runtime(const std::vector<fs::path>& dirs, Config config,
                                      bool use_environment) {
  config.plugins.path.insert(config.plugins.path.end(), dirs.begin(), dirs.end());
  RuntimeOptions options;
  options.use_environment = use_environment;
  auto runtime = Runtime::create(std::move(config), options);
  // Every test here needs a Runtime: a failure to make one is not the case
  // under test, so it stops the test at once.
  if (!runtime.ok()) {
    ADD_FAILURE() << "Runtime::create failed: " << runtime.status();
    return nullptr;
  }
  return *runtime;
}

const PluginRecord* record_of(const Runtime& runtime, const fs::path& file) {
  const PluginRecord* found = nullptr;
  int matches = 0;
  for (const PluginRecord& r : runtime.loader().records()) {
    if (r.path == file) {
      found = &r;
      ++matches;
    }
  }
  EXPECT_EQ(matches, 1) << "records of " << file;
  return found;
}

void expect_nothing_left(const Runtime& runtime, const std::string& plugin,
                         const fs::path& file) {
  EXPECT_TRUE(runtime.registry().registered_by(plugin).empty())
      << plugin << " still has tables registered";
  for (const AlgorithmEntry* a : runtime.registry().algorithms()) {
    EXPECT_FALSE(a->id.starts_with(plugin + "/")) << a->id << " survived the refusal";
    EXPECT_NE(a->plugin, plugin) << a->id << " survived the refusal";
  }
  if (!file.empty()) {
    EXPECT_FALSE(is_mapped(file)) << file << " is still loaded";
  }
}

bool is_mapped(const fs::path& file) {
  std::ifstream maps("/proc/self/maps");
  const std::string wanted = fs::weakly_canonical(file).string();
  std::string line;
  while (std::getline(maps, line)) {
    if (line.ends_with(wanted)) return true;
  }
  return false;
}

std::unique_ptr<CollectiveOps> make_ops(const std::shared_ptr<Runtime>& runtime,
                                        CommunicationOptions options) {
  auto devices = runtime->devices("cpu", kReplicas);
  if (!devices.ok()) {
    ADD_FAILURE() << devices.status();
    return nullptr;
  }
  TeamSpec spec;
  spec.local_devices = *devices;
  auto ops = CollectiveOps::create(runtime, std::move(spec), std::move(options));
  if (!ops.ok()) {
    ADD_FAILURE() << ops.status();
    return nullptr;
  }
  return std::move(*ops);
}

Status all_reduce_via(CollectiveOps& ops, std::string_view algorithm,
                      const CallOptions& options) {
  const auto& devices = ops.team().devices();
  std::vector<std::vector<float>> data(kReplicas, std::vector<float>(kCount));
  std::vector<Buffer> buffers;
  for (int r = 0; r < kReplicas; ++r) {
    for (uint64_t i = 0; i < kCount; ++i) {
      data[static_cast<size_t>(r)][i] = static_cast<float>(r + 1) + static_cast<float>(i);
    }
    buffers.push_back(Buffer{data[static_cast<size_t>(r)].data(), DType::kF32, kCount,
                             devices[static_cast<size_t>(r)]});
  }
  CallOptions call = options;
  call.algorithm = std::string(algorithm);
  Status status = ops.all_reduce(buffers, buffers, ReduceOp::kSum, call);
  if (!status.ok()) return status;
  // sum over r of (r + 1 + i) = 1 + 2 + 3 + 4 + 4i
  for (int r = 0; r < kReplicas; ++r) {
    for (uint64_t i = 0; i < kCount; ++i) {
      const float want = 10.0f + 4.0f * static_cast<float>(i);
      EXPECT_EQ(data[static_cast<size_t>(r)][i], want) << "replica " << r << " element " << i;
    }
  }
  return status;
}

void expect_real_all_reduce_works(const std::shared_ptr<Runtime>& runtime) {
  ASSERT_NE(runtime->registry().find_algorithm(kRealAllReduce), nullptr)
      << kRealAllReduce << " is not registered";
  auto ops = make_ops(runtime);
  ASSERT_NE(ops, nullptr);
  const Status status = all_reduce_via(*ops, kRealAllReduce);
  EXPECT_TRUE(status.ok()) << status;
}

std::string expect_refused(std::string_view variant, std::string name) {
  SCOPED_TRACE("fake plugin " + std::string(variant));
  if (name.empty()) name = "fake_" + std::string(variant);
  const fs::path file = fake_file(variant);
  LogCapture log;
  auto runtime = make_runtime({fake_dir(variant)});
  if (runtime == nullptr) return {};
  const PluginRecord* record = record_of(*runtime, file);
  if (record == nullptr) return {};
  EXPECT_EQ(record->state, PluginRecord::State::kRefused) << state_name(record->state);
  const auto lines = log.lines_with(file.string());
  EXPECT_EQ(lines.size(), 1u) << "log lines about " << file;
  for (const auto& line : lines) {
    EXPECT_TRUE(line.starts_with("warning plugin ")) << line;
    EXPECT_TRUE(line.ends_with(" refused (" + file.string() + "): " + record->reason)) << line;
  }
  expect_nothing_left(*runtime, name, file);
  expect_real_all_reduce_works(runtime);
  return record->reason;
}

ScopedEnv::ScopedEnv(std::string name, std::optional<std::string> value)
    : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str())) saved_ = old;
  if (value) {
    ::setenv(name_.c_str(), value->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

ScopedEnv::~ScopedEnv() {
  if (saved_) {
    ::setenv(name_.c_str(), saved_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

}  // namespace strata::loader_test
