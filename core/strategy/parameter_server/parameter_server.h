// ParameterServer: the state of one ps task — its shards of the center
// variable, the scheme's server half, which workers are alive, and (on ps
// task 0) the StepCoordinator. Transport-free: the TCP server and the
// in-process transport both hand it decoded frames, so unit tests exercise
// the same checks as real jobs. Thread-safe; one lock, since the work per
// request is a few vector passes.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_H_

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/common/clock.h"
#include "core/strategy/parameter_server/ps_wire.h"
#include "core/strategy/parameter_server/scheme.h"
#include "core/strategy/parameter_server/step_coordinator.h"
#include "core/strategy/parameter_server/worker_tracker.h"

namespace strata::ps {

struct ParameterServerOptions {
  int ps_index = 0;
  int num_workers = 1;
  bool coordinator = false;  // ps 0 schedules the steps
  std::string token;         // empty: no token configured (any client)
  std::chrono::nanoseconds worker_timeout = std::chrono::seconds(5);
  std::chrono::nanoseconds startup_timeout = std::chrono::seconds(120);
  // How long a pull waiting for a synchronous round is held before the
  // worker is told NOT_READY and asks again.
  std::chrono::nanoseconds pull_wait = std::chrono::milliseconds(200);
};

// One authenticated connection's view: whose it is and its last sequence.
struct Session {
  int worker = -1;
  uint64_t last_seq = 0;
  std::string peer;  // for logs: "127.0.0.1:51234" or "in-process"
};

class ParameterServer {
 public:
  ParameterServer(ParameterServerOptions options, std::shared_ptr<const Scheme> scheme);

  // Checks a hello; PERMISSION_DENIED (and a log line naming the peer) for
  // a wrong or missing token, INVALID_ARGUMENT for a worker out of range.
  StatusOr<Session> admit(const Hello& hello, const std::string& peer);
  // One request; the reply frame to send. Never fails: a bad request gets
  // an ERROR reply saying what was wrong.
  Frame handle(Session& session, const Frame& request);

  // Declares silent workers dead (re-queueing their steps) and completes
  // rounds they left; the server loop calls it a few times a second.
  void tick();
  bool finished() const;
  // Until every worker is done or dead, or `deadline` (TIMED_OUT).
  Status wait_finished(Deadline deadline);

  // Tests: a shard's state (nullopt before any init).
  std::optional<ShardState> shard(uint32_t id) const;
  int64_t steps_requeued() const;
  // The coordinator's count of steps done, and the job's total (-1 before
  // the first next_step); on ps 0 only.
  int64_t steps_done() const;
  int64_t steps_total() const;
  int workers_dead() const;
  const std::string& name() const { return name_; }

 private:
  StatusOr<std::string> dispatch(int worker, Op op, std::string_view payload);
  StatusOr<std::string> init(int worker, std::string_view payload);
  StatusOr<std::string> pull(std::string_view payload, bool* not_ready);
  StatusOr<std::string> push(int worker, std::string_view payload);
  StatusOr<std::string> next_step(int worker, std::string_view payload);
  StatusOr<std::string> step_done(int worker, std::string_view payload);
  StatusOr<ShardState*> find_shard(uint32_t id);
  // Under mu_: expire silent workers, complete rounds.
  void tick_locked(Deadline now);
  void complete_rounds_locked();

  ParameterServerOptions options_;
  std::shared_ptr<const Scheme> scheme_;
  std::string name_;

  mutable std::mutex mu_;
  std::condition_variable changed_;  // a round completed, a worker left
  std::map<uint32_t, ShardState> shards_;
  std::map<uint32_t, int> shard_owner_;  // who initialised it, for messages
  WorkerTracker workers_;
  StepCoordinator coordinator_;
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_H_
