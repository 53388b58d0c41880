// The collectives of ProcessGroupStrata: each checks its arguments here,
// on the caller's thread, then queues a body that stages, runs and copies
// back on the group's WorkQueue.
#include <utility>

#include "python/src/common/status_error.h"
#include "python/src/torch/process_group_strata.h"
#include "python/src/torch/tensor_buffers.h"

namespace strata::python {

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::allreduce(std::vector<at::Tensor>& tensors,
                                                             const c10d::AllreduceOptions& opts) {
  throw_if_error(check_single_tensor(tensors, "all_reduce"));
  const at::Tensor& tensor = tensors.front();
  const DType dtype = value_or_throw(reduction_dtype(tensor, opts.reduceOp, "all_reduce"));
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

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::allreduce_coalesced(
    std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) {
  std::vector<StagedTensor> staged;
  std::vector<DType> dtypes;
  for (const at::Tensor& tensor : tensors) {
    throw_if_error(check_tensor(tensor, "all_reduce_coalesced"));
    dtypes.push_back(value_or_throw(reduction_dtype(tensor, opts.reduceOp, "all_reduce_coalesced")));
    staged.emplace_back(tensor);
  }
  const ReduceOp op = value_or_throw(reduce_op_of(opts.reduceOp, "all_reduce_coalesced"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  // Core packs the tensors per dtype up to bytes_per_pack, as TF's
  // MultiWorkerMirroredStrategy does with its gradients.
  return enqueue(c10d::OpType::ALLREDUCE_COALESCED, tensors,
                 [staged = std::move(staged), dtypes = std::move(dtypes), op, options,
                  device](CollectiveOps& ops) {
                   std::vector<Buffer> buffers;
                   for (size_t i = 0; i < staged.size(); ++i) {
                     buffers.push_back(staged[i].buffer(dtypes[i], device));
                   }
                   STRATA_RETURN_IF_ERROR(ops.batch_all_reduce({&buffers, 1}, op, options));
                   for (const StagedTensor& s : staged) s.finish();
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::reduce(std::vector<at::Tensor>& tensors,
                                                          const c10d::ReduceOptions& opts) {
  throw_if_error(check_single_tensor(tensors, "reduce"));
  const int root = checked_root(opts.rootRank, opts.rootTensor, "reduce");
  const DType dtype = value_or_throw(reduction_dtype(tensors.front(), opts.reduceOp, "reduce"));
  const ReduceOp op = value_or_throw(reduce_op_of(opts.reduceOp, "reduce"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  // In place: only the root's tensor changes.
  return enqueue(c10d::OpType::REDUCE, tensors,
                 [staged = StagedTensor(tensors.front()), tensor = tensors.front(), dtype, op,
                  root, is_root = rank_ == root, options, device](CollectiveOps& ops) {
                   const Buffer buffer = staged.buffer(dtype, device);
                   // A plugin without reduce (grpc_ring) still serves the
                   // group: an all_reduce gives the root the same result,
                   // the others reduce into a copy. The verdict is the same
                   // on every rank (no algorithm at all), so all take it.
                   StatusOr<Selection> walk =
                       ops.explain(CollectiveKind::kReduce, dtype, buffer.count, op,
                                   /*in_place=*/true, root);
                   const bool no_reduce = walk.ok() ? walk->chosen == nullptr
                                                    : walk.status().code() == Code::kNotSupported;
                   if (no_reduce) {
                     const at::Tensor scratch = is_root ? tensor : tensor.contiguous().clone();
                     const Buffer target = is_root ? buffer
                                                   : StagedTensor(scratch).buffer(dtype, device);
                     STRATA_RETURN_IF_ERROR(
                         ops.all_reduce({&target, 1}, {&target, 1}, op, options));
                   } else {
                     STRATA_RETURN_IF_ERROR(
                         ops.reduce({&buffer, 1}, {&buffer, 1}, op, root, options));
                   }
                   staged.finish();
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::broadcast(std::vector<at::Tensor>& tensors,
                                                             const c10d::BroadcastOptions& opts) {
  throw_if_error(check_single_tensor(tensors, "broadcast"));
  const int root = checked_root(opts.rootRank, opts.rootTensor, "broadcast");
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

int ProcessGroupStrata::checked_root(int64_t root_rank, int64_t root_tensor,
                                     const std::string& call) const {
  if (root_tensor != 0) {
    throw_status(InvalidArgumentError("strata backend: " + call + " with rootTensor " +
                                      std::to_string(root_tensor) +
                                      "; there is one tensor per process"));
  }
  if (root_rank < 0 || root_rank >= size_) {
    throw_status(InvalidArgumentError("strata backend: " + call + " with root " +
                                      std::to_string(root_rank) + " in a group of " +
                                      std::to_string(size_)));
  }
  return static_cast<int>(root_rank);
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
