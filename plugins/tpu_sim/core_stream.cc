#include "core_stream.h"

#include <cstring>

#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace strata::tpu_sim {

bool CoreEvent::wait_for(uint64_t generation, std::chrono::nanoseconds timeout) {
  // Ring steps are short: spin briefly before sleeping on the condition.
  for (int i = 0; i < 256; ++i) {
    if (is_reached(generation)) return true;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  std::unique_lock lock(mu);
  return cv.wait_for(lock, timeout, [&] { return is_reached(generation); });
}

void CoreEvent::mark(uint64_t generation, const std::string& failure) {
  // Notify under the lock: the owner may destroy the event once it sees
  // `reached`, and destruction takes this lock first.
  std::lock_guard lock(mu);
  if (!failure.empty() && error.empty()) error = failure;
  reached.store(generation, std::memory_order_release);
  cv.notify_all();
}

std::string CoreEvent::failure() {
  std::lock_guard lock(mu);
  return error;
}

CoreStream::CoreStream(int core, std::chrono::nanoseconds wait_timeout)
    : core_(core), wait_timeout_(wait_timeout) {}

CoreStream::~CoreStream() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CoreStream::enqueue(CoreTask task) {
  bool wake = false;
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    queue_.push_back(std::move(task));
    wake = sleeping_;
  }
  if (wake) cv_.notify_one();
}

std::string CoreStream::failure() {
  std::lock_guard lock(mu_);
  return failure_;
}

void CoreStream::fail(std::string why) {
  std::lock_guard lock(mu_);
  if (failure_.empty()) failure_ = "tpu:" + std::to_string(core_) + ": " + std::move(why);
  failed_.store(true, std::memory_order_release);
}

void CoreStream::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (queue_.empty()) {
      if (stop_) return;
      sleeping_ = true;
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      sleeping_ = false;
      continue;
    }
    CoreTask task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    execute(task);
    lock.lock();
  }
}

void CoreStream::execute(CoreTask& task) {
  const bool failed = failed_.load(std::memory_order_acquire);
  switch (task.kind) {
    case CoreTask::Kind::kCopy: {
      if (failed) break;
      const auto start = std::chrono::steady_clock::now();
      if (task.bytes > 0) std::memcpy(task.dst, task.src, task.bytes);
      // Pacing: the link, not memcpy, sets the speed of the simulated pod.
      if (task.hold.count() > 0) std::this_thread::sleep_until(start + task.hold);
      break;
    }
    case CoreTask::Kind::kReduce:
      if (failed) break;
      if (!sdk::reduce_host_multi(task.dtype, task.op, task.dsts.data(),
                                  static_cast<uint32_t>(task.dsts.size()), task.srcs.data(),
                                  static_cast<uint32_t>(task.srcs.size()), task.count,
                                  task.divisor)) {
        fail(std::string("the host kernels cannot reduce ") + sdk::dtype_name(task.dtype) +
             " with " + sdk::redop_name(task.op));
      }
      break;
    case CoreTask::Kind::kRecord:
      task.event->mark(task.generation, failed ? failure() : std::string());
      break;
    case CoreTask::Kind::kWait: {
      if (failed) break;
      if (!task.event->wait_for(task.generation, wait_timeout_)) {
        fail("waited " + std::to_string(wait_timeout_.count() / 1000000) +
             " ms for an event of tpu:" + std::to_string(task.event->core) +
             " that was never reached; later work on this core was skipped");
        break;
      }
      const std::string upstream = task.event->failure();
      if (!upstream.empty()) fail("an event it waited for failed: " + upstream);
      break;
    }
  }
}

}  // namespace strata::tpu_sim
