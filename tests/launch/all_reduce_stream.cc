// A worker of the failure tests: joins the job its environment describes
// (TF_CONFIG through resolver auto) with MultiWorkerMirrored on one CPU
// device, says "worker R joined" on stderr, then all-reduces a small tensor
// --iterations times. The worker whose rank is --die-rank kills itself with
// SIGKILL after --die-after calls, as a crashed or OOM-killed process
// would; the one whose rank is --stop-rank stops itself with SIGSTOP after
// --stop-after calls, as a hung or swapped-out one would; the one whose
// rank is --slow-rank sleeps --slow-ms before every --slow-every-th call,
// so the others wait long enough for their health checks to run.
// Exit status: 0 when every call succeeded, 3 when a call failed (the
// Status on stderr).
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "core/runtime/runtime.h"
#include "core/strategy/multi_worker_mirrored_strategy.h"

namespace {

struct Options {
  std::string plugin;
  int iterations = 1000;
  int die_rank = -1;
  int die_after = 0;
  int stop_rank = -1;
  int stop_after = 0;
  int slow_rank = -1;
  int slow_every = 1;
  int slow_ms = 0;
};

int run(const Options& o) {
  using namespace strata;
  Config config;
  config.devices.cpu_count = 1;
  config.cluster.heartbeat = std::chrono::milliseconds(200);
  config.cluster.rendezvous_timeout = std::chrono::seconds(30);
  config.collectives.timeout = std::chrono::seconds(60);
  RuntimeOptions ro;
  ro.discover_plugins = false;
  ro.plugin_files = {o.plugin};
  auto runtime = Runtime::create(config, ro);
  if (!runtime.ok()) {
    std::cerr << "runtime: " << runtime.status() << "\n";
    return 2;
  }
  auto strategy = MultiWorkerMirroredStrategy::create(*runtime, {"cpu:0"});
  if (!strategy.ok()) {
    std::cerr << "strategy: " << strategy.status() << "\n";
    return 2;
  }
  const int rank = (*strategy)->worker_rank();
  std::cerr << "worker " << rank << " joined" << std::endl;
  std::vector<float> data(1024, 1.0f);
  const Buffer b{data.data(), DType::kF32, data.size(), (*strategy)->devices()[0]};
  for (int i = 0; i < o.iterations; ++i) {
    if (rank == o.die_rank && i == o.die_after) std::raise(SIGKILL);
    if (rank == o.stop_rank && i == o.stop_after) std::raise(SIGSTOP);
    if (rank == o.slow_rank && o.slow_every > 0 && i % o.slow_every == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(o.slow_ms));
    }
    Status s = (*strategy)->collectives()->all_reduce({&b, 1}, {&b, 1}, ReduceOp::kMax);
    if (!s.ok()) {
      std::cerr << "worker " << rank << " failed at call " << i << ": " << s << "\n";
      return 3;
    }
  }
  std::cout << "worker " << rank << ": " << o.iterations << " all-reduces done\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--plugin") o.plugin = argv[i + 1];
    else if (arg == "--iterations") o.iterations = std::atoi(argv[i + 1]);
    else if (arg == "--die-rank") o.die_rank = std::atoi(argv[i + 1]);
    else if (arg == "--die-after") o.die_after = std::atoi(argv[i + 1]);
    else if (arg == "--stop-rank") o.stop_rank = std::atoi(argv[i + 1]);
    else if (arg == "--stop-after") o.stop_after = std::atoi(argv[i + 1]);
    else if (arg == "--slow-rank") o.slow_rank = std::atoi(argv[i + 1]);
    else if (arg == "--slow-every") o.slow_every = std::atoi(argv[i + 1]);
    else if (arg == "--slow-ms") o.slow_ms = std::atoi(argv[i + 1]);
    else {
      std::cerr << "unknown option " << arg << "\n";
      return 2;
    }
  }
  return run(o);
}
