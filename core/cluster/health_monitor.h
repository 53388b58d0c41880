// HealthMonitor: is every peer of a job still alive? Each rank's monitor
// bumps its own heartbeat counter in the job store every `interval` from a
// background thread and watches everyone else's. check() names the peers
// that are gone: a rank the TCP store saw disconnect without a goodbye
// ("departed", known at once) or one whose counter has not moved for
// kMissedBeats intervals. A rank that called leave() finished cleanly and is
// never reported. Keys: core/cluster/health_keys.h, at the store's root —
// hand it the job store itself, not a PrefixStore, or departures made known
// by the TCP server are not seen (heartbeats still are).
#ifndef STRATA_CORE_CLUSTER_HEALTH_MONITOR_H_
#define STRATA_CORE_CLUSTER_HEALTH_MONITOR_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/store.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

class HealthMonitor {
 public:
  static constexpr int kMissedBeats = 3;

  // Starts beating at once. `store` must outlive the monitor and be safe to
  // use from two threads (every built-in store is). describe_rank(r) names
  // a rank in messages ("worker 1"); without it, ranks are numbers alone.
  HealthMonitor(Store& store, int rank, int world, std::chrono::nanoseconds interval,
                std::function<std::string(int)> describe_rank = {});
  // Stops the thread; waits at most for one store request in flight.
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  // OK, or PEER_FAILED naming every dead peer:
  //   "worker 1 (rank 1 of 2) has not been heard from for 3.2 s"
  //   "worker 2 (rank 2 of 4) departed: its store connection closed without
  //    a goodbye"
  // A store that cannot be read gives its own error, prefixed.
  Status check();

  // Marks this rank as finished on purpose and stops beating; peers will
  // not report it.
  Status leave();

  std::chrono::nanoseconds silence_limit() const { return interval_ * kMissedBeats; }

 private:
  struct Peer {
    int64_t beats = -1;  // -1: not read yet
    Clock::time_point changed;
    bool left = false;
    bool departed = false;
  };

  void run();
  Status beat();
  Status sample();  // reads every peer's counter into peers_
  std::string name(int rank) const;

  Store& store_;
  const int rank_;
  const int world_;
  const std::chrono::nanoseconds interval_;
  const std::function<std::string(int)> describe_rank_;

  std::mutex mu_;  // guards everything below
  std::condition_variable wake_;
  bool stop_ = false;
  bool left_ = false;
  Status thread_error_;
  std::vector<Peer> peers_;
  std::thread thread_;  // last: starts after the rest is built
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_HEALTH_MONITOR_H_
