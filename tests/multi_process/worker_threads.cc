#include "worker_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/store.h"
#include "core/plugin/registry.h"

namespace strata::testing {

void run_workers(const std::shared_ptr<Runtime>& rt, int workers, int local,
                 const std::function<void(MultiWorkerMirroredStrategy&)>& body) {
  // A space of its own per job: the keys of earlier jobs stay in the store.
  static std::atomic<int> next_job{0};
  const std::string space = "worker_threads_" + std::to_string(next_job++);
  ClusterSpec cluster;
  cluster.jobs["worker"] = std::vector<std::string>(static_cast<size_t>(workers), "");
  cluster.resolver = "test";
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w, cluster]() mutable {
      cluster.task_index = w;
      auto store = open_store(*rt->registry().find_store_type("memory"), space, w, workers,
                              deadline_after(std::chrono::seconds(5)));
      ASSERT_TRUE(store.ok()) << "worker " << w << ": " << store.status();
      std::vector<std::string> devices;
      for (int l = 0; l < local; ++l) devices.push_back("cpu:" + std::to_string(w * local + l));
      auto strategy =
          MultiWorkerMirroredStrategy::create_in_job(rt, cluster, std::move(*store), devices);
      ASSERT_TRUE(strategy.ok()) << "worker " << w << ": " << strategy.status();
      body(**strategy);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace strata::testing
