// StepCoordinator: TF's ClusterCoordinator reduced to what training needs.
// Steps 0..total-1 are handed out one at a time to whichever worker asks;
// a step is leased until its worker reports it done. When a worker dies,
// its leased steps go back to the front of the queue for the others, so no
// step of the job is lost (a step may run twice: at-least-once). Lives on
// ps task 0, behind that ps's lock; not thread-safe itself.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_STEP_COORDINATOR_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_STEP_COORDINATOR_H_

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "core/common/status.h"

namespace strata::ps {

class StepCoordinator {
 public:
  // The next step for `worker`, or kWait (every step is out, some not yet
  // done) or kFinished. The first call fixes the job's total; a worker
  // that says otherwise gets INVALID_ARGUMENT.
  StatusOr<int64_t> next_step(int worker, int64_t total_steps);
  Status step_done(int worker, int64_t step);
  // Returns the steps `worker` held, now queued again.
  std::vector<int64_t> requeue(int worker);

  int64_t total() const { return total_; }
  int64_t done() const { return done_count_; }
  int64_t requeued() const { return requeued_count_; }

 private:
  int64_t total_ = -1;
  int64_t next_fresh_ = 0;
  std::deque<int64_t> again_;        // re-queued steps, served first
  std::map<int64_t, int> leases_;    // step -> worker
  // One flag per step handed out (0..next_fresh_-1), grown as they go: a
  // worker's claimed total sizes nothing, so next_step(2^62) cannot make
  // the ps allocate it (found by tests/fuzz/fuzz_ps_wire.cc).
  std::vector<bool> finished_;
  int64_t done_count_ = 0;
  int64_t requeued_count_ = 0;
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_STEP_COORDINATOR_H_
