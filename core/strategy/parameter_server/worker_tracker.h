// What a ps knows about each worker: when it last heard from it, whether it
// said it is done, whether it is idle (waiting for steps, so synchronous
// rounds must not wait for it), and whether it was declared dead. Not
// thread-safe: the ParameterServer holding it serialises every call.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_WORKER_TRACKER_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_WORKER_TRACKER_H_

#include <chrono>
#include <string>
#include <vector>

#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata::ps {

class WorkerTracker {
 public:
  // A worker silent for `timeout` after its first contact is dead; one
  // never heard from is dead `startup_timeout` after `start`.
  WorkerTracker(int num_workers, std::chrono::nanoseconds timeout,
                std::chrono::nanoseconds startup_timeout, Deadline start);

  int size() const { return static_cast<int>(workers_.size()); }
  // Records contact. FAILED_PRECONDITION for a worker declared dead (its
  // steps went to others) or one that said done; INVALID_ARGUMENT out of range.
  Status touch(int worker, Deadline now);
  void set_idle(int worker, bool idle);
  void mark_done(int worker);
  // Declares dead every worker silent past its deadline; returns them.
  std::vector<int> expire(Deadline now);
  // Workers a synchronous round waits for: not done, dead or idle.
  int active() const;
  // Every worker done or dead: the ps may stop.
  bool all_finished() const;
  int dead_count() const;
  bool is_dead(int worker) const { return workers_.at(static_cast<size_t>(worker)).dead; }
  // "worker 1 (done)", for logs.
  std::string describe(int worker) const;
  // The earliest moment expire() may find someone, for wake-ups.
  Deadline next_expiry() const;

 private:
  struct Worker {
    bool seen = false;
    bool idle = false;
    bool done = false;
    bool dead = false;
    Deadline last{};
  };
  Deadline deadline_of(const Worker& w) const;

  std::vector<Worker> workers_;
  std::chrono::nanoseconds timeout_;
  std::chrono::nanoseconds startup_timeout_;
  Deadline start_;
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_WORKER_TRACKER_H_
