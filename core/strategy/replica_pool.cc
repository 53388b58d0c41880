#include "core/strategy/replica_pool.h"

namespace strata {

ReplicaPool::ReplicaPool(int threads, int first_replica) {
  threads_.reserve(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this, replica = first_replica + i] { serve(replica); });
  }
}

ReplicaPool::~ReplicaPool() {
  {
    std::unique_lock lock(mu_);
    done_cv_.wait(lock, [&] { return running_ == 0; });
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ReplicaPool::start(std::function<void(int)> job) {
  {
    std::lock_guard lock(mu_);
    job_ = std::move(job);
    running_ = static_cast<int>(threads_.size());
    ++generation_;
  }
  work_cv_.notify_all();
}

void ReplicaPool::wait() {
  // Replicas run user code, which the strategy cannot interrupt; every
  // cross-replica call inside it has a deadline, so a replica that is not
  // stuck in user code returns.
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [&] { return running_ == 0; });
}

void ReplicaPool::serve(int replica) {
  uint64_t seen = 0;
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    const std::function<void(int)>& job = job_;
    lock.unlock();
    job(replica);
    lock.lock();
    if (--running_ == 0) done_cv_.notify_all();
  }
}

}  // namespace strata
