#include "process_world.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "core/plugin/registry.h"

namespace strata::testing {

std::shared_ptr<Runtime> make_multi_process_runtime(int cpu_count, Config config,
                                                    std::vector<std::string> more_plugins) {
  config.devices.cpu_count = cpu_count;
  std::vector<std::filesystem::path> plugins = {
      std::string(STRATA_PLUGIN_DIR) + "/libstrata_hierarchical_copy.so",
      std::string(STRATA_MULTI_PROCESS_PLUGIN)};
  plugins.insert(plugins.end(), more_plugins.begin(), more_plugins.end());
  auto rt = Runtime::create(config, RuntimeOptions{.discover_plugins = false,
                                                   .use_environment = false,
                                                   .plugin_files = std::move(plugins)});
  if (!rt.ok()) {
    ADD_FAILURE() << rt.status();
    return nullptr;
  }
  return *rt;
}

std::unique_ptr<ProcessWorld> ProcessWorld::create(int processes, int local, Config config,
                                                   std::vector<std::string> more_plugins) {
  static std::atomic<int> next_space{0};
  auto world = std::make_unique<ProcessWorld>();
  world->processes_ = processes;
  world->local_ = local;
  world->runtime_ =
      make_multi_process_runtime(processes * local, std::move(config), std::move(more_plugins));
  if (world->runtime_ == nullptr) return nullptr;
  const StoreTypeEntry* memory = world->runtime_->registry().find_store_type("memory");
  const std::string space = "process_world_" + std::to_string(next_space++);
  for (int p = 0; p < processes; ++p) {
    auto store = open_store(*memory, space, p, processes, deadline_after(std::chrono::seconds(5)));
    if (!store.ok()) {
      ADD_FAILURE() << store.status();
      return nullptr;
    }
    world->stores_.push_back(std::move(*store));
  }
  return world;
}

TeamSpec ProcessWorld::spec(int p) const {
  TeamSpec spec;
  const uint32_t cpu = runtime_->registry().find_device_type("cpu")->id;
  for (int i = 0; i < local_; ++i) spec.local_devices.push_back({cpu, p * local_ + i});
  spec.process_rank = p;
  spec.process_count = processes_;
  spec.store = stores_[static_cast<size_t>(p)].get();
  spec.team_id = team_id_;
  spec.formation_timeout = std::chrono::seconds(20);
  spec.describe_process = [](int r) { return "worker " + std::to_string(r); };
  spec.host_key = "test-host-" + std::to_string(hosts_.empty() ? 0 : hosts_[static_cast<size_t>(p)]);
  return spec;
}

StatusOr<std::unique_ptr<CollectiveOps>> ProcessWorld::team(int p) const {
  CommunicationOptions options;
  options.timeout = std::chrono::seconds(20);
  return CollectiveOps::create(runtime_, spec(p), options);
}

void ProcessWorld::run(const std::function<void(int)>& body, int threads) const {
  if (threads < 0) threads = processes_;
  ++team_id_;
  std::vector<std::thread> pool;
  for (int p = 0; p < threads; ++p) pool.emplace_back(body, p);
  for (auto& t : pool) t.join();
}

}  // namespace strata::testing
