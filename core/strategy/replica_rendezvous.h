// Where the replicas of one strategy meet for a cross-replica step: an
// all_reduce, an all_gather or a merge_call inside `Strategy::run`. Every
// replica arrives with its payload; the last to arrive runs the step for all
// of them (one collective call with one buffer per replica, as TF's
// in-process cross-device ops do) while the others wait, and every replica
// gets the step's Status.
//
// Nothing waits forever: a replica that does not arrive by the deadline
// fails the step for all with the names of the missing replicas (once all
// have arrived, they wait for the step itself, which uses their buffers and
// has its own deadline), and a
// replica whose function fails aborts the rendezvous so the others return
// at once instead of waiting for a partner that will never come.
#ifndef STRATA_CORE_STRATEGY_REPLICA_RENDEZVOUS_H_
#define STRATA_CORE_STRATEGY_REPLICA_RENDEZVOUS_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace strata {

class ReplicaRendezvous {
 public:
  using Clock = std::chrono::steady_clock;
  // Runs the step over every replica's payload, indexed by replica.
  using Step = std::function<Status(std::span<void* const> payloads)>;

  explicit ReplicaRendezvous(int replicas);

  // `what` names the call ("all_reduce(sum) of 3 tensors"); replicas that
  // arrive with different `what`s fail the step, naming both calls.
  Status arrive(int replica, const std::string& what, void* payload, const Step& step,
                Clock::time_point deadline);

  // Fails the current and every later step with `why` until reset().
  void abort(const Status& why);
  // Starts a fresh run: forgets arrivals and any abort.
  void reset();

 private:
  Status missing_replicas_error(const std::string& what, Clock::time_point deadline) const;

  const int replicas_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::vector<void*> payloads_;
  std::vector<std::string> whats_;
  bool running_ = false;  // the last arrival is running the step
  Status result_;
  Status aborted_;
  Clock::time_point started_;
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_REPLICA_RENDEZVOUS_H_
