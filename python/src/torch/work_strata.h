// One collective call of the "strata" process group, as torch's Work: it
// runs on the group's WorkQueue thread (or, for a blocking call, on the
// caller's thread inside wait()), and completes its Work and Future once.
// Errors reach Python as strata.*Error through the shared exception
// translator, from wait() and from the future alike.
#ifndef STRATA_PYTHON_SRC_TORCH_WORK_STRATA_H_
#define STRATA_PYTHON_SRC_TORCH_WORK_STRATA_H_

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "core/collective/collective_ops.h"

namespace strata::python {

class WorkQueue;

class WorkStrata final : public c10d::Work {
 public:
  // Does the call's data movement, staging copies included; runs once.
  using Body = std::function<Status(CollectiveOps&)>;

  WorkStrata(int rank, c10d::OpType type, std::vector<at::Tensor> outputs, Body body,
             std::shared_ptr<WorkQueue> queue);

  // Runs the call here when it is next in the queue and nothing runs (a
  // blocking dist.all_reduce pays no thread hand-off), else waits for the
  // queue; then rethrows the call's error. A finite `timeout` that passes
  // raises as torch's own backends do.
  bool wait(std::chrono::milliseconds timeout) override;
  bool isCompleted() override;
  // Completed with the output tensors (a list), or with the call's error.
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;
  std::vector<at::Tensor> result() override { return outputs_; }

  // For the queue: runs the body, then completes.
  Status run_body(CollectiveOps& ops);
  void complete(const Status& status);

 private:
  void mark(const c10::intrusive_ptr<c10::ivalue::Future>& future) const;

  std::vector<at::Tensor> outputs_;
  Body body_;
  std::shared_ptr<WorkQueue> queue_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;  // made on first getFuture(), under mutex_
};

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_TORCH_WORK_STRATA_H_
