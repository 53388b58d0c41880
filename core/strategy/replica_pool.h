// The threads that run replicas 1..n-1 of a multi-replica strategy (replica
// 0 runs on the caller's thread). They live as long as the strategy, so a
// training step costs a wake-up, not a thread creation.
#ifndef STRATA_CORE_STRATEGY_REPLICA_POOL_H_
#define STRATA_CORE_STRATEGY_REPLICA_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace strata {

class ReplicaPool {
 public:
  // Thread i serves replica first_replica + i.
  ReplicaPool(int threads, int first_replica);
  ~ReplicaPool();  // lets a running job finish, then joins
  ReplicaPool(const ReplicaPool&) = delete;
  ReplicaPool& operator=(const ReplicaPool&) = delete;

  // Starts job(replica) on every thread; wait() returns when all are done.
  // The job must not throw (Strategy wraps user code before it gets here).
  void start(std::function<void(int replica)> job);
  void wait();

 private:
  void serve(int replica);

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::function<void(int)> job_;
  uint64_t generation_ = 0;
  int running_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_REPLICA_POOL_H_
