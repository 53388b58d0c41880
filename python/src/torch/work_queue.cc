#include "python/src/torch/work_queue.h"

#include <pthread.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace strata::python {
namespace {

using Clock = std::chrono::steady_clock;
// How often a thread looks for calls nobody runs (an async call that no
// one waits on and whose Future nobody asked for starts at most this
// late): kFirstTick after such a call ran, doubling while the looks find
// nothing (callers run their own calls) up to kLongestTick, and for how
// long after the last call it keeps looking before it sleeps until woken.
constexpr std::chrono::microseconds kLongestTick{4000};
constexpr std::chrono::milliseconds kStayAwake{100};

std::mutex g_live_mu;
std::vector<std::weak_ptr<WorkQueue>>* g_live = nullptr;  // never freed: read at exit

}  // namespace

std::shared_ptr<WorkQueue> WorkQueue::start(std::shared_ptr<JobTeam> team, std::string name) {
  auto queue = std::make_shared<WorkQueue>(std::move(team));
  constexpr int kThreads = 2;  // see the header: a blocked callback leaves one
  for (int i = 0; i < kThreads; ++i) {
    queue->threads_.emplace_back([queue, name]() mutable {
      pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
      queue->loop();
      queue.reset();  // may destroy the queue here, on its own thread
    });
  }
  std::lock_guard<std::mutex> lock(g_live_mu);
  if (g_live == nullptr) g_live = new std::vector<std::weak_ptr<WorkQueue>>();
  std::erase_if(*g_live, [](const std::weak_ptr<WorkQueue>& q) { return q.expired(); });
  g_live->push_back(queue);
  return queue;
}

void WorkQueue::shutdown_all(const Status& why) {
  std::vector<std::shared_ptr<WorkQueue>> live;
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    if (g_live == nullptr) return;
    for (const auto& weak : *g_live) {
      if (auto queue = weak.lock()) live.push_back(std::move(queue));
    }
  }
  for (const auto& queue : live) queue->shutdown(why);
}

WorkQueue::~WorkQueue() {
  shutdown(AbortedError("the strata process group was destroyed"));
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.detach();  // destroyed on its own thread, which ends now
  }
}

StatusOr<std::shared_ptr<JobTeam>> WorkQueue::team() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_ || team_ == nullptr) {
    return FailedPreconditionError("the strata process group was shut down: " +
                                   stop_reason_.to_string());
  }
  return team_;
}

void WorkQueue::push(c10::intrusive_ptr<WorkStrata> work) {
  Status refused;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_) {
      queue_.push_back(std::move(work));
      last_push_ = Clock::now();
      // Whoever runs a call now takes this one after it, and a ticking
      // thread finds it; otherwise every thread sleeps.
      if (!running_ && !ticking_) wake_.notify_all();
      return;
    }
    refused = stop_reason_;
  }
  work->complete(refused);
}

bool WorkQueue::run_if_next(WorkStrata* work) {
  std::unique_lock<std::mutex> lock(mu_);
  if (running_ || queue_.empty() || queue_.front().get() != work) return false;
  c10::intrusive_ptr<WorkStrata> next = std::move(queue_.front());
  queue_.pop_front();
  execute(next, lock);
  return true;
}

void WorkQueue::kick() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!queue_.empty()) wake_.notify_all();
}

void WorkQueue::start_now(const WorkStrata* work) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!running_ && !queue_.empty() && queue_.front().get() == work) wake_.notify_all();
}

void WorkQueue::execute(const c10::intrusive_ptr<WorkStrata>& work,
                        std::unique_lock<std::mutex>& lock) {
  running_ = true;
  JobTeam* team = team_.get();  // kept until running_ is cleared (shutdown())
  lock.unlock();
  const Status status = work->run_body(team->ops());
  lock.lock();
  running_ = false;
  // Someone waits for the call to end only if more is queued (the
  // thread) or the queue stops (shutdown()).
  if (!queue_.empty() || stopped_) wake_.notify_all();
  lock.unlock();
  work->complete(status);
  lock.lock();
}

void WorkQueue::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    // No collective waits here: only for work, a call a caller runs, or
    // a shutdown.
    if (stopped_) return;
    if (!running_ && !queue_.empty()) {
      c10::intrusive_ptr<WorkStrata> next = std::move(queue_.front());
      queue_.pop_front();
      tick_ = kFirstTick;
      execute(next, lock);
      continue;
    }
    // One thread ticks; the other waits until woken. Each look is a
    // context switch on cores that peer ranks may need (4 ranks on 2
    // cores: 8 B all_reduce 75-107 us with both threads looking every
    // 500 us, 33-41 us with one looking rarely).
    const bool busy = running_ || Clock::now() - last_push_ < kStayAwake;
    if (busy && !ticking_) {
      ticking_ = true;
      const bool timed_out = wake_.wait_for(lock, tick_) == std::cv_status::timeout;
      ticking_ = false;
      if (timed_out && queue_.empty()) tick_ = std::min(tick_ * 2, kLongestTick);
    } else {
      wake_.wait(lock, [this] { return stopped_ || (!running_ && !queue_.empty()); });
    }
  }
}

void WorkQueue::shutdown(const Status& why) {
  std::vector<c10::intrusive_ptr<WorkStrata>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_) {
      stopped_ = true;
      stop_reason_ = why;
      dropped.assign(queue_.begin(), queue_.end());
      queue_.clear();
    }
    wake_.notify_all();
  }
  for (const auto& work : dropped) work->complete(why);
  for (std::thread& thread : threads_) {
    if (thread.joinable() && thread.get_id() != std::this_thread::get_id()) thread.join();
  }
  std::shared_ptr<JobTeam> team;
  {
    // A call a user thread runs (run_if_next) ends by its deadline.
    std::unique_lock<std::mutex> lock(mu_);
    wake_.wait(lock, [this] { return !running_; });
    team = std::move(team_);
  }
  // The team leaves the job here: heartbeats stop, peers are told.
}

}  // namespace strata::python
