// gather, scatter and all_to_all of ProcessGroupStrata, which the plugin
// ABI (1.1) has no operation for: each is built from all_gather or
// broadcast, moving every dtype as bytes (docs/PYTORCH.md says what each
// costs). send/recv and the deprecated coalesced all_gather raise
// NOT_SUPPORTED saying what is missing.
#include <cstring>
#include <numeric>
#include <utility>

#include "python/src/common/status_error.h"
#include "python/src/torch/block_exchange.h"
#include "python/src/torch/process_group_strata.h"
#include "strata/sdk/host_copy.h"
#include "python/src/torch/tensor_buffers.h"

namespace strata::python {
namespace {

uint8_t* bytes_of(const at::Tensor& t) { return static_cast<uint8_t*>(t.data_ptr()); }

// Copies `bytes` bytes from `from` into `tensor` (any layout).
void copy_into(const at::Tensor& tensor, const uint8_t* from) {
  const StagedTensor staged(tensor);
  const Buffer target = staged.bytes({0, 0});
  if (target.count > 0) sdk::copy_host(target.data, from, target.count);
  staged.finish();
}


// The byte size of each of the `size` blocks of dim 0 of `t`: `splits`
// rows each, or equal blocks when `splits` is empty (torch's convention).
std::vector<int64_t> split_bytes(const at::Tensor& t, const std::vector<int64_t>& splits,
                                 int size, const std::string& call, const std::string& what) {
  const int64_t rows = t.dim() == 0 ? 1 : t.size(0);
  const int64_t row_bytes = rows == 0 ? 0 : static_cast<int64_t>(t.nbytes()) / rows;
  std::vector<int64_t> bytes;
  if (splits.empty()) {
    if (rows % size != 0) {
      throw_status(InvalidArgumentError(
          "strata backend: " + call + ": the " + what + "'s first dimension (" +
          std::to_string(rows) + ") does not split into " + std::to_string(size) +
          " equal blocks; pass split sizes"));
    }
    bytes.assign(static_cast<size_t>(size), rows / size * row_bytes);
    return bytes;
  }
  if (splits.size() != static_cast<size_t>(size) ||
      std::accumulate(splits.begin(), splits.end(), int64_t{0}) != rows) {
    throw_status(InvalidArgumentError(
        "strata backend: " + call + ": " + std::to_string(splits.size()) + " " + what +
        " split sizes adding up to " +
        std::to_string(std::accumulate(splits.begin(), splits.end(), int64_t{0})) +
        " for a group of " + std::to_string(size) + " and a first dimension of " +
        std::to_string(rows)));
  }
  for (int64_t s : splits) {
    if (s < 0) {
      throw_status(InvalidArgumentError("strata backend: " + call + ": a negative " + what +
                                        " split size (" + std::to_string(s) + ")"));
    }
    bytes.push_back(s * row_bytes);
  }
  return bytes;
}

c10::intrusive_ptr<c10d::Work> not_supported(const std::string& call, const std::string& why) {
  throw_status(NotSupportedError("strata backend: " + call + " is not supported: " + why));
}

constexpr char kNoPointToPoint[] =
    "the strata backend's plugin ABI has only collectives, no point-to-point "
    "operations; use a group of another backend for it, e.g. dist.new_group(backend=\"gloo\")";

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::gather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::GatherOptions& opts) {
  throw_if_error(check_single_tensor(inputs, "gather"));
  const int root = checked_root(opts.rootRank, 0, "gather");
  const at::Tensor& input = inputs.front();
  const bool is_root = rank_ == root;
  if (outputs.size() != (is_root ? 1u : 0u)) {
    throw_status(InvalidArgumentError(
        "strata backend: gather takes " + std::string(is_root ? "one output list" : "no outputs") +
        " on " + std::string(is_root ? "the root" : "a rank other than the root") + ", not " +
        std::to_string(outputs.size())));
  }
  std::vector<at::Tensor> outs = is_root ? outputs.front() : std::vector<at::Tensor>{};
  if (is_root) throw_if_error(check_list_like(outs, input, size_, "gather", "output"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  const int size = size_;
  // An all_gather of which only the root keeps the result: (n-1)·S more
  // than a gather would move.
  return enqueue(c10d::OpType::GATHER, outs,
                 [in = StagedTensor(input), outs, size, options, device](CollectiveOps& ops) {
                   const Buffer source = in.bytes(device);
                   const at::Tensor flat = at::empty(
                       {static_cast<int64_t>(source.count) * size}, at::kByte);
                   const Buffer target = StagedTensor(flat).bytes(device);
                   STRATA_RETURN_IF_ERROR(ops.all_gather({&source, 1}, {&target, 1}, options));
                   for (size_t r = 0; r < outs.size(); ++r) {
                     copy_into(outs[r], bytes_of(flat) + r * source.count);
                   }
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ScatterOptions& opts) {
  throw_if_error(check_single_tensor(outputs, "scatter"));
  const int root = checked_root(opts.rootRank, 0, "scatter");
  const at::Tensor& output = outputs.front();
  const bool is_root = rank_ == root;
  if (inputs.size() != (is_root ? 1u : 0u)) {
    throw_status(InvalidArgumentError(
        "strata backend: scatter takes " + std::string(is_root ? "one input list" : "no inputs") +
        " on " + std::string(is_root ? "the root" : "a rank other than the root") + ", not " +
        std::to_string(inputs.size())));
  }
  std::vector<at::Tensor> ins = is_root ? inputs.front() : std::vector<at::Tensor>{};
  if (is_root) throw_if_error(check_list_like(ins, output, size_, "scatter", "input"));
  const CallOptions options = call_options(opts.timeout);
  const strata_device_t device = device_;
  const int size = size_;
  const int64_t rank = rank_;
  // The root broadcasts all n blocks, each rank keeps its own: n·S per
  // rank where a scatter moves S.
  return enqueue(c10d::OpType::SCATTER, outputs,
                 [ins, output, size, rank, root, options, device](CollectiveOps& ops) {
                   const auto block = static_cast<int64_t>(output.nbytes());
                   const at::Tensor flat = at::empty({block * size}, at::kByte);
                   for (size_t r = 0; r < ins.size(); ++r) {
                     const at::Tensor piece = ins[r].contiguous();
                     if (block > 0) {
                       sdk::copy_host(bytes_of(flat) + static_cast<int64_t>(r) * block,
                                   piece.data_ptr(), static_cast<size_t>(block));
                     }
                   }
                   const Buffer buffer = StagedTensor(flat).bytes(device);
                   STRATA_RETURN_IF_ERROR(ops.broadcast({&buffer, 1}, {&buffer, 1}, root, options));
                   copy_into(output, bytes_of(flat) + rank * block);
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::alltoall_base(
    at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_splits,
    std::vector<int64_t>& input_splits, const c10d::AllToAllOptions& opts) {
  const std::string call = "all_to_all_single";
  throw_if_error(check_tensor(input, call));
  throw_if_error(check_like(output, input, output.numel(), call, "the output"));
  std::vector<int64_t> send = split_bytes(input, input_splits, size_, call, "input");
  std::vector<int64_t> recv = split_bytes(output, output_splits, size_, call, "output");
  const BlockExchange exchange{rank_, size_, device_, call,
                               [this](int r) { return describe_rank(r); },
                               call_options(opts.timeout)};
  return enqueue(c10d::OpType::ALLTOALL_BASE, {output},
                 [in = StagedTensor(input), out = StagedTensor(output), send = std::move(send),
                  recv = std::move(recv), exchange](CollectiveOps& ops) {
                   STRATA_RETURN_IF_ERROR(exchange_blocks(
                       ops, exchange, static_cast<const uint8_t*>(in.bytes({0, 0}).data), send,
                       static_cast<uint8_t*>(out.bytes({0, 0}).data), recv));
                   out.finish();
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::alltoall(std::vector<at::Tensor>& outputs,
                                                            std::vector<at::Tensor>& inputs,
                                                            const c10d::AllToAllOptions& opts) {
  const std::string call = "all_to_all";
  for (const std::vector<at::Tensor>* list : {&inputs, &outputs}) {
    if (list->size() != static_cast<size_t>(size_)) {
      throw_status(InvalidArgumentError(
          "strata backend: all_to_all takes lists of " + std::to_string(size_) +
          " tensors (one per rank of the group), not " + std::to_string(list->size())));
    }
  }
  std::vector<int64_t> send, recv;
  for (size_t r = 0; r < inputs.size(); ++r) {
    throw_if_error(check_tensor(inputs[r], call));
    throw_if_error(check_like(inputs[r], inputs.front(), inputs[r].numel(), call,
                              "input " + std::to_string(r)));
    throw_if_error(check_like(outputs[r], inputs.front(), outputs[r].numel(), call,
                              "output " + std::to_string(r)));
    send.push_back(static_cast<int64_t>(inputs[r].nbytes()));
    recv.push_back(static_cast<int64_t>(outputs[r].nbytes()));
  }
  const BlockExchange exchange{rank_, size_, device_, call,
                               [this](int r) { return describe_rank(r); },
                               call_options(opts.timeout)};
  return enqueue(c10d::OpType::ALLTOALL, outputs,
                 [ins = inputs, outs = outputs, send = std::move(send), recv = std::move(recv),
                  exchange](CollectiveOps& ops) {
                   std::vector<at::Tensor> flat_inputs;
                   for (const at::Tensor& t : ins) flat_inputs.push_back(t.reshape({-1}));
                   const at::Tensor flat_in =
                       at::cat(flat_inputs).view(at::kByte).contiguous();
                   const at::Tensor flat_out = at::empty(
                       {std::accumulate(recv.begin(), recv.end(), int64_t{0})}, at::kByte);
                   STRATA_RETURN_IF_ERROR(exchange_blocks(ops, exchange, bytes_of(flat_in), send,
                                                          bytes_of(flat_out), recv));
                   int64_t offset = 0;
                   for (size_t r = 0; r < outs.size(); ++r) {
                     copy_into(outs[r], bytes_of(flat_out) + offset);
                     offset += recv[r];
                   }
                   return Status();
                 });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::allgather_coalesced(
    std::vector<std::vector<at::Tensor>>&, std::vector<at::Tensor>&,
    const c10d::AllgatherOptions&) {
  return not_supported("all_gather_coalesced",
                       "torch deprecates it; call all_gather for each tensor, or "
                       "all_gather_into_tensor");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::send(std::vector<at::Tensor>&, int, int) {
  return not_supported("send", kNoPointToPoint);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::recv(std::vector<at::Tensor>&, int, int) {
  return not_supported("recv", kNoPointToPoint);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupStrata::recvAnysource(std::vector<at::Tensor>&, int) {
  return not_supported("recv from any source", kNoPointToPoint);
}

void ProcessGroupStrata::monitoredBarrier(const c10d::BarrierOptions&, bool) {
  not_supported("monitored_barrier",
                "it reports which ranks missed the barrier, which needs point-to-point "
                "operations; dist.barrier() works, and a rank that dies or never calls fails "
                "the others' barrier with its name");
}

}  // namespace strata::python
