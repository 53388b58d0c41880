#include "core/device/cpu_stream.h"

#include <cstring>

#include "strata/sdk/backoff.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/host_kernels.h"

namespace strata {

bool CpuEvent::wait_for(uint64_t generation, std::chrono::nanoseconds timeout) {
  // Most collectives finish within microseconds: spin a little first.
  for (int i = 0; i < 256; ++i) {
    if (is_reached(generation)) return true;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  std::unique_lock lock(mu);
  return cv.wait_for(lock, timeout, [&] { return is_reached(generation); });
}

void CpuEvent::mark(uint64_t generation) {
  // Notify under the lock: the owner may destroy the event as soon as it
  // sees `reached`, and event destruction takes this lock first, so the
  // stream never touches a freed event.
  std::lock_guard lock(mu);
  reached.store(generation, std::memory_order_release);
  cv.notify_all();
}

CpuStream::~CpuStream() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CpuStream::enqueue(CpuTask task) {
  bool wake = false;
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    queue_.push_back(std::move(task));
    wake = sleeping_;
  }
  if (wake) cv_.notify_one();
}

void CpuStream::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (queue_.empty()) {
      if (stop_) return;
      sleeping_ = true;
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      sleeping_ = false;
      continue;
    }
    CpuTask task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    execute(task);
    lock.lock();
  }
}

void CpuStream::execute(CpuTask& task) {
  switch (task.kind) {
    case CpuTask::Kind::kCopy:
      if (task.bytes > 0) sdk::copy_host(task.dst, task.src, task.bytes);
      break;
    case CpuTask::Kind::kReduce:
      // Arguments were validated when the task was enqueued.
      (void)sdk::reduce_host_multi(task.dtype, task.op, task.dsts.data(),
                                   static_cast<uint32_t>(task.dsts.size()), task.srcs.data(),
                                   static_cast<uint32_t>(task.srcs.size()), task.count,
                                   task.divisor);
      break;
    case CpuTask::Kind::kRecord:
      task.event->mark(task.generation);
      break;
    case CpuTask::Kind::kWait: {
      // Streams form a DAG (a wait is always on an earlier record), so this
      // ends; sleep rather than spin to leave the core to the other stream.
      sdk::Backoff backoff;
      for (int i = 0; i < 64 && !task.event->is_reached(task.generation); ++i) backoff.pause();
      std::unique_lock lock(task.event->mu);
      task.event->cv.wait(lock, [&] { return task.event->is_reached(task.generation); });
      break;
    }
  }
}

}  // namespace strata
