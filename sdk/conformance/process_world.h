// The run's processes, in --processes mode: each process of a launch
// (`mpirun -np N strata-conformance --processes ...`, or N processes with
// their own cluster config) resolves its rank and the world like any
// Strata worker, opens the job's store, and then every test runs on one
// team of all N processes (one local device each), so world_size == N and
// only CROSS_PROCESS algorithms are tested.
//
// Every call's outcome is exchanged through the store before anyone acts on
// it (agree()), so all processes record the same verdict and keep issuing
// the same calls in the same order, as collectives require; rank 0 prints.
#ifndef STRATA_SDK_CONFORMANCE_PROCESS_WORLD_H_
#define STRATA_SDK_CONFORMANCE_PROCESS_WORLD_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/health_monitor.h"
#include "core/cluster/store.h"
#include "core/collective/collective_ops.h"
#include "core/common/status.h"
#include "core/runtime/runtime.h"
#include "sdk/conformance/call_outcome.h"
#include "sdk/conformance/options.h"

namespace strata::conformance {

class ProcessWorld {
 public:
  // Resolves with options.resolver and opens options.store ("auto": the TCP
  // store the chief hosts at the resolver's address). Errors name both.
  static StatusOr<std::unique_ptr<ProcessWorld>> join(std::shared_ptr<Runtime> runtime,
                                                      const SuiteOptions& options);
  ~ProcessWorld();

  int rank() const { return rank_; }
  int world() const { return world_; }
  std::string describe() const;  // "worker 1 of 4 (resolver mpi, store tcp:host:port)"

  // The team every test shares, built on first use and again after a call
  // broke it. Its id comes from a counter every rank advances alike.
  StatusOr<std::shared_ptr<CollectiveOps>> team(const std::string& device_type);
  void discard_team() { ops_.reset(); }

  // Every rank's outcome of the same call, combined. A rank that reports
  // nothing within `wait` (it died, or its watchdog ended it) fails this
  // call and, through lost(), every later one.
  CallOutcome agree(const CallOutcome& mine, std::chrono::nanoseconds wait);
  // Every rank's `mine` (index = rank), exchanged the way agree() is; an
  // error (and lost() from then on) when a rank reports nothing in time.
  StatusOr<std::vector<std::string>> exchange(const std::string& mine,
                                              std::chrono::nanoseconds wait);
  const std::string& lost() const { return lost_; }

  // Tells the others this rank finished on purpose (no "dead peer" reports).
  void leave();

 private:
  ProcessWorld() = default;

  std::shared_ptr<Runtime> runtime_;
  ClusterSpec spec_;
  std::string store_name_;
  std::chrono::nanoseconds formation_timeout_{};
  int rank_ = 0;
  int world_ = 1;
  std::unique_ptr<Store> store_;
  std::unique_ptr<HealthMonitor> health_;
  std::shared_ptr<CollectiveOps> ops_;
  uint64_t teams_built_ = 0;
  uint64_t agreements_ = 0;
  std::string lost_;
};

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_PROCESS_WORLD_H_
