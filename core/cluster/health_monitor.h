// HealthMonitor: is every peer of a job still alive? Each rank's monitor
// bumps its own heartbeat counter in the job store every `interval` from a
// background thread and watches everyone else's. check() names the peers
// that are gone: a rank the TCP store saw disconnect without a goodbye
// ("departed", known at once), one whose counter has not moved for
// kMissedBeats intervals, or the rank that hosts the store (the chief, for
// the TCP store) once the store itself stops answering for as long or
// closes. A rank that called leave() finished cleanly and is never
// reported. Keys: core/cluster/health_keys.h, at the store's root — hand it
// the job store itself, not a PrefixStore, or departures made known by the
// TCP server are not seen (heartbeats still are).
#ifndef STRATA_CORE_CLUSTER_HEALTH_MONITOR_H_
#define STRATA_CORE_CLUSTER_HEALTH_MONITOR_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/store.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

// The rank whose process serves the job store, when one does (the TCP
// store: rank 0, the chief), so a store that stops answering is reported as
// that rank's failure rather than as an unreadable store.
struct StoreHost {
  int rank = -1;         // -1: no rank hosts it (memory, file, a service)
  std::string address;   // for messages: "127.0.0.1:29500"
};

class HealthMonitor {
 public:
  static constexpr int kMissedBeats = 3;

  // Starts beating at once. `store` must outlive the monitor and be safe to
  // use from two threads (every built-in store is). describe_rank(r) names
  // a rank in messages ("worker 1"); without it, ranks are numbers alone.
  HealthMonitor(Store& store, int rank, int world, std::chrono::nanoseconds interval,
                std::function<std::string(int)> describe_rank = {}, StoreHost host = {});
  // Stops the thread; waits at most for one store request in flight.
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  // OK, or PEER_FAILED naming every dead peer:
  //   "worker 1 (rank 1 of 2) has not been heard from for 3.2 s"
  //   "worker 2 (rank 2 of 4) departed: its store connection closed without
  //    a goodbye"
  //   "worker 0 (rank 0 of 3), the chief, which hosts the job store at
  //    10.0.0.1:29500, stopped answering: no reply for 3.0 s"
  // Takes a fresh reading, but never waits longer than silence_limit() for
  // the store, before leave() and after. A store without a host that cannot
  // be read gives its own error, prefixed "cannot read the job store".
  // Messages do not start with "health check": callers that mix them into
  // errors of their own say that (core/collective/progress.cc).
  Status check();

  // Marks this rank as finished on purpose and stops beating; peers will
  // not report it. Skipped (with an error saying so) when the store has
  // stopped answering, so leaving never waits on a dead store. Afterwards
  // the store is read only when check() asks.
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
  // One beat and a reading of every peer's counter into peers_.
  Status round();
  // One store request, timed so check() can tell a store that stopped.
  StatusOr<int64_t> ask(const std::string& key, int64_t delta);
  // The verdicts, with mu_ held.
  Status peers_verdict(Clock::time_point now) const;
  Status store_silent(std::chrono::nanoseconds silent) const;
  Status store_failed(const Status& failure) const;
  std::optional<std::chrono::nanoseconds> silent_for(Clock::time_point now) const;
  bool hosted_elsewhere() const { return host_.rank >= 0 && host_.rank != rank_; }
  std::string name(int rank) const;
  std::string host_name() const;

  Store& store_;
  const int rank_;
  const int world_;
  const std::chrono::nanoseconds interval_;
  const std::function<std::string(int)> describe_rank_;
  const StoreHost host_;

  std::mutex mu_;  // guards everything below
  std::condition_variable wake_;
  bool stop_ = false;
  bool left_ = false;
  Status thread_error_;
  std::vector<Peer> peers_;
  // check() asks for a round that starts after it was called (wanted_) and
  // waits until one has finished (finished_: the wanted_ a round started at).
  uint64_t wanted_ = 0;
  uint64_t finished_ = 0;
  Status last_round_;                          // how the last finished round went
  std::optional<Clock::time_point> asking_since_;  // a store request in flight
  std::thread thread_;  // last: starts after the rest is built
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_HEALTH_MONITOR_H_
