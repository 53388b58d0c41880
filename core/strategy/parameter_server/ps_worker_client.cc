#include "core/strategy/parameter_server/ps_worker_client.h"

#include <algorithm>

namespace strata::ps {

PsWorkerClient::PsWorkerClient(int worker, std::vector<PsTarget> targets,
                               ShardPlacement placement, std::chrono::nanoseconds request_timeout,
                               std::chrono::nanoseconds heartbeat)
    : worker_(worker),
      targets_(std::move(targets)),
      placement_(std::move(placement)),
      request_timeout_(request_timeout),
      clocks_(placement_.shards().size(), 0),
      joined_(placement_.shards().size(), 0) {
  beats_ = std::thread([this, heartbeat] { heartbeat_loop(heartbeat); });
}

PsWorkerClient::~PsWorkerClient() { stop_heartbeats(); }

void PsWorkerClient::stop_heartbeats() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (beats_.joinable()) beats_.join();
}

Status PsWorkerClient::dead_ps(int ps, const Status& cause) const {
  const std::string who = "ps " + std::to_string(ps) + " at " +
                          targets_[static_cast<size_t>(ps)].main->address();
  const Code c = cause.code();
  if (c == Code::kUnavailable || c == Code::kTimedOut || c == Code::kDataLoss ||
      c == Code::kAborted) {
    return PeerFailedError("parameter server " + who + " is gone (" + cause.message() +
                           "); training cannot go on without its variables");
  }
  return cause.prefixed("worker " + std::to_string(worker_) + " -> " + who);
}

StatusOr<Frame> PsWorkerClient::call(int ps, Op op, std::string payload, Deadline deadline) {
  StatusOr<Frame> reply =
      targets_[static_cast<size_t>(ps)].main->call(op, std::move(payload), deadline);
  if (!reply.ok()) return dead_ps(ps, reply.status());
  return reply;
}

Status PsWorkerClient::init(std::span<const float> model) {
  if (model.size() != placement_.total()) {
    return InvalidArgumentError("the model has " + std::to_string(model.size()) +
                                " floats but the placement covers " +
                                std::to_string(placement_.total()));
  }
  const Deadline deadline = Clock::now() + request_timeout_;
  for (const Shard& s : placement_.shards()) {
    std::string p = PayloadWriter().u32(s.id).floats(model.subspan(s.offset, s.count)).take();
    STRATA_RETURN_IF_ERROR(call(s.ps, Op::kInit, std::move(p), deadline).status());
  }
  return Status::Ok();
}

StatusOr<std::vector<float>> PsWorkerClient::pull(bool after_sync_push) {
  std::vector<float> model(placement_.total());
  const Deadline deadline = Clock::now() + request_timeout_;
  for (const Shard& s : placement_.shards()) {
    const int64_t min_round = after_sync_push ? joined_[s.id] + 1 : 0;
    for (;;) {
      STRATA_ASSIGN_OR_RETURN(
          Frame reply,
          call(s.ps, Op::kPull, PayloadWriter().u32(s.id).i64(min_round).take(), deadline));
      if (reply.op == Op::kOk) {
        PayloadReader r(reply.payload);
        clocks_[s.id] = r.i64("clock");
        (void)r.i64("round");
        std::vector<float> values = r.floats("shard value", static_cast<int64_t>(s.count));
        STRATA_RETURN_IF_ERROR(r.status("pull reply for shard " + s.name));
        std::copy(values.begin(), values.end(), model.begin() + static_cast<ptrdiff_t>(s.offset));
        break;
      }
      if (Clock::now() >= deadline) {
        return dead_ps(s.ps, TimedOutError("synchronous round " + std::to_string(min_round - 1) +
                                           " of shard " + s.name + " did not complete in time"));
      }
      STRATA_RETURN_IF_ERROR(health());
    }
  }
  return model;
}

Status PsWorkerClient::push(std::span<const float> payload) {
  const Deadline deadline = Clock::now() + request_timeout_;
  for (const Shard& s : placement_.shards()) {
    std::string p = PayloadWriter()
                        .u32(s.id)
                        .i64(clocks_[s.id])
                        .floats(payload.subspan(s.offset, s.count))
                        .take();
    STRATA_ASSIGN_OR_RETURN(Frame reply, call(s.ps, Op::kPush, std::move(p), deadline));
    PayloadReader r(reply.payload);
    joined_[s.id] = r.i64("round");
    STRATA_RETURN_IF_ERROR(r.status("push reply for shard " + s.name));
  }
  return Status::Ok();
}

StatusOr<int64_t> PsWorkerClient::next_step(int64_t total_steps) {
  STRATA_ASSIGN_OR_RETURN(Frame reply, call(0, Op::kNextStep, PayloadWriter().i64(total_steps).take(),
                                            Clock::now() + request_timeout_));
  PayloadReader r(reply.payload);
  const int64_t step = r.i64("step");
  STRATA_RETURN_IF_ERROR(r.status("next_step reply"));
  return step;
}

Status PsWorkerClient::step_done(int64_t step) {
  return call(0, Op::kStepDone, PayloadWriter().i64(step).take(), Clock::now() + request_timeout_)
      .status();
}

Status PsWorkerClient::set_idle(bool idle) {
  for (int ps = 0; ps < static_cast<int>(targets_.size()); ++ps) {
    STRATA_RETURN_IF_ERROR(call(ps, Op::kIdle, PayloadWriter().u8(idle ? 1 : 0).take(),
                                Clock::now() + request_timeout_)
                               .status());
  }
  return Status::Ok();
}

Status PsWorkerClient::done() {
  // After its done a ps refuses this worker's heartbeats; stop them first.
  stop_heartbeats();
  Status first;
  for (int ps = 0; ps < static_cast<int>(targets_.size()); ++ps) {
    Status s = call(ps, Op::kDone, {}, Clock::now() + request_timeout_).status();
    if (first.ok()) first = s;  // tell the others even if one is gone
  }
  return first;
}

Status PsWorkerClient::health() const {
  std::lock_guard lock(mu_);
  return health_;
}

void PsWorkerClient::heartbeat_loop(std::chrono::nanoseconds every) {
  std::unique_lock lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, every, [this] { return stop_; });
    if (stop_ || !health_.ok()) continue;
    lock.unlock();
    Status failed;
    for (int ps = 0; ps < static_cast<int>(targets_.size()) && failed.ok(); ++ps) {
      StatusOr<Frame> r = targets_[static_cast<size_t>(ps)].heartbeat->call(
          Op::kHeartbeat, {}, Clock::now() + request_timeout_);
      // A ps that already saw every worker leave may stop: not a failure
      // of this worker's job, and the main channel reports real ones.
      if (!r.ok() && r.status().code() != Code::kFailedPrecondition) failed = dead_ps(ps, r.status());
    }
    lock.lock();
    if (!failed.ok() && health_.ok()) health_ = failed;
  }
}

}  // namespace strata::ps

