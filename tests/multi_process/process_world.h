// Threads standing in for the processes of a job: one Runtime (with the
// hierarchical_copy and store_exchange plugins), one memory store, and for
// each "process" p a team of local devices cpu:p*L .. cpu:p*L+L-1. Lets the
// multi-process paths of core run inside one test binary.
#ifndef STRATA_TESTS_MULTI_PROCESS_PROCESS_WORLD_H_
#define STRATA_TESTS_MULTI_PROCESS_PROCESS_WORLD_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/store.h"
#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"

namespace strata::testing {

// A Runtime with `cpu_count` CPU devices and the hierarchical_copy and
// store_exchange plugins (and the files in `more_plugins`), otherwise
// configured by `config` (a "process" with its own collectives section, or
// plugin options); nullptr (with a test failure) on error.
std::shared_ptr<Runtime> make_multi_process_runtime(int cpu_count, Config config = {},
                                                    std::vector<std::string> more_plugins = {});

class ProcessWorld {
 public:
  // `processes` x `local` devices, one Runtime made by
  // make_multi_process_runtime(.., config, more_plugins); nullptr (with a
  // test failure) on error.
  static std::unique_ptr<ProcessWorld> create(int processes, int local, Config config = {},
                                              std::vector<std::string> more_plugins = {});

  int processes() const { return processes_; }
  int local() const { return local_; }
  Runtime& runtime() { return *runtime_; }

  // The team spec of process p: its devices, rank, the shared store, and
  // the team id of the current run() (keys of earlier teams stay in the
  // store, so every run gets its own id).
  TeamSpec spec(int p) const;
  StatusOr<std::unique_ptr<CollectiveOps>> team(int p) const;

  // Puts process p on host hosts[p] (by TeamSpec::host_key, so threads of
  // one process stand in for several hosts); default: all on one.
  void set_hosts(std::vector<int> hosts) { hosts_ = std::move(hosts); }

  // Runs body(p) on one thread per process and joins them all.
  void run(const std::function<void(int)>& body, int threads = -1) const;

 private:
  int processes_ = 0;
  int local_ = 0;
  std::shared_ptr<Runtime> runtime_;
  std::vector<std::unique_ptr<Store>> stores_;
  std::vector<int> hosts_;
  mutable uint64_t team_id_ = 100;  // one connection per process
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_MULTI_PROCESS_PROCESS_WORLD_H_
