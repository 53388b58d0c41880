#include "core/cluster/health_monitor.h"

#include <algorithm>

#include "core/cluster/duration_text.h"
#include "core/cluster/health_keys.h"
#include "core/common/logging.h"

namespace strata {

HealthMonitor::HealthMonitor(Store& store, int rank, int world,
                             std::chrono::nanoseconds interval,
                             std::function<std::string(int)> describe_rank)
    : store_(store), rank_(rank), world_(world),
      // A zero or negative interval would make the thread spin.
      interval_(std::max<std::chrono::nanoseconds>(interval, std::chrono::milliseconds(1))),
      describe_rank_(std::move(describe_rank)),
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

Status HealthMonitor::beat() {
  auto v = store_.add(health::key(rank_), health::kBeat);
  return v.ok() ? Status::Ok() : v.status();
}

Status HealthMonitor::sample() {
  // Read outside the lock: a store request may take a while, and check()
  // must not wait for the thread's (or the other way round).
  std::vector<int64_t> values(peers_.size(), 0);
  for (int r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    auto v = store_.add(health::key(r), 0);  // reads without waiting
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
    p.departed = p.departed || s.departed;
  }
  return Status::Ok();
}

void HealthMonitor::run() {
  std::unique_lock lock(mu_);
  while (!stop_ && !left_) {
    lock.unlock();
    Status s = beat();
    if (s.ok()) s = sample();
    lock.lock();
    if (!s.ok() && thread_error_.ok()) {
      STRATA_LOG_WARN("health monitor of rank {}: {}", rank_, s.to_string());
      thread_error_ = s;
    }
    if (s.ok()) thread_error_ = Status::Ok();  // a passing hiccup is forgiven
    wake_.wait_for(lock, interval_, [this] { return stop_ || left_; });
  }
}

Status HealthMonitor::check() {
  {
    std::lock_guard lock(mu_);
    if (thread_error_.code() == Code::kInvalidArgument) return thread_error_;
  }
  // A fresh reading, so a departure is reported at once, not an interval on.
  if (Status s = sample(); !s.ok()) return s.prefixed("health check cannot read the store");
  const auto now = Clock::now();
  std::vector<std::string> dead;
  std::lock_guard lock(mu_);
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

Status HealthMonitor::leave() {
  {
    std::lock_guard lock(mu_);
    if (left_) return Status::Ok();
    left_ = true;
  }
  wake_.notify_all();
  auto v = store_.add(health::key(rank_), health::kLeft);
  return v.ok() ? Status::Ok() : v.status().prefixed("health monitor: leaving");
}

}  // namespace strata
