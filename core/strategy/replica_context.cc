#include "core/strategy/replica_context.h"

#include "core/strategy/cross_replica_math.h"
#include "core/strategy/replica_rendezvous.h"
#include "core/strategy/strategy.h"
#include "core/strategy/thread_context.h"

namespace strata {

ReplicaContext::ReplicaContext(Strategy& strategy, int replica_id)
    : strategy_(&strategy), replica_id_(replica_id) {}

int ReplicaContext::num_replicas_in_sync() const { return strategy_->num_replicas_in_sync(); }

int ReplicaContext::replica_id_in_sync_group() const {
  return strategy_->first_replica_id() + replica_id_;
}

strata_device_t ReplicaContext::device() const {
  return strategy_->devices()[static_cast<size_t>(replica_id_)];
}

Status ReplicaContext::rendezvous(const std::string& what, void* payload,
                                  const std::function<Status(std::span<void* const>)>& step) {
  const auto deadline = ReplicaRendezvous::Clock::now() + strategy_->timeout();
  return strategy_->rendezvous().arrive(replica_id_, what, payload, step, deadline);
}

StatusOr<Tensor> ReplicaContext::all_reduce(ReduceOp op, const Tensor& value) {
  Tensor result = value;
  result.set_device(device());
  Tensor* mine = &result;
  STRATA_RETURN_IF_ERROR(all_reduce(op, std::span<Tensor* const>(&mine, 1)));
  return result;
}

Status ReplicaContext::all_reduce(ReduceOp op, std::span<Tensor* const> values) {
  for (Tensor* t : values) t->set_device(device());
  const std::string what = "all_reduce(" + std::string(reduce_op_name(op)) + ") of " +
                           std::to_string(values.size()) + " tensor(s)";
  return rendezvous(what, &values, [&](std::span<void* const> payloads) {
    std::vector<std::vector<Tensor*>> per_replica;
    per_replica.reserve(payloads.size());
    for (void* p : payloads) {
      const auto& theirs = *static_cast<std::span<Tensor* const>*>(p);
      per_replica.emplace_back(theirs.begin(), theirs.end());
    }
    detail::CrossReplicaSection section;
    return strategy_->all_reduce_replicas(op, per_replica);
  });
}

StatusOr<Tensor> ReplicaContext::all_gather(const Tensor& value, int axis) {
  struct Payload {
    const Tensor* in;
    Tensor* out;
  };
  Tensor out;
  Payload mine{&value, &out};
  const std::string what = "all_gather(axis " + std::to_string(axis) + ")";
  STRATA_RETURN_IF_ERROR(rendezvous(what, &mine, [&](std::span<void* const> payloads) {
    std::vector<Tensor> parts;
    for (void* p : payloads) parts.push_back(*static_cast<Payload*>(p)->in);
    detail::CrossReplicaSection section;
    STRATA_ASSIGN_OR_RETURN(Tensor joined, strategy_->gather(PerReplica<Tensor>(parts), axis));
    for (size_t r = 0; r < payloads.size(); ++r) {
      Tensor& dst = *static_cast<Payload*>(payloads[r])->out;
      dst = joined;
      dst.set_device(strategy_->devices()[r]);
    }
    return Status();
  }));
  return out;
}

namespace detail {
CrossReplicaSection::CrossReplicaSection() : saved_(current_replica_slot()) {
  current_replica_slot() = nullptr;
}
CrossReplicaSection::~CrossReplicaSection() { current_replica_slot() = saved_; }
}  // namespace detail

}  // namespace strata
