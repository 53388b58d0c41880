// The calls of one "strata" process group, in the order torch issued them
// (every rank issues the same calls in the same order, which core's teams
// need): the group's threads run them one at a time, so async calls and
// DDP's gradient buckets return at once and overlap with backward, while a
// blocking call that is next in line runs on the caller's own thread
// (run_if_next). There are two threads, as gloo has: a future callback runs
// on the thread that completes the call, and one that blocks on a later
// call's future (DDP's PowerSGD hook does) needs the other thread to run it.
//
// Queueing a call does not wake a thread while the group is busy: a
// wake-up per call (and the thread taking the call its caller was about to
// run) cost each process a context switch per call, which on shared cores
// is time a peer rank needs. One thread instead looks now and then while
// calls keep coming (less often while its looks find nothing), and the
// threads are woken at once when a call's Future is asked
// for (start_now: DDP), when a waiter finds an earlier call still queued
// (kick), or after the group was idle.
#ifndef STRATA_PYTHON_SRC_TORCH_WORK_QUEUE_H_
#define STRATA_PYTHON_SRC_TORCH_WORK_QUEUE_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/job_team.h"
#include "python/src/torch/work_strata.h"

namespace strata::python {

class WorkQueue {
 public:
  // Starts the threads, named `name` (strata-pg<group>). Each holds the
  // queue until shutdown(), so the queue outlives a call that drops the
  // last reference to its group from one of them.
  static std::shared_ptr<WorkQueue> start(std::shared_ptr<JobTeam> team, std::string name);
  explicit WorkQueue(std::shared_ptr<JobTeam> team) : team_(std::move(team)) {}
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues a call; never waits on a collective. After shutdown the work
  // completes at once with the shutdown's reason.
  void push(c10::intrusive_ptr<WorkStrata> work);
  // Runs `work` on this thread if it is at the head and nothing runs; true
  // if it did (the work is then complete).
  bool run_if_next(WorkStrata* work);
  // Wakes the thread to run what is queued: someone waits on a call that
  // its own thread cannot run (an earlier call is still queued).
  void kick();
  // Wakes the thread to run `work` now if it is next: someone waits on its
  // Future (DDP's buckets, comm hooks), not on the Work.
  void start_now(const WorkStrata* work);
  // Fails every queued call with `why`, waits for the running one (bounded
  // by its collective's deadline), joins the threads and releases the team,
  // which leaves the job. Idempotent. Must
  // not be called with the GIL held: a running call's future callbacks
  // may need it.
  void shutdown(const Status& why);
  // shutdown() of every queue still running: at interpreter exit, so every
  // group leaves its job (peers do not report this process dead) before
  // the plugins' own teardown.
  static void shutdown_all(const Status& why);
  // The group's team, or FAILED_PRECONDITION once shut down.
  StatusOr<std::shared_ptr<JobTeam>> team();

 private:
  void loop();
  // Runs the popped `work` with mu_ released; `running_` is cleared before
  // the work completes, so a future callback that waits on later work can
  // run that work itself instead of deadlocking.
  void execute(const c10::intrusive_ptr<WorkStrata>& work, std::unique_lock<std::mutex>& lock);

  std::shared_ptr<JobTeam> team_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<c10::intrusive_ptr<WorkStrata>> queue_;
  bool running_ = false;
  bool stopped_ = false;
  // The first interval of a ticking thread's looks (work_queue.cc says
  // how it grows).
  static constexpr std::chrono::microseconds kFirstTick{500};
  bool ticking_ = false;  // a thread waits with a timeout (looks every tick_)
  std::chrono::microseconds tick_ = kFirstTick;
  std::chrono::steady_clock::time_point last_push_{};
  Status stop_reason_;
  std::vector<std::thread> threads_;  // last: they start once the rest exists
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_TORCH_WORK_QUEUE_H_
