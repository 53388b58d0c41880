#include "core/strategy/parameter_server/step_coordinator.h"

#include <string>

#include "core/strategy/parameter_server/ps_wire.h"

namespace strata::ps {

StatusOr<int64_t> StepCoordinator::next_step(int worker, int64_t total_steps) {
  if (total_steps < 0) {
    return InvalidArgumentError("worker " + std::to_string(worker) + " asked for a step of a " +
                                "job of " + std::to_string(total_steps) + " steps");
  }
  if (total_ < 0) {
    total_ = total_steps;  // what a worker claims: nothing is sized by it
  } else if (total_ != total_steps) {
    return InvalidArgumentError("worker " + std::to_string(worker) + " counts " +
                                std::to_string(total_steps) + " steps in the job but the first "
                                "worker counted " + std::to_string(total_) +
                                "; every worker must run the same program and data");
  }
  int64_t step = -1;
  while (!again_.empty() && step < 0) {
    const int64_t s = again_.front();
    again_.pop_front();
    if (!finished_[static_cast<size_t>(s)]) step = s;
  }
  if (step < 0 && next_fresh_ < total_) {
    step = next_fresh_++;
    finished_.push_back(false);  // one flag per step handed out so far
  }
  if (step < 0) return done_count_ == total_ ? kFinished : kWait;
  leases_[step] = worker;
  return step;
}

Status StepCoordinator::step_done(int worker, int64_t step) {
  if (step < 0 || step >= next_fresh_) {
    return InvalidArgumentError("worker " + std::to_string(worker) + " reported step " +
                                std::to_string(step) + " done, but " +
                                (next_fresh_ == 0 ? std::string("no step was handed out yet")
                                                  : "only steps 0.." +
                                                        std::to_string(next_fresh_ - 1) +
                                                        " were handed out"));
  }
  auto lease = leases_.find(step);
  if (lease != leases_.end() && lease->second == worker) leases_.erase(lease);
  // A step done twice (re-queued, then the slow original finished too)
  // counts once.
  if (!finished_[static_cast<size_t>(step)]) {
    finished_[static_cast<size_t>(step)] = true;
    ++done_count_;
  }
  return Status::Ok();
}

std::vector<int64_t> StepCoordinator::requeue(int worker) {
  std::vector<int64_t> steps;
  for (auto it = leases_.begin(); it != leases_.end();) {
    if (it->second == worker) {
      steps.push_back(it->first);
      it = leases_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) again_.push_front(*it);
  requeued_count_ += static_cast<int64_t>(steps.size());
  return steps;
}

}  // namespace strata::ps
