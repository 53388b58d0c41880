// PsWorkerClient: a worker's side of the job — a channel to every ps task
// (plus one more each for heartbeats, so a pull parked on a synchronous
// round does not delay them), the shard placement, and the clocks and
// rounds each shard was last seen at. It scatters the flat model into
// shards on push and gathers them on pull. Any failure to reach a ps is
// reported as that ps being dead, naming its task and address.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_WORKER_CLIENT_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_WORKER_CLIENT_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/strategy/parameter_server/ps_channel.h"
#include "core/strategy/parameter_server/shard_placement.h"

namespace strata::ps {

struct PsTarget {
  std::unique_ptr<PsChannel> main;
  std::unique_ptr<PsChannel> heartbeat;
};

class PsWorkerClient {
 public:
  // targets[i] is ps task i. Heartbeats start at once, every `heartbeat`.
  PsWorkerClient(int worker, std::vector<PsTarget> targets, ShardPlacement placement,
                 std::chrono::nanoseconds request_timeout, std::chrono::nanoseconds heartbeat);
  ~PsWorkerClient();  // stops the heartbeats (does not say done)

  int worker() const { return worker_; }
  const ShardPlacement& placement() const { return placement_; }

  // Offers `model` as every shard's initial value (the first worker's wins).
  Status init(std::span<const float> model);
  // The whole center. after_sync_push: wait for the rounds the last push
  // joined to complete (synchronous schemes).
  StatusOr<std::vector<float>> pull(bool after_sync_push = false);
  // Pushes payload's slice to every shard, with the clock last pulled.
  Status push(std::span<const float> payload);

  // The coordinator (ps 0): a step, kWait or kFinished.
  StatusOr<int64_t> next_step(int64_t total_steps);
  Status step_done(int64_t step);
  // Tells every ps whether synchronous rounds should wait for this worker.
  Status set_idle(bool idle);
  // Tells every ps this worker is leaving; they stop when all have.
  Status done();
  // The first heartbeat failure, if any (a ps died between requests).
  Status health() const;

 private:
  // One request to ps `ps`, failures named after it.
  StatusOr<Frame> call(int ps, Op op, std::string payload, Deadline deadline);
  Status dead_ps(int ps, const Status& cause) const;
  void heartbeat_loop(std::chrono::nanoseconds every);
  void stop_heartbeats();

  int worker_;
  std::vector<PsTarget> targets_;
  ShardPlacement placement_;
  std::chrono::nanoseconds request_timeout_;
  std::vector<int64_t> clocks_;  // per shard, at the last pull
  std::vector<int64_t> joined_;  // per shard, the round the last push joined

  mutable std::mutex mu_;  // guards stop_, health_
  std::condition_variable wake_;
  bool stop_ = false;
  Status health_;
  std::thread beats_;
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_WORKER_CLIENT_H_
