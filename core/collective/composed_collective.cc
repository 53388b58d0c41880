#include "core/collective/composed_collective.h"

#include <algorithm>

#include "core/collective/collective_ops.h"
#include "core/collective/device_steps.h"
#include "core/plugin/abi_status.h"
#include "core/runtime/runtime.h"

namespace strata {
namespace {

// Sub-team ids derive from the parent's, so they agree on every rank.
constexpr uint64_t kCrossTeamTag = uint64_t{1} << 62;

}  // namespace

StatusOr<std::unique_ptr<ComposedCollective>> ComposedCollective::create(
    const Team& parent, const CollectivesConfig& config) {
  CommunicationOptions options;
  options.implementation = config.implementation;
  options.bytes_per_pack = config.bytes_per_pack;
  options.timeout = config.timeout;
  std::shared_ptr<Runtime> runtime = parent.runtime().shared_from_this();

  TeamSpec local;
  local.local_devices = parent.devices();
  STRATA_ASSIGN_OR_RETURN(auto local_ops, CollectiveOps::create(runtime, local, options));

  TeamSpec cross = parent.spec();
  cross.local_devices = {parent.devices().front()};
  cross.store = parent.job_store();
  cross.team_id = parent.desc().team_id ^ kCrossTeamTag;
  STRATA_ASSIGN_OR_RETURN(auto cross_ops, CollectiveOps::create(runtime, cross, options));
  return std::unique_ptr<ComposedCollective>(
      new ComposedCollective(parent, std::move(local_ops), std::move(cross_ops)));
}

ComposedCollective::ComposedCollective(const Team& parent, std::unique_ptr<CollectiveOps> local,
                                       std::unique_ptr<CollectiveOps> cross)
    : parent_(parent), local_(std::move(local)), cross_(std::move(cross)) {}

ComposedCollective::~ComposedCollective() = default;

Status ComposedCollective::run(CollectiveKind kind, std::span<const Buffer> inputs,
                               std::span<const Buffer> outputs, ReduceOp op, int root,
                               uint64_t count, Deadline deadline) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return all_reduce(inputs, outputs, op, deadline);
    case CollectiveKind::kBroadcast: return broadcast(inputs, outputs, root, deadline);
    case CollectiveKind::kAllGather: return all_gather(inputs, outputs, count, deadline);
    case CollectiveKind::kReduceScatter:
      return reduce_scatter(inputs, outputs, op, count, deadline);
    case CollectiveKind::kReduce: return reduce(inputs, outputs, op, root, deadline);
    case CollectiveKind::kBarrier: return barrier(deadline);
  }
  return InvalidArgumentError("unknown collective");
}

Status ComposedCollective::all_reduce(std::span<const Buffer> in, std::span<const Buffer> out,
                                      ReduceOp op, Deadline deadline) {
  STRATA_RETURN_IF_ERROR(local_->reduce(in, out, summing_op(op), 0, options_until(deadline)));
  const Buffer head[] = {out[0]};
  STRATA_RETURN_IF_ERROR(cross_->all_reduce(head, head, summing_op(op), options_until(deadline)));
  if (op == ReduceOp::kMean) {
    STRATA_RETURN_IF_ERROR(divide_on_device(
        parent_.runtime(), out[0], static_cast<uint32_t>(parent_.replica_count()), deadline));
  }
  return local_->broadcast(out, out, 0, options_until(deadline));
}

Status ComposedCollective::broadcast(std::span<const Buffer> in, std::span<const Buffer> out,
                                     int root, Deadline deadline) {
  const int local_count = parent_.local_count();
  const int root_process = root / local_count;
  const bool here = root_process == parent_.desc().process_rank;
  if (here) STRATA_RETURN_IF_ERROR(local_->broadcast(in, out, root % local_count, options_until(deadline)));
  const Buffer head[] = {out[0]};
  STRATA_RETURN_IF_ERROR(cross_->broadcast(head, head, root_process, options_until(deadline)));
  if (here) return Status::Ok();
  return local_->broadcast(out, out, 0, options_until(deadline));
}

Status ComposedCollective::all_gather(std::span<const Buffer> in, std::span<const Buffer> out,
                                      uint64_t count, Deadline deadline) {
  const uint64_t block = count * static_cast<uint64_t>(parent_.local_count());
  const uint64_t offset = block * static_cast<uint64_t>(parent_.desc().process_rank);
  std::vector<Buffer> mine;
  for (const Buffer& b : out) mine.push_back(slice_of(b, offset, block));
  STRATA_RETURN_IF_ERROR(local_->all_gather(in, mine, options_until(deadline)));
  const Buffer cross_in[] = {mine[0]};
  const Buffer cross_out[] = {out[0]};
  STRATA_RETURN_IF_ERROR(cross_->all_gather(cross_in, cross_out, options_until(deadline)));
  return local_->broadcast(out, out, 0, options_until(deadline));
}

Status ComposedCollective::reduce_scatter(std::span<const Buffer> in,
                                          std::span<const Buffer> out, ReduceOp op,
                                          uint64_t count, Deadline deadline) {
  const uint64_t local_count = static_cast<uint64_t>(parent_.local_count());
  const uint64_t total = count * static_cast<uint64_t>(parent_.replica_count());
  // Device 0 holds the process's partial sums and, after them, its block.
  STRATA_ASSIGN_OR_RETURN(std::vector<Buffer> partial, scratch(in, total + count * local_count));
  std::vector<Buffer> sums;
  for (const Buffer& b : partial) sums.push_back(slice_of(b, 0, total));
  STRATA_RETURN_IF_ERROR(local_->reduce(in, sums, summing_op(op), 0, options_until(deadline)));
  const Buffer block = slice_of(partial[0], total, count * local_count);
  const Buffer cross_in[] = {sums[0]};
  const Buffer cross_out[] = {block};
  STRATA_RETURN_IF_ERROR(cross_->reduce_scatter(cross_in, cross_out, summing_op(op),
                                                options_until(deadline)));
  if (op == ReduceOp::kMean) {
    STRATA_RETURN_IF_ERROR(divide_on_device(
        parent_.runtime(), block, static_cast<uint32_t>(parent_.replica_count()), deadline));
  }
  std::vector<Buffer> blocks{block};
  for (size_t i = 1; i < partial.size(); ++i) blocks.push_back(slice_of(partial[i], 0, block.count));
  STRATA_RETURN_IF_ERROR(local_->broadcast(blocks, blocks, 0, options_until(deadline)));
  for (size_t i = 0; i < out.size(); ++i) {
    STRATA_RETURN_IF_ERROR(
        copy_on_device(parent_.runtime(), out[i], slice_of(blocks[i], i * count, count), deadline));
  }
  return Status::Ok();
}

Status ComposedCollective::reduce(std::span<const Buffer> in, std::span<const Buffer> out,
                                  ReduceOp op, int root, Deadline deadline) {
  const uint64_t count = in[0].count;
  STRATA_ASSIGN_OR_RETURN(std::vector<Buffer> partial, scratch(in, count));
  STRATA_RETURN_IF_ERROR(local_->reduce(in, partial, summing_op(op), 0, options_until(deadline)));
  const int local_count = parent_.local_count();
  const int root_process = root / local_count;
  const Buffer head[] = {partial[0]};
  STRATA_RETURN_IF_ERROR(cross_->reduce(head, head, summing_op(op), root_process,
                                        options_until(deadline)));
  if (root_process != parent_.desc().process_rank) return Status::Ok();
  if (op == ReduceOp::kMean) {
    STRATA_RETURN_IF_ERROR(divide_on_device(
        parent_.runtime(), partial[0], static_cast<uint32_t>(parent_.replica_count()), deadline));
  }
  return copy_on_device(parent_.runtime(), out[static_cast<size_t>(root % local_count)],
                        partial[0], deadline);
}

Status ComposedCollective::barrier(Deadline deadline) {
  STRATA_RETURN_IF_ERROR(local_->barrier(options_until(deadline)));
  STRATA_RETURN_IF_ERROR(cross_->barrier(options_until(deadline)));
  return local_->barrier(options_until(deadline));
}

StatusOr<std::vector<Buffer>> ComposedCollective::scratch(std::span<const Buffer> like,
                                                          uint64_t count) {
  const strata_device_type_t& type = parent_.runtime().registry()
                                         .device_type(parent_.device_type())->table;
  std::vector<Buffer> out;
  for (const Buffer& b : like) {
    Buffer s = b;
    s.count = count;
    STRATA_ASSIGN_OR_RETURN(s.data, scratch_.get(type, b.device, std::max<uint64_t>(
                                                                     s.bytes(), 1)));
    out.push_back(s);
  }
  return out;
}

}  // namespace strata
