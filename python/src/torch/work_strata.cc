#include "python/src/torch/work_strata.h"

#include <ATen/core/jit_type.h>

#include <utility>

#include "python/src/common/status_error.h"
#include "python/src/torch/work_queue.h"

namespace strata::python {

WorkStrata::WorkStrata(int rank, c10d::OpType type, std::vector<at::Tensor> outputs, Body body,
                       std::shared_ptr<WorkQueue> queue)
    // No profiling title: torch would open a RecordFunction per call.
    : Work(rank, type, /*profilingTitle=*/nullptr),
      outputs_(std::move(outputs)),
      body_(std::move(body)),
      queue_(std::move(queue)) {}

Status WorkStrata::run_body(CollectiveOps& ops) {
  Body body = std::move(body_);  // releases what it captured once done
  return body(ops);
}

void WorkStrata::complete(const Status& status) {
  c10::intrusive_ptr<c10::ivalue::Future> future;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_) return;
    if (!status.ok()) exception_ = std::make_exception_ptr(StatusError(status));
    completed_ = true;
    future = future_;
  }
  cv_.notify_all();
  // Future callbacks (DDP's, Python's `then`) run here, on this thread.
  if (future) mark(future);
}

void WorkStrata::mark(const c10::intrusive_ptr<c10::ivalue::Future>& future) const {
  if (exception_) {
    future->setError(exception_);
  } else {
    future->markCompleted(c10::IValue(outputs_));
  }
}

c10::intrusive_ptr<c10::ivalue::Future> WorkStrata::getFuture() {
  c10::intrusive_ptr<c10::ivalue::Future> future;
  bool done = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (future_) return future_;
    future_ = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()));
    future = future_;
    done = completed_;
  }
  if (done) {
    mark(future);  // complete() ran before the future existed
  } else if (queue_) {
    queue_->start_now(this);  // its waiter does not run it, as wait() does
  }
  return future;
}

bool WorkStrata::isCompleted() {
  if (queue_) queue_->kick();  // a caller polling it runs nothing itself
  return Work::isCompleted();
}

bool WorkStrata::wait(std::chrono::milliseconds timeout) {
  if (queue_ && !queue_->run_if_next(this)) queue_->kick();
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout == ::kNoTimeout) {
    // Bounded all the same: every call has core's deadline (the group's
    // timeout), after which the queue completes it with TIMED_OUT.
    cv_.wait(lock, [this] { return completed_; });
  } else if (!cv_.wait_for(lock, timeout, [this] { return completed_; })) {
    throw std::runtime_error("strata backend: operation timed out after " +
                             std::to_string(timeout.count()) + " ms (its collective still runs)");
  }
  if (exception_) std::rethrow_exception(exception_);
  return true;
}

}  // namespace strata::python
