// strata.torch.explain(): which algorithm serves one torch call on a
// "strata" group, and why. Each torch op is mapped onto the core call it
// runs as, exactly as the op itself maps it (process_group_*ops.cc), and
// core's explain gives the selector's verdict for that call.
#include "core/collective/call_size.h"
#include "python/src/common/status_error.h"
#include "python/src/torch/process_group_strata.h"
#include "python/src/torch/tensor_buffers.h"

namespace strata::python {
namespace {

struct CoreCall {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  DType dtype = DType::kU8;
  uint64_t count = 0;
  ReduceOp redop = ReduceOp::kSum;
  int root = 0;
  bool in_place = true;
  std::string how;  // how the torch op uses it, when not one to one
};

uint64_t byte_count(const at::Tensor& t) { return static_cast<uint64_t>(t.nbytes()); }

}  // namespace

ProcessGroupStrata::Explained ProcessGroupStrata::explain(const std::string& op,
                                                          const at::Tensor& tensor,
                                                          const c10d::ReduceOp& reduce_op,
                                                          int64_t root_rank) {
  throw_if_error(check_tensor(tensor, "explain"));
  const int root = checked_root(root_rank, 0, "explain of " + op);
  const auto n = static_cast<uint64_t>(size_);
  CoreCall c;
  if (op == "all_reduce" || op == "all_reduce_coalesced" || op == "reduce") {
    c.kind = op == "reduce" ? CollectiveKind::kReduce : CollectiveKind::kAllReduce;
    c.dtype = value_or_throw(reduction_dtype(tensor, reduce_op, op));
    c.redop = value_or_throw(reduce_op_of(reduce_op, op));
    c.count = static_cast<uint64_t>(tensor.numel());
    c.root = op == "reduce" ? root : 0;
    if (op == "all_reduce_coalesced") c.how = "per pack of bytes_per_pack, tensors of one dtype";
  } else if (op == "broadcast") {
    c = {CollectiveKind::kBroadcast, DType::kU8, byte_count(tensor), ReduceOp::kSum, root, true,
         "as bytes"};
  } else if (op == "all_gather" || op == "all_gather_into_tensor" || op == "gather") {
    c = {CollectiveKind::kAllGather, DType::kU8, byte_count(tensor), ReduceOp::kSum, 0, false,
         op == "gather" ? "as bytes; the root keeps the result"
                        : "as bytes"};
  } else if (op == "reduce_scatter" || op == "reduce_scatter_tensor") {
    c.kind = CollectiveKind::kReduceScatter;
    c.dtype = value_or_throw(reduction_dtype(tensor, reduce_op, op));
    c.redop = value_or_throw(reduce_op_of(reduce_op, op));
    c.count = static_cast<uint64_t>(tensor.numel());
    c.in_place = false;
    c.how = "the tensor is the output, one rank's block";
  } else if (op == "scatter") {
    c = {CollectiveKind::kBroadcast, DType::kU8, n * byte_count(tensor), ReduceOp::kSum, root, true,
         "the root's n blocks as bytes; each rank keeps its own (the tensor is the "
         "output)"};
  } else if (op == "all_to_all" || op == "all_to_all_single") {
    c = {CollectiveKind::kAllGather, DType::kU8, byte_count(tensor), ReduceOp::kSum, 0, false,
         "each rank's input as bytes, padded to the largest when the splits differ, after "
         "an all_gather of the split sizes"};
  } else if (op == "barrier") {
    c = {CollectiveKind::kAllReduce, DType::kU8, 1, ReduceOp::kMax, 0, true,
         "one byte: not every plugin has a barrier"};
  } else {
    throw_status(InvalidArgumentError(
        "strata.torch.explain: unknown op \"" + op +
        "\"; the strata backend runs all_reduce, all_reduce_coalesced, reduce, broadcast, "
        "all_gather, all_gather_into_tensor, gather, reduce_scatter, reduce_scatter_tensor, "
        "scatter, all_to_all, all_to_all_single and barrier"));
  }
  std::shared_ptr<JobTeam> team = value_or_throw(queue_->team());
  StatusOr<Selection> selection =
      team->ops().explain(c.kind, c.dtype, c.count, c.redop, c.in_place, c.root);
  const bool no_reduce = c.kind == CollectiveKind::kReduce &&
                         (selection.ok() ? selection->chosen == nullptr
                                         : selection.status().code() == Code::kNotSupported);
  if (no_reduce) {
    // As reduce() does: no plugin reduces, so an all_reduce serves it.
    c.kind = CollectiveKind::kAllReduce;
    c.root = 0;
    c.how = "no loaded plugin has reduce: the root keeps the all_reduce's result";
    selection = team->ops().explain(c.kind, c.dtype, c.count, c.redop, c.in_place, c.root);
  }
  Explained out;
  out.selection = value_or_throw(std::move(selection));
  if (out.selection.chosen == nullptr) {
    throw_status(NotSupportedError("strata backend: no algorithm serves " + op + ": " +
                                   out.selection.reason));
  }
  const std::string core_call =
      describe_call(c.kind, bytes_for_count(c.kind, c.count, c.dtype, size_), c.count, c.dtype,
                    c.redop, c.root, c.in_place);
  out.call = "torch " + op + " of " + type_name(tensor) + "[" +
             std::to_string(tensor.numel()) + "] runs as " + core_call +
             (c.how.empty() ? "" : "; " + c.how);
  out.team = "strata process group " + spec_.group_id + " of " + std::to_string(size_) +
             " process(es), one cpu device each (this is " + describe_rank(rank_) + ")";
  return out;
}

}  // namespace strata::python
