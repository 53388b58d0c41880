#include "core/collective/host_composed_collective.h"

#include <algorithm>

#include "core/collective/collective_ops.h"
#include "core/collective/device_steps.h"
#include "core/runtime/runtime.h"

namespace strata {
namespace {

// Sub-team ids derive from the parent's, so they agree on every rank; each
// host's team gets its own (the host index above bit 32).
constexpr uint64_t kIntraHostTag = uint64_t{1} << 61;
constexpr uint64_t kInterHostTag = uint64_t{1} << 60;

CommunicationOptions options_of(const CollectivesConfig& config) {
  CommunicationOptions options;
  options.implementation = config.implementation;
  options.bytes_per_pack = config.bytes_per_pack;
  options.timeout = config.timeout;
  return options;
}

// A sub-team of `parent` made of the processes `ranks` (in that order).
TeamSpec sub_team(const Team& parent, const std::vector<int>& ranks, int my_index, uint64_t id) {
  TeamSpec spec = parent.spec();
  spec.local_devices = parent.devices();
  spec.process_rank = my_index;
  spec.process_count = static_cast<int>(ranks.size());
  spec.store = parent.job_store();
  spec.team_id = id;
  const Team* whole = &parent;
  spec.describe_process = [whole, ranks](int r) {
    return whole->describe_process(ranks[static_cast<size_t>(r)]);
  };
  return spec;
}

}  // namespace

StatusOr<std::unique_ptr<HostComposedCollective>> HostComposedCollective::create(
    const Team& parent, const CollectivesConfig& config) {
  std::shared_ptr<Runtime> runtime = parent.runtime().shared_from_this();
  const int rank = parent.desc().process_rank;
  const int host = parent.host_of(rank);
  const std::vector<int> members = parent.host_members(host);
  const int local_index =
      static_cast<int>(std::find(members.begin(), members.end(), rank) - members.begin());
  const uint64_t id = parent.desc().team_id;

  std::unique_ptr<CollectiveOps> intra;
  if (members.size() > 1) {
    TeamSpec spec =
        sub_team(parent, members, local_index, (id ^ kIntraHostTag) + (uint64_t(host) << 32));
    STRATA_ASSIGN_OR_RETURN(intra, CollectiveOps::create(runtime, spec, options_of(config)));
  }
  std::unique_ptr<CollectiveOps> inter;
  if (local_index == 0) {
    std::vector<int> leaders;
    for (int h = 0; h < parent.host_count(); ++h) leaders.push_back(parent.host_members(h)[0]);
    TeamSpec spec = sub_team(parent, leaders, host, id ^ kInterHostTag);
    STRATA_ASSIGN_OR_RETURN(inter, CollectiveOps::create(runtime, spec, options_of(config)));
  }
  return std::unique_ptr<HostComposedCollective>(
      new HostComposedCollective(parent, std::move(intra), std::move(inter)));
}

HostComposedCollective::HostComposedCollective(const Team& parent,
                                               std::unique_ptr<CollectiveOps> intra,
                                               std::unique_ptr<CollectiveOps> inter)
    : parent_(parent), intra_(std::move(intra)), inter_(std::move(inter)) {
  const int processes = parent.desc().process_count;
  host_ = parent.host_of(parent.desc().process_rank);
  largest_ = parent.largest_host();
  local_index_of_.assign(static_cast<size_t>(processes), 0);
  for (int h = 0; h < parent.host_count(); ++h) {
    const std::vector<int> members = parent.host_members(h);
    for (size_t i = 0; i < members.size(); ++i) {
      local_index_of_[static_cast<size_t>(members[i])] = static_cast<int>(i);
    }
  }
  local_index_ = local_index_of_[static_cast<size_t>(parent.desc().process_rank)];
  blocked_ = true;
  for (int r = 0; r < processes; ++r) blocked_ = blocked_ && slot(r) == static_cast<uint64_t>(r);
  blocked_ = blocked_ && processes == largest_ * parent.host_count();
}

HostComposedCollective::~HostComposedCollective() = default;

uint64_t HostComposedCollective::slot(int rank) const {
  return static_cast<uint64_t>(parent_.host_of(rank)) * static_cast<uint64_t>(largest_) +
         static_cast<uint64_t>(local_index_of_[static_cast<size_t>(rank)]);
}

Status HostComposedCollective::run(CollectiveKind kind, const Buffer& in, const Buffer& out,
                                   ReduceOp op, int root, uint64_t count, Deadline deadline) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return all_reduce(in, out, op, deadline);
    case CollectiveKind::kBroadcast: return broadcast(in, out, root, deadline);
    case CollectiveKind::kAllGather: return all_gather(in, out, count, deadline);
    case CollectiveKind::kReduceScatter: return reduce_scatter(in, out, op, count, deadline);
    case CollectiveKind::kReduce: return reduce(in, out, op, root, deadline);
    case CollectiveKind::kBarrier: return barrier(deadline);
  }
  return InvalidArgumentError("unknown collective");
}

Status HostComposedCollective::all_reduce(const Buffer& in, const Buffer& out, ReduceOp op,
                                          Deadline deadline) {
  STRATA_RETURN_IF_ERROR(intra_reduce(in, out, summing_op(op), deadline));
  if (inter_) {
    const Buffer head[] = {out};
    STRATA_RETURN_IF_ERROR(inter_->all_reduce(head, head, summing_op(op),
                                              options_until(deadline)));
    if (op == ReduceOp::kMean) STRATA_RETURN_IF_ERROR(divide(out, deadline));
  }
  return intra_broadcast(out, out, 0, deadline);
}

Status HostComposedCollective::broadcast(const Buffer& in, const Buffer& out, int root,
                                         Deadline deadline) {
  const int root_host = parent_.host_of(root);
  if (root_host == host_) {
    STRATA_RETURN_IF_ERROR(
        intra_broadcast(in, out, local_index_of_[static_cast<size_t>(root)], deadline));
  }
  if (inter_) {
    const Buffer head[] = {out};
    STRATA_RETURN_IF_ERROR(inter_->broadcast(head, head, root_host, options_until(deadline)));
  }
  if (root_host == host_) return Status::Ok();
  return intra_broadcast(out, out, 0, deadline);
}

Status HostComposedCollective::reduce(const Buffer& in, const Buffer& out, ReduceOp op,
                                      int root, Deadline deadline) {
  STRATA_ASSIGN_OR_RETURN(Buffer partial, scratch(in, in.count));
  STRATA_RETURN_IF_ERROR(intra_reduce(in, partial, summing_op(op), deadline));
  const int root_host = parent_.host_of(root);
  if (inter_) {
    const Buffer head[] = {partial};
    STRATA_RETURN_IF_ERROR(
        inter_->reduce(head, head, summing_op(op), root_host, options_until(deadline)));
  }
  if (root_host != host_) return Status::Ok();
  if (inter_ && op == ReduceOp::kMean) STRATA_RETURN_IF_ERROR(divide(partial, deadline));
  // Only the leader holds the result; a root that is not the leader gets it
  // from the leader (its host's other processes take part and drop it).
  const int root_index = local_index_of_[static_cast<size_t>(root)];
  if (root_index != 0) STRATA_RETURN_IF_ERROR(intra_broadcast(partial, partial, 0, deadline));
  if (root != parent_.desc().process_rank) return Status::Ok();
  return copy(out, partial, deadline);
}

Status HostComposedCollective::all_gather(const Buffer& in, const Buffer& out, uint64_t count,
                                          Deadline deadline) {
  const uint64_t hosts = static_cast<uint64_t>(parent_.host_count());
  const uint64_t block = count * static_cast<uint64_t>(largest_);
  // This host's block, then (on the leader, when reordering) every host's.
  STRATA_ASSIGN_OR_RETURN(Buffer space, scratch(in, block + (blocked_ ? 0 : hosts * block)));
  const Buffer mine = slice_of(space, 0, block);
  const uint64_t members = intra_ ? static_cast<uint64_t>(intra_->team().desc().process_count)
                                  : 1;
  STRATA_RETURN_IF_ERROR(intra_all_gather(in, slice_of(mine, 0, members * count), deadline));
  if (inter_) {
    const Buffer gathered = blocked_ ? out : slice_of(space, block, hosts * block);
    const Buffer from[] = {mine};
    const Buffer into[] = {gathered};
    STRATA_RETURN_IF_ERROR(inter_->all_gather(from, into, options_until(deadline)));
    if (!blocked_) {
      for (int r = 0; r < parent_.desc().process_count; ++r) {
        STRATA_RETURN_IF_ERROR(copy(slice_of(out, static_cast<uint64_t>(r) * count, count),
                                    slice_of(gathered, slot(r) * count, count), deadline));
      }
    }
  }
  return intra_broadcast(out, out, 0, deadline);
}

Status HostComposedCollective::reduce_scatter(const Buffer& in, const Buffer& out, ReduceOp op,
                                              uint64_t count, Deadline deadline) {
  const uint64_t hosts = static_cast<uint64_t>(parent_.host_count());
  const uint64_t block = count * static_cast<uint64_t>(largest_);
  const uint64_t padded = hosts * block;
  // [padded input when reordering][the host's sums][this host's block]
  const uint64_t reorder = blocked_ ? 0 : padded;
  STRATA_ASSIGN_OR_RETURN(Buffer space, scratch(in, reorder + padded + block));
  Buffer source = in;
  if (!blocked_) {
    source = slice_of(space, 0, padded);
    // Padding slots are summed and dropped; fill them with real values so
    // nothing uninitialised enters a reduction.
    for (uint64_t s = 0; s < hosts * static_cast<uint64_t>(largest_); ++s) {
      STRATA_RETURN_IF_ERROR(copy(slice_of(source, s * count, count), slice_of(in, 0, count),
                                  deadline));
    }
    for (int r = 0; r < parent_.desc().process_count; ++r) {
      STRATA_RETURN_IF_ERROR(copy(slice_of(source, slot(r) * count, count),
                                  slice_of(in, static_cast<uint64_t>(r) * count, count),
                                  deadline));
    }
  }
  const Buffer sums = slice_of(space, reorder, padded);
  const Buffer host_block = slice_of(space, reorder + padded, block);
  STRATA_RETURN_IF_ERROR(intra_reduce(source, sums, summing_op(op), deadline));
  if (inter_) {
    const Buffer from[] = {sums};
    const Buffer into[] = {host_block};
    STRATA_RETURN_IF_ERROR(
        inter_->reduce_scatter(from, into, summing_op(op), options_until(deadline)));
    if (op == ReduceOp::kMean) STRATA_RETURN_IF_ERROR(divide(host_block, deadline));
  }
  STRATA_RETURN_IF_ERROR(intra_broadcast(host_block, host_block, 0, deadline));
  return copy(out, slice_of(host_block, static_cast<uint64_t>(local_index_) * count, count),
              deadline);
}

Status HostComposedCollective::barrier(Deadline deadline) {
  if (intra_) STRATA_RETURN_IF_ERROR(intra_->barrier(options_until(deadline)));
  if (inter_) STRATA_RETURN_IF_ERROR(inter_->barrier(options_until(deadline)));
  if (intra_) return intra_->barrier(options_until(deadline));
  return Status::Ok();
}

Status HostComposedCollective::intra_reduce(const Buffer& in, const Buffer& out, ReduceOp op,
                                            Deadline deadline) {
  if (!intra_) return copy(out, in, deadline);
  const Buffer from[] = {in};
  const Buffer into[] = {out};
  return intra_->reduce(from, into, op, 0, options_until(deadline));
}

Status HostComposedCollective::intra_broadcast(const Buffer& in, const Buffer& out, int root,
                                               Deadline deadline) {
  if (!intra_) return copy(out, in, deadline);
  const Buffer from[] = {in};
  const Buffer into[] = {out};
  return intra_->broadcast(from, into, root, options_until(deadline));
}

Status HostComposedCollective::intra_all_gather(const Buffer& in, const Buffer& out,
                                                Deadline deadline) {
  if (!intra_) return copy(out, in, deadline);
  const Buffer from[] = {in};
  const Buffer into[] = {out};
  return intra_->all_gather(from, into, options_until(deadline));
}

Status HostComposedCollective::copy(const Buffer& dst, const Buffer& src, Deadline deadline) {
  return copy_on_device(parent_.runtime(), dst, src, deadline);
}

Status HostComposedCollective::divide(const Buffer& b, Deadline deadline) {
  return divide_on_device(parent_.runtime(), b,
                          static_cast<uint32_t>(parent_.desc().process_count), deadline);
}

StatusOr<Buffer> HostComposedCollective::scratch(const Buffer& like, uint64_t count) {
  const strata_device_type_t& type =
      parent_.runtime().registry().device_type(like.device.type)->table;
  Buffer s = like;
  s.count = count;
  STRATA_ASSIGN_OR_RETURN(s.data, scratch_.get(type, like.device, std::max<uint64_t>(s.bytes(), 1)));
  return s;
}

}  // namespace strata
