// The gathering and scattering collectives of ProcessGroupStrata: the flat
// forms (_allgather_base, _reduce_scatter_base) map onto one core call; the
// list forms go through one flat scratch tensor, since core takes one
// buffer per process.
#include <string>
#include <utility>

#include "python/src/common/status_error.h"
#include "python/src/torch/process_group_strata.h"
#include "python/src/torch/tensor_buffers.h"

namespace strata::python {
namespace {


// Are the outputs consecutive blocks of one buffer (as `big.chunk(n)`
// gives)? Then the gather writes straight into them.
bool consecutive(const std::vector<at::Tensor>& outs) {
  const auto* first = static_cast<const char*>(outs.front().data_ptr());
  const auto block = static_cast<ptrdiff_t>(outs.front().nbytes());
  if (first == nullptr || block == 0) return false;
  for (size_t r = 0; r < outs.size(); ++r) {
    if (!outs[r].is_contiguous() ||
        static_cast<const char*>(outs[r].data_ptr()) != first + static_cast<ptrdiff_t>(r) * block) {
      return false;
    }
  }
  return true;
}

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::_allgather_base(
    at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& opts) {
  throw_if_error(check_tensor(input, "all_gather_into_tensor"));
  throw_if_error(check_like(output, input, input.numel() * size_, "all_gather_into_tensor",
                            "the output"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  // Bytes move as they are, so every dtype gathers.
  return enqueue(c10d::OpType::_ALLGATHER_BASE, {output},
                 [in = StagedTensor(input), out = StagedTensor(output), options,
                  device](CollectiveOps& ops) {
                   const Buffer source = in.bytes(device);
                   const Buffer target = out.bytes(device);
                   STRATA_RETURN_IF_ERROR(ops.all_gather({&source, 1}, {&target, 1}, options));
                   out.finish();
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::allgather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions& opts) {
  throw_if_error(check_single_tensor(inputs, "all_gather"));
  if (outputs.size() != 1) {
    throw_status(InvalidArgumentError("strata backend: all_gather takes one output list per "
                                      "process, not " + std::to_string(outputs.size())));
  }
  const at::Tensor& input = inputs.front();
  throw_if_error(check_list_like(outputs.front(), input, size_, "all_gather", "output"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  return enqueue(c10d::OpType::ALLGATHER, outputs.front(),
                 [in = StagedTensor(input), outs = outputs.front(), options,
                  device](CollectiveOps& ops) {
                   const int64_t numel = in.numel();
                   const Buffer source = in.bytes(device);
                   if (consecutive(outs)) {
                     const Buffer target{outs.front().data_ptr(), DType::kU8,
                                         source.count * outs.size(), device};
                     return ops.all_gather({&source, 1}, {&target, 1}, options);
                   }
                   at::Tensor flat = at::empty({numel * static_cast<int64_t>(outs.size())},
                                               outs.front().options());
                   const Buffer target = StagedTensor(flat).bytes(device);
                   STRATA_RETURN_IF_ERROR(ops.all_gather({&source, 1}, {&target, 1}, options));
                   for (size_t r = 0; r < outs.size(); ++r) {
                     at::Tensor out = outs[r];  // a handle: copy_ writes the caller's tensor
                     out.copy_(flat.narrow(0, static_cast<int64_t>(r) * numel, numel)
                                   .view(out.sizes()));
                   }
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::_reduce_scatter_base(
    at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) {
  throw_if_error(check_tensor(output, "reduce_scatter_tensor"));
  throw_if_error(check_like(input, output, output.numel() * size_, "reduce_scatter_tensor",
                            "the input"));
  const DType dtype =
      value_or_throw(reduction_dtype(output, opts.reduceOp, "reduce_scatter_tensor"));
  const ReduceOp op = value_or_throw(reduce_op_of(opts.reduceOp, "reduce_scatter_tensor"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  return enqueue(c10d::OpType::_REDUCE_SCATTER_BASE, {output},
                 [in = StagedTensor(input), out = StagedTensor(output), dtype, op, options,
                  device](CollectiveOps& ops) {
                   const Buffer source = in.buffer(dtype, device);
                   const Buffer target = out.buffer(dtype, device);
                   STRATA_RETURN_IF_ERROR(
                       ops.reduce_scatter({&source, 1}, {&target, 1}, op, options));
                   out.finish();
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::reduce_scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ReduceScatterOptions& opts) {
  throw_if_error(check_single_tensor(outputs, "reduce_scatter"));
  if (inputs.size() != 1) {
    throw_status(InvalidArgumentError("strata backend: reduce_scatter takes one input list per "
                                      "process, not " + std::to_string(inputs.size())));
  }
  const at::Tensor& output = outputs.front();
  throw_if_error(check_list_like(inputs.front(), output, size_, "reduce_scatter", "input"));
  const DType dtype = value_or_throw(reduction_dtype(output, opts.reduceOp, "reduce_scatter"));
  const ReduceOp op = value_or_throw(reduce_op_of(opts.reduceOp, "reduce_scatter"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  return enqueue(c10d::OpType::REDUCE_SCATTER, outputs,
                 [ins = inputs.front(), out = StagedTensor(output), dtype, op, options,
                  device](CollectiveOps& ops) {
                   std::vector<at::Tensor> flat_inputs;
                   for (const at::Tensor& t : ins) flat_inputs.push_back(t.reshape({-1}));
                   const at::Tensor flat = at::cat(flat_inputs);
                   const Buffer source = StagedTensor(flat).buffer(dtype, device);
                   const Buffer target = out.buffer(dtype, device);
                   STRATA_RETURN_IF_ERROR(
                       ops.reduce_scatter({&source, 1}, {&target, 1}, op, options));
                   out.finish();
                   return Status();
                 });
}

}  // namespace strata::python
