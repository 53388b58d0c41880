// The collectives of ProcessGroupStrata: each checks its arguments here,
// on the caller's thread, then queues a body that stages, runs and copies
// back on the group's WorkQueue.
#include <utility>

#include "python/src/common/status_error.h"
#include "python/src/torch/process_group_strata.h"
#include "python/src/torch/tensor_buffers.h"

namespace strata::python {
namespace {

bool is_min_or_max(const c10d::ReduceOp& op) {
  const auto type = static_cast<c10d::ReduceOp::RedOpType>(op);
  return type == c10d::ReduceOp::MIN || type == c10d::ReduceOp::MAX;
}

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::allreduce(std::vector<at::Tensor>& tensors,
                                                             const c10d::AllreduceOptions& opts) {
  throw_if_error(check_single_tensor(tensors, "all_reduce"));
  const at::Tensor& tensor = tensors.front();
  DType dtype;
  if (tensor.scalar_type() == at::kBool && is_min_or_max(opts.reduceOp)) {
    dtype = DType::kU8;  // MIN and MAX of 0/1 bytes are AND and OR
  } else {
    dtype = value_or_throw(reduction_dtype(tensor, "all_reduce"));
  }
  const ReduceOp op = value_or_throw(reduce_op_of(opts.reduceOp, "all_reduce"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  return enqueue(c10d::OpType::ALLREDUCE, tensors,
                 [staged = StagedTensor(tensor), dtype, op, options, device](CollectiveOps& ops) {
                   const Buffer buffer = staged.buffer(dtype, device);
                   STRATA_RETURN_IF_ERROR(ops.all_reduce({&buffer, 1}, {&buffer, 1}, op, options));
                   staged.finish();
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::broadcast(std::vector<at::Tensor>& tensors,
                                                             const c10d::BroadcastOptions& opts) {
  throw_if_error(check_single_tensor(tensors, "broadcast"));
  if (opts.rootTensor != 0) {
    throw_status(InvalidArgumentError("strata backend: broadcast with rootTensor " +
                                      std::to_string(opts.rootTensor) +
                                      "; there is one tensor per process"));
  }
  if (opts.rootRank < 0 || opts.rootRank >= size_) {
    throw_status(InvalidArgumentError("strata backend: broadcast from root " +
                                      std::to_string(opts.rootRank) + " in a group of " +
                                      std::to_string(size_)));
  }
  const int root = static_cast<int>(opts.rootRank);
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  // Bytes move as they are, so every dtype broadcasts.
  return enqueue(c10d::OpType::BROADCAST, tensors,
                 [staged = StagedTensor(tensors.front()), root, options, device](CollectiveOps& ops) {
                   const Buffer buffer = staged.bytes(device);
                   STRATA_RETURN_IF_ERROR(ops.broadcast({&buffer, 1}, {&buffer, 1}, root, options));
                   staged.finish();
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::barrier(const c10d::BarrierOptions& opts) {
  const CallOptions options = call_options(opts.timeout);
  // An all-reduce of one byte: every cross-process plugin has all_reduce,
  // not every one has a barrier (grpc_ring has none), and what a group
  // runs must not depend on which plugin serves it.
  const strata_device_t device = device_;
  return enqueue(c10d::OpType::BARRIER, {}, [options, device](CollectiveOps& ops) {
    uint8_t byte = 0;
    const Buffer buffer{&byte, DType::kU8, 1, device};
    return ops.all_reduce({&buffer, 1}, {&buffer, 1}, ReduceOp::kMax, options);
  });
}

}  // namespace strata::python
