#include "core/strategy/parameter_server/worker_tracker.h"

#include <algorithm>

namespace strata::ps {

WorkerTracker::WorkerTracker(int num_workers, std::chrono::nanoseconds timeout,
                             std::chrono::nanoseconds startup_timeout, Deadline start)
    : workers_(static_cast<size_t>(std::max(num_workers, 0))),
      timeout_(timeout),
      startup_timeout_(startup_timeout),
      start_(start) {}

Status WorkerTracker::touch(int worker, Deadline now) {
  if (worker < 0 || worker >= size()) {
    return InvalidArgumentError("worker " + std::to_string(worker) + " is not in this job (" +
                                std::to_string(size()) + " worker(s))");
  }
  Worker& w = workers_[static_cast<size_t>(worker)];
  if (w.dead) {
    return FailedPreconditionError("worker " + std::to_string(worker) +
                                   " was declared dead after " +
                                   std::to_string(timeout_.count() / 1000000) +
                                   " ms of silence and its steps went to other workers; it "
                                   "cannot rejoin");
  }
  if (w.done) {
    return FailedPreconditionError("worker " + std::to_string(worker) + " already said done");
  }
  w.seen = true;
  w.last = now;
  return Status::Ok();
}

void WorkerTracker::set_idle(int worker, bool idle) {
  workers_.at(static_cast<size_t>(worker)).idle = idle;
}

void WorkerTracker::mark_done(int worker) { workers_.at(static_cast<size_t>(worker)).done = true; }

Deadline WorkerTracker::deadline_of(const Worker& w) const {
  return w.seen ? w.last + timeout_ : start_ + startup_timeout_;
}

std::vector<int> WorkerTracker::expire(Deadline now) {
  std::vector<int> died;
  for (size_t i = 0; i < workers_.size(); ++i) {
    Worker& w = workers_[i];
    if (w.done || w.dead || now < deadline_of(w)) continue;
    w.dead = true;
    died.push_back(static_cast<int>(i));
  }
  return died;
}

int WorkerTracker::active() const {
  return static_cast<int>(std::count_if(workers_.begin(), workers_.end(), [](const Worker& w) {
    return !w.done && !w.dead && !w.idle;
  }));
}

int WorkerTracker::dead_count() const {
  return static_cast<int>(
      std::count_if(workers_.begin(), workers_.end(), [](const Worker& w) { return w.dead; }));
}

bool WorkerTracker::all_finished() const {
  return std::all_of(workers_.begin(), workers_.end(),
                     [](const Worker& w) { return w.done || w.dead; });
}

std::string WorkerTracker::describe(int worker) const {
  const Worker& w = workers_.at(static_cast<size_t>(worker));
  const char* state = w.dead ? "dead" : w.done ? "done" : !w.seen ? "not seen yet"
                                                        : w.idle ? "idle" : "training";
  return "worker " + std::to_string(worker) + " (" + state + ")";
}

Deadline WorkerTracker::next_expiry() const {
  Deadline next = Deadline::max();
  for (const Worker& w : workers_) {
    if (!w.done && !w.dead) next = std::min(next, deadline_of(w));
  }
  return next;
}

}  // namespace strata::ps
