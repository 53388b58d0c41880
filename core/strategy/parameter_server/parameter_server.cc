#include "core/strategy/parameter_server/parameter_server.h"

#include "core/common/logging.h"
#include "strata/sdk/job_token.h"

namespace strata::ps {

ParameterServer::ParameterServer(ParameterServerOptions options,
                                 std::shared_ptr<const Scheme> scheme)
    : options_(std::move(options)),
      scheme_(std::move(scheme)),
      name_("ps " + std::to_string(options_.ps_index)),
      workers_(options_.num_workers, options_.worker_timeout, options_.startup_timeout,
               Clock::now()) {}

StatusOr<Session> ParameterServer::admit(const Hello& hello, const std::string& peer) {
  if (!options_.token.empty() && !sdk::job_tokens_equal(hello.token, options_.token)) {
    STRATA_LOG_WARN("{}: refused a connection from {} claiming worker {}: {} job token", name_,
                    peer, hello.worker, hello.token.empty() ? "no" : "wrong");
    return PermissionDeniedError(name_ + " refused the connection: " +
                                 (hello.token.empty() ? "no" : "wrong") +
                                 " job token (set STRATA_JOB_TOKEN or STRATA_JOB_TOKEN_FILE "
                                 "to the job's)");
  }
  if (hello.worker < 0 || hello.worker >= options_.num_workers) {
    return InvalidArgumentError(name_ + " serves workers 0.." +
                                std::to_string(options_.num_workers - 1) + ", not worker " +
                                std::to_string(hello.worker));
  }
  Session session;
  session.worker = hello.worker;
  session.peer = peer;
  return session;
}

Frame ParameterServer::handle(Session& session, const Frame& request) {
  Frame reply;
  reply.seq = request.seq;
  if (request.seq != session.last_seq + 1) {
    reply.op = Op::kError;
    reply.payload = encode_error(InvalidArgumentError(
        name_ + ": request " + std::to_string(request.seq) + " from worker " +
        std::to_string(session.worker) + " out of sequence (expected " +
        std::to_string(session.last_seq + 1) + ")"));
    return reply;
  }
  session.last_seq = request.seq;
  bool not_ready = false;
  StatusOr<std::string> out = InternalError("unreachable");
  if (request.op == Op::kPull) {
    out = pull(request.payload, &not_ready);
    std::lock_guard lock(mu_);
    if (Status s = workers_.touch(session.worker, Clock::now()); !s.ok()) out = s;
  } else {
    out = dispatch(session.worker, request.op, request.payload);
  }
  if (!out.ok()) {
    reply.op = Op::kError;
    reply.payload = encode_error(out.status().prefixed(name_ + ": " + op_name(request.op)));
  } else {
    reply.op = not_ready ? Op::kNotReady : Op::kOk;
    reply.payload = std::move(*out);
  }
  return reply;
}

StatusOr<std::string> ParameterServer::dispatch(int worker, Op op, std::string_view payload) {
  std::unique_lock lock(mu_);
  tick_locked(Clock::now());
  STRATA_RETURN_IF_ERROR(workers_.touch(worker, Clock::now()));
  switch (op) {
    case Op::kInit: return init(worker, payload);
    case Op::kPush: return push(worker, payload);
    case Op::kNextStep: return next_step(worker, payload);
    case Op::kStepDone: return step_done(worker, payload);
    case Op::kHeartbeat: return std::string();
    case Op::kIdle: {
      PayloadReader r(payload);
      const uint8_t idle = r.u8("idle flag");
      STRATA_RETURN_IF_ERROR(r.status("idle"));
      workers_.set_idle(worker, idle != 0);
      complete_rounds_locked();
      return std::string();
    }
    case Op::kDone: {
      workers_.mark_done(worker);
      if (options_.coordinator) coordinator_.requeue(worker);
      complete_rounds_locked();
      STRATA_LOG_INFO("{}: worker {} is done", name_, worker);
      changed_.notify_all();
      return std::string();
    }
    default:
      return InvalidArgumentError(std::string("'") + op_name(op) + "' is not a request");
  }
}

StatusOr<ShardState*> ParameterServer::find_shard(uint32_t id) {
  auto it = shards_.find(id);
  if (it == shards_.end()) {
    return NotFoundError("no shard " + std::to_string(id) + " on this ps (not initialised; "
                         "do the workers agree on the placement?)");
  }
  return &it->second;
}

StatusOr<std::string> ParameterServer::init(int worker, std::string_view payload) {
  PayloadReader r(payload);
  const uint32_t id = r.u32("shard id");
  std::vector<float> value = r.floats("initial value");
  STRATA_RETURN_IF_ERROR(r.status("init"));
  auto it = shards_.find(id);
  if (it == shards_.end()) {
    ShardState s;
    s.sum.assign(value.size(), 0.0f);
    s.value = std::move(value);
    shards_.emplace(id, std::move(s));
    shard_owner_[id] = worker;
  } else if (it->second.value.size() != value.size()) {
    return InvalidArgumentError("shard " + std::to_string(id) + " was initialised with " +
                                std::to_string(it->second.value.size()) + " floats by worker " +
                                std::to_string(shard_owner_[id]) + " but worker " +
                                std::to_string(worker) + " has " + std::to_string(value.size()) +
                                "; every worker must build the same model");
  }
  return std::string();
}

StatusOr<std::string> ParameterServer::pull(std::string_view payload, bool* not_ready) {
  PayloadReader r(payload);
  const uint32_t id = r.u32("shard id");
  const int64_t min_round = r.i64("min round");
  STRATA_RETURN_IF_ERROR(r.status("pull"));
  std::unique_lock lock(mu_);
  tick_locked(Clock::now());
  STRATA_ASSIGN_OR_RETURN(ShardState * s, find_shard(id));
  const Deadline until = Clock::now() + options_.pull_wait;
  // Shards are never erased, so `s` stays valid across the wait.
  while (s->round < min_round && Clock::now() < until) changed_.wait_until(lock, until);
  if (s->round < min_round) {
    *not_ready = true;
    return std::string();
  }
  return PayloadWriter().i64(s->clock).i64(s->round).floats(s->value).take();
}

StatusOr<std::string> ParameterServer::push(int worker, std::string_view payload) {
  PayloadReader r(payload);
  const uint32_t id = r.u32("shard id");
  PushInfo info;
  info.worker = worker;
  info.clock_seen = r.i64("clock");
  STRATA_RETURN_IF_ERROR(r.reads_ok("push"));
  // Clocks come from pull replies and count up from 0; a negative one would
  // overflow the staleness arithmetic of the schemes that use it.
  if (info.clock_seen < 0) {
    return InvalidArgumentError("push of shard " + std::to_string(id) + " says it saw clock " +
                                std::to_string(info.clock_seen) + "; clocks start at 0");
  }
  STRATA_ASSIGN_OR_RETURN(ShardState * s, find_shard(id));
  std::vector<float> values = r.floats("pushed values", static_cast<int64_t>(s->value.size()));
  STRATA_RETURN_IF_ERROR(r.status("push of shard " + std::to_string(id)));
  const int64_t joined = s->round;
  workers_.set_idle(worker, false);
  scheme_->apply_push(*s, values, info);
  if (scheme_->synchronous() && scheme_->complete_round(*s, workers_.active())) {
    changed_.notify_all();
  }
  return PayloadWriter().i64(joined).take();
}

StatusOr<std::string> ParameterServer::next_step(int worker, std::string_view payload) {
  if (!options_.coordinator) {
    return FailedPreconditionError("this ps does not coordinate steps; ps 0 does");
  }
  PayloadReader r(payload);
  const int64_t total = r.i64("total steps");
  STRATA_RETURN_IF_ERROR(r.status("next_step"));
  STRATA_ASSIGN_OR_RETURN(int64_t step, coordinator_.next_step(worker, total));
  return PayloadWriter().i64(step).take();
}

StatusOr<std::string> ParameterServer::step_done(int worker, std::string_view payload) {
  PayloadReader r(payload);
  const int64_t step = r.i64("step");
  STRATA_RETURN_IF_ERROR(r.status("step_done"));
  if (!options_.coordinator) return FailedPreconditionError("ps 0 coordinates steps, not this ps");
  STRATA_RETURN_IF_ERROR(coordinator_.step_done(worker, step));
  return std::string();
}

void ParameterServer::tick() {
  std::lock_guard lock(mu_);
  tick_locked(Clock::now());
}

void ParameterServer::tick_locked(Deadline now) {
  if (now < workers_.next_expiry()) return;
  for (int worker : workers_.expire(now)) {
    std::string steps;
    if (options_.coordinator) {
      for (int64_t s : coordinator_.requeue(worker)) {
        steps += (steps.empty() ? "" : ", ") + std::to_string(s);
      }
    }
    STRATA_LOG_WARN("{}: worker {} declared dead (silent for {} ms){}", name_, worker,
                    options_.worker_timeout.count() / 1000000,
                    steps.empty() ? std::string() : "; re-queued its step(s) " + steps);
  }
  complete_rounds_locked();
  changed_.notify_all();
}

void ParameterServer::complete_rounds_locked() {
  if (!scheme_->synchronous()) return;
  bool any = false;
  for (auto& [id, s] : shards_) any = scheme_->complete_round(s, workers_.active()) || any;
  if (any) changed_.notify_all();
}

bool ParameterServer::finished() const {
  std::lock_guard lock(mu_);
  return workers_.all_finished();
}

Status ParameterServer::wait_finished(Deadline deadline) {
  std::unique_lock lock(mu_);
  for (;;) {
    tick_locked(Clock::now());
    if (workers_.all_finished()) return Status::Ok();
    if (Clock::now() >= deadline) {
      std::string states;
      for (int w = 0; w < workers_.size(); ++w) states += (w ? ", " : "") + workers_.describe(w);
      return TimedOutError(name_ + ": workers still not finished at the deadline: " + states);
    }
    changed_.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(100)));
  }
}

std::optional<ShardState> ParameterServer::shard(uint32_t id) const {
  std::lock_guard lock(mu_);
  auto it = shards_.find(id);
  if (it == shards_.end()) return std::nullopt;
  return it->second;
}

int ParameterServer::workers_dead() const {
  std::lock_guard lock(mu_);
  return workers_.dead_count();
}

int64_t ParameterServer::steps_requeued() const {
  std::lock_guard lock(mu_);
  return coordinator_.requeued();
}

int64_t ParameterServer::steps_done() const {
  std::lock_guard lock(mu_);
  return coordinator_.done();
}

int64_t ParameterServer::steps_total() const {
  std::lock_guard lock(mu_);
  return coordinator_.total();
}

}  // namespace strata::ps
