#include "core/cluster/health_monitor.h"

#include <algorithm>

#include "core/cluster/duration_text.h"
#include "core/cluster/health_keys.h"
#include "core/common/logging.h"

namespace strata {

HealthMonitor::HealthMonitor(Store& store, int rank, int world,
                             std::chrono::nanoseconds interval,
                             std::function<std::string(int)> describe_rank, StoreHost host)
    : store_(store), rank_(rank), world_(world),
      // A zero or negative interval would make the thread spin.
      interval_(std::max<std::chrono::nanoseconds>(interval, std::chrono::milliseconds(1))),
      describe_rank_(std::move(describe_rank)), host_(std::move(host)),
      peers_(static_cast<size_t>(std::max(world, 0)), Peer{-1, Clock::now(), false, false}) {
  if (world_ >= 1 && rank_ >= 0 && rank_ < world_) {
    thread_ = std::thread([this] { run(); });
  } else {
    thread_error_ = InvalidArgumentError("health monitor: rank " + std::to_string(rank) +
                                         " is not in a world of " + std::to_string(world));
  }
}

HealthMonitor::~HealthMonitor() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string HealthMonitor::name(int rank) const {
  const std::string position = "rank " + std::to_string(rank) + " of " + std::to_string(world_);
  return describe_rank_ ? describe_rank_(rank) + " (" + position + ")" : position;
}

std::string HealthMonitor::host_name() const {
  return name(host_.rank) + (host_.rank == 0 ? ", the chief," : ",") +
         " which hosts the job store at " + host_.address + ",";
}

StatusOr<int64_t> HealthMonitor::ask(const std::string& key, int64_t delta) {
  {
    std::lock_guard lock(mu_);
    asking_since_ = Clock::now();
  }
  auto v = store_.add(key, delta);
  std::lock_guard lock(mu_);
  asking_since_.reset();
  return v;
}

Status HealthMonitor::round() {
  bool beating = false;
  {
    std::lock_guard lock(mu_);
    beating = !left_;
  }
  if (beating) {
    if (auto v = ask(health::key(rank_), health::kBeat); !v.ok()) return v.status();
  }
  std::vector<int64_t> values(peers_.size(), 0);
  for (int r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    auto v = ask(health::key(r), 0);  // reads without waiting
    if (!v.ok()) return v.status();
    values[static_cast<size_t>(r)] = *v;
  }
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  for (size_t r = 0; r < peers_.size(); ++r) {
    const health::State s = health::decode(values[r]);
    Peer& p = peers_[r];
    // The first reading is only a baseline: a counter that was high when we
    // started says nothing about whether its owner is alive now.
    if (p.beats >= 0 && s.beats > p.beats) p.changed = now;
    p.beats = std::max(p.beats, s.beats);
    p.left = p.left || s.left;
    // Not sticky: the server withdraws the flag when the rank connects
    // again (one dropped connection of a live rank).
    p.departed = s.departed;
  }
  return Status::Ok();
}

void HealthMonitor::run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    // After leave() no rounds of its own (peers may be closing the store),
    // only those check() asks for, so check() stays bounded then too.
    if (left_ && wanted_ <= finished_) {
      wake_.wait(lock, [&] { return stop_ || wanted_ > finished_; });
      continue;
    }
    const uint64_t generation = wanted_;
    lock.unlock();
    Status s = round();
    lock.lock();
    if (!s.ok() && last_round_.ok()) {
      STRATA_LOG_WARN("health monitor of rank {}: {}", rank_, s.to_string());
    }
    last_round_ = s;
    finished_ = std::max(finished_, generation);
    wake_.notify_all();
    wake_.wait_for(lock, interval_,
                   [&] { return stop_ || left_ || wanted_ > generation; });
  }
  wake_.notify_all();  // a check() waiting for a round that will not come
}

std::optional<std::chrono::nanoseconds> HealthMonitor::silent_for(Clock::time_point now) const {
  if (!asking_since_) return std::nullopt;
  return now - *asking_since_;
}

Status HealthMonitor::store_silent(std::chrono::nanoseconds silent) const {
  const std::string how_long = "no reply for " + seconds_text(silent);
  if (hosted_elsewhere()) return PeerFailedError(host_name() + " stopped answering: " + how_long);
  // No "health check" here: the callers that need one say it
  // (core/collective/progress.cc).
  return UnavailableError("the job store" +
                          (host_.address.empty() ? "" : " at " + host_.address) +
                          " stopped answering: " + how_long);
}

Status HealthMonitor::store_failed(const Status& failure) const {
  const bool unreachable =
      failure.code() == Code::kUnavailable || failure.code() == Code::kTimedOut;
  if (!hosted_elsewhere() || !unreachable) {
    return failure.prefixed("cannot read the job store");
  }
  if (peers_[static_cast<size_t>(host_.rank)].left) {
    return UnavailableError(host_name() + " finished and closed it: " + failure.message());
  }
  return PeerFailedError(host_name() + " is gone: " + failure.message());
}

Status HealthMonitor::peers_verdict(Clock::time_point now) const {
  std::vector<std::string> dead;
  for (int r = 0; r < world_; ++r) {
    const Peer& p = peers_[static_cast<size_t>(r)];
    if (r == rank_ || p.left) continue;
    if (p.departed) {
      dead.push_back(name(r) + " departed: its store connection closed without a goodbye");
    } else if (now - p.changed >= silence_limit()) {
      dead.push_back(name(r) + " has not been heard from for " + seconds_text(now - p.changed));
    }
  }
  if (dead.empty()) return Status::Ok();
  std::string message;
  for (const auto& d : dead) message += (message.empty() ? "" : "; ") + d;
  return PeerFailedError(message);
}

Status HealthMonitor::check() {
  std::unique_lock lock(mu_);
  if (thread_error_.code() == Code::kInvalidArgument) return thread_error_;
  // A fresh reading, so a departure is reported at once, not an interval
  // on; taken by the thread (after leave() too), so that a store which
  // stopped answering holds up this call for silence_limit() at most, not
  // for its own timeout once per peer.
  const uint64_t want = ++wanted_;
  wake_.notify_all();
  while (finished_ < want && !stop_) {
    const auto now = Clock::now();
    const auto silent = silent_for(now);
    if (silent && *silent >= silence_limit()) return store_silent(*silent);
    wake_.wait_until(lock, silent ? now - *silent + silence_limit() : now + silence_limit());
  }
  if (!last_round_.ok()) return store_failed(last_round_);
  return peers_verdict(Clock::now());
}

Status HealthMonitor::leave() {
  Status skip;
  {
    std::lock_guard lock(mu_);
    if (left_) return Status::Ok();
    left_ = true;
    const auto silent = silent_for(Clock::now());
    if (silent && *silent >= silence_limit()) skip = store_silent(*silent);
  }
  wake_.notify_all();
  if (!skip.ok()) return skip.prefixed("health monitor: not leaving through the store");
  auto v = store_.add(health::key(rank_), health::kLeft);
  return v.ok() ? Status::Ok() : v.status().prefixed("health monitor: leaving");
}

}  // namespace strata
