#include "core/strategy/replica_rendezvous.h"

#include <algorithm>

#include "core/common/units.h"

namespace strata {

ReplicaRendezvous::ReplicaRendezvous(int replicas)
    : replicas_(replicas),
      payloads_(static_cast<size_t>(replicas), nullptr),
      whats_(static_cast<size_t>(replicas)) {}

Status ReplicaRendezvous::arrive(int replica, const std::string& what, void* payload,
                                 const Step& step, Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  if (!aborted_.ok()) return aborted_;
  const auto slot = static_cast<size_t>(replica);
  if (payloads_[slot] != nullptr) {
    return InternalError("replica " + std::to_string(replica) + " arrived twice at " + what);
  }
  if (arrived_ == 0) started_ = Clock::now();
  payloads_[slot] = payload;
  whats_[slot] = what;
  if (++arrived_ < replicas_) {
    const uint64_t generation = generation_;
    auto finished = [&] { return generation_ != generation; };
    cv_.wait_until(lock, deadline, [&] { return finished() || running_ || !aborted_.ok(); });
    if (running_ || finished()) {
      // Everyone arrived and the step is using every replica's payload, so
      // no replica may leave (and free its buffers) before it ends. The step
      // bounds itself: a collective fails at its own deadline.
      cv_.wait(lock, finished);
      return result_;
    }
    if (aborted_.ok()) {
      aborted_ = missing_replicas_error(what, deadline);
      cv_.notify_all();
    }
    return aborted_;
  }

  // The last replica in: check that everyone makes the same call, then run it.
  for (int r = 0; r < replicas_; ++r) {
    if (whats_[static_cast<size_t>(r)] != what) {
      aborted_ = InvalidArgumentError(
          "replicas disagree on the cross-replica call: replica " + std::to_string(r) +
          " called " + whats_[static_cast<size_t>(r)] + " while replica " +
          std::to_string(replica) + " called " + what +
          "; every replica must make the same calls in the same order");
      cv_.notify_all();
      return aborted_;
    }
  }
  std::vector<void*> payloads = payloads_;
  running_ = true;
  cv_.notify_all();  // waiters past their deadline now wait for the step
  lock.unlock();
  Status status = step(payloads);
  lock.lock();
  running_ = false;
  result_ = status;
  arrived_ = 0;
  std::fill(payloads_.begin(), payloads_.end(), nullptr);
  ++generation_;
  cv_.notify_all();
  return status;
}

Status ReplicaRendezvous::missing_replicas_error(const std::string& what,
                                                 Clock::time_point deadline) const {
  std::string missing;
  for (int r = 0; r < replicas_; ++r) {
    if (payloads_[static_cast<size_t>(r)] != nullptr) continue;
    missing += missing.empty() ? "" : ", ";
    missing += std::to_string(r);
  }
  const auto waited = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - started_);
  return TimedOutError("replica(s) " + missing + " did not reach " + what + " within " +
                       format_duration(waited) + " (" + std::to_string(arrived_) + " of " +
                       std::to_string(replicas_) +
                       " arrived); a replica is stuck or skipped the call");
}

void ReplicaRendezvous::abort(const Status& why) {
  std::lock_guard lock(mu_);
  if (aborted_.ok()) aborted_ = why;
  cv_.notify_all();
}

void ReplicaRendezvous::reset() {
  std::lock_guard lock(mu_);
  aborted_ = Status();
  arrived_ = 0;
  std::fill(payloads_.begin(), payloads_.end(), nullptr);
}

}  // namespace strata
