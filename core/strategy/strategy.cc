#include "core/strategy/strategy.h"

#include <exception>

#include "core/runtime/runtime.h"
#include "core/strategy/cross_replica_math.h"
#include "core/strategy/default_strategy.h"
#include "core/strategy/replica_pool.h"
#include "core/strategy/replica_rendezvous.h"
#include "core/strategy/thread_context.h"

namespace strata {

namespace detail {
Strategy*& current_strategy_slot() {
  thread_local Strategy* strategy = nullptr;
  return strategy;
}
ReplicaContext*& current_replica_slot() {
  thread_local ReplicaContext* replica = nullptr;
  return replica;
}
}  // namespace detail

Strategy& get_strategy() {
  Strategy* current = detail::current_strategy_slot();
  return current != nullptr ? *current : default_strategy();
}
bool has_strategy() { return detail::current_strategy_slot() != nullptr; }
ReplicaContext* get_replica_context() { return detail::current_replica_slot(); }
bool in_cross_replica_context() { return detail::current_replica_slot() == nullptr; }

StrategyScope::StrategyScope(Strategy* strategy)
    : previous_(detail::current_strategy_slot()), active_(true) {
  detail::current_strategy_slot() = strategy;
}
StrategyScope::StrategyScope(StrategyScope&& other) noexcept
    : previous_(other.previous_), active_(other.active_) {
  other.active_ = false;
}
StrategyScope::~StrategyScope() {
  if (active_) detail::current_strategy_slot() = previous_;
}

Strategy::Strategy(std::vector<strata_device_t> devices,
                   std::unique_ptr<CollectiveOps> collectives,
                   std::chrono::nanoseconds timeout)
    : devices_(std::move(devices)),
      collectives_(std::move(collectives)),
      timeout_(timeout.count() > 0 ? timeout
               : collectives_ != nullptr ? collectives_->config().timeout
                                         : std::chrono::nanoseconds(std::chrono::seconds(300))),
      rendezvous_(std::make_unique<ReplicaRendezvous>(static_cast<int>(devices_.size()))) {
  if (devices_.size() > 1) {
    pool_ = std::make_unique<ReplicaPool>(static_cast<int>(devices_.size()) - 1, 1);
  }
  if (collectives_ != nullptr) {
    const Runtime& runtime = collectives_->team().runtime();
    StatusOr<bool> needed = DeviceStaging::needed(runtime, devices_);
    if (!needed.ok()) {
      staging_status_ = needed.status();
    } else if (*needed) {
      staging_ = std::make_unique<DeviceStaging>(runtime, timeout_);
    }
  }
}

Strategy::~Strategy() = default;

std::string Strategy::describe() const {
  auto name = [&](size_t i) {
    if (i < device_names_.size()) return device_names_[i];
    const strata_device_t d = devices_[i];
    if (collectives_ != nullptr) return collectives_->team().runtime().device_name(d);
    return "device " + std::to_string(d.type) + ":" + std::to_string(d.index);
  };
  std::string text(kind());
  if (kind() == "default") return text;
  text += " over " + name(0);
  if (devices_.size() > 1) text += " .. " + name(devices_.size() - 1);
  if (worker_count_ > 1) {
    text += " on worker " + std::to_string(worker_rank_) + " of " + std::to_string(worker_count_);
  }
  const int replicas = num_replicas_in_sync();
  return text + " (" + std::to_string(replicas) + " replica" + (replicas == 1 ? ")" : "s)");
}

StatusOr<StrategyScope> Strategy::scope() {
  Strategy* current = detail::current_strategy_slot();
  if (current != nullptr && current != this) {
    return FailedPreconditionError("cannot enter the scope of " + describe() +
                                   " inside the scope of " + current->describe() +
                                   "; leave that scope first (mixing strategies is not allowed)");
  }
  return StrategyScope(this);
}

Status Strategy::run_one(ReplicaContext& context,
                         const std::function<Status(ReplicaContext&)>& body) {
  Strategy*& strategy_slot = detail::current_strategy_slot();
  ReplicaContext*& replica_slot = detail::current_replica_slot();
  Strategy* saved_strategy = strategy_slot;
  ReplicaContext* saved_replica = replica_slot;
  strategy_slot = this;
  replica_slot = &context;
  Status status;
  try {
    status = body(context);
  } catch (const std::exception& e) {
    status = InternalError(std::string("the replica function threw: ") + e.what());
  } catch (...) {
    status = InternalError("the replica function threw a non-standard exception");
  }
  strategy_slot = saved_strategy;
  replica_slot = saved_replica;
  if (!status.ok()) {
    const int r = context.replica_id_in_sync_group();
    status = status.prefixed("replica " + std::to_string(r) + " of " + describe());
    rendezvous_->abort(status);
  }
  return status;
}

Status Strategy::run_replicas(const std::function<Status(ReplicaContext&)>& body) {
  std::unique_lock lock(run_mu_, std::try_to_lock);
  if (!lock.owns_lock()) {
    return FailedPreconditionError("run called on " + describe() +
                                   " while another run of it is in progress (from another "
                                   "thread, or nested inside a replica function)");
  }
  if (get_replica_context() != nullptr) {
    return FailedPreconditionError("run called from inside a replica function; call it from "
                                   "the cross-replica context");
  }
  rendezvous_->reset();
  const int n = num_local_replicas();
  std::vector<Status> statuses(static_cast<size_t>(n));
  if (pool_ != nullptr) {
    pool_->start([&](int replica) {
      ReplicaContext context(*this, replica);
      statuses[static_cast<size_t>(replica)] = run_one(context, body);
    });
  }
  ReplicaContext first(*this, 0);
  statuses[0] = run_one(first, body);
  if (pool_ != nullptr) pool_->wait();
  // The origin of a failure is the replica whose own status is not the
  // abort it received from another replica.
  const Status* fallback = nullptr;
  for (const Status& s : statuses) {
    if (s.ok()) continue;
    if (fallback == nullptr) fallback = &s;
    if (s.code() != Code::kAborted) return s;
  }
  return fallback != nullptr ? *fallback : Status();
}

Status Strategy::broadcast_from_chief(std::span<Tensor* const>) { return Status(); }

void Strategy::set_workers(int worker_rank, int worker_count) {
  worker_rank_ = worker_rank;
  worker_count_ = worker_count;
}

Status Strategy::check_replica_values(std::span<std::vector<Tensor*>> per_replica) const {
  const int n = num_local_replicas();
  if (static_cast<int>(per_replica.size()) != n) {
    return InvalidArgumentError("all_reduce: got values of " + std::to_string(per_replica.size()) +
                                " replica(s) for " + describe());
  }
  const std::vector<Tensor*>& first = per_replica[0];
  for (int r = 1; r < n; ++r) {
    const std::vector<Tensor*>& mine = per_replica[static_cast<size_t>(r)];
    if (mine.size() != first.size()) {
      return InvalidArgumentError("all_reduce: replica " + std::to_string(r) + " passed " +
                                  std::to_string(mine.size()) + " tensor(s), replica 0 passed " +
                                  std::to_string(first.size()));
    }
    for (size_t t = 0; t < first.size(); ++t) {
      if (!mine[t]->same_shape(*first[t])) {
        return InvalidArgumentError("all_reduce: tensor " + std::to_string(t) + " is " +
                                    mine[t]->describe() + " on replica " + std::to_string(r) +
                                    " but " + first[t]->describe() + " on replica 0");
      }
    }
  }
  return Status();
}

std::vector<std::vector<Buffer>> Strategy::replica_buffers(
    std::span<std::vector<Tensor*>> per_replica) const {
  std::vector<std::vector<Buffer>> buffers(per_replica.size());
  for (size_t r = 0; r < per_replica.size(); ++r) {
    for (Tensor* t : per_replica[r]) {
      t->set_device(devices_[r]);
      buffers[r].push_back(t->buffer());
    }
  }
  return buffers;
}

Status Strategy::all_reduce_replicas(ReduceOp op, std::span<std::vector<Tensor*>> per_replica) {
  STRATA_RETURN_IF_ERROR(check_replica_values(per_replica));
  if (num_replicas_in_sync() == 1 || collectives_ == nullptr) return Status();  // one replica
  return on_devices(replica_buffers(per_replica), [&](const DeviceStaging::Lists& buffers) {
    return collectives_->batch_all_reduce(buffers, op);
  });
}

Status Strategy::on_devices(const DeviceStaging::Lists& buffers,
                            const DeviceStaging::Collective& collective) {
  STRATA_RETURN_IF_ERROR(staging_status_);
  if (staging_ == nullptr) return collective(buffers);
  return staging_->run(buffers, collective);
}

StatusOr<Tensor> Strategy::reduce(ReduceOp op, const PerReplica<Tensor>& value,
                                  std::optional<int> axis) {
  const int n = num_local_replicas();
  if (value.num_replicas() != n) {
    return InvalidArgumentError("reduce: the value holds " + std::to_string(value.num_replicas()) +
                                " replica value(s) but " + describe() + " has " +
                                std::to_string(n) + " local replica(s)");
  }
  std::vector<Tensor> partial;
  // Each replica's row count rides along in the same all-reduce, so a mean
  // over a batch axis divides by the rows of every replica of every worker.
  std::vector<Tensor> rows;
  for (const Tensor& v : value.values()) {
    if (!axis) {
      partial.push_back(v);
      continue;
    }
    STRATA_ASSIGN_OR_RETURN(Tensor folded, fold_axis(v, *axis, op));
    partial.push_back(std::move(folded));
    rows.push_back(Tensor::scalar(static_cast<float>(v.dim(*axis))));
  }
  const bool batch_mean = axis && op == ReduceOp::kMean;
  const ReduceOp across = batch_mean ? ReduceOp::kSum : op;
  std::vector<std::vector<Tensor*>> per_replica;
  for (size_t r = 0; r < partial.size(); ++r) {
    per_replica.push_back({&partial[r]});
    if (batch_mean) per_replica.back().push_back(&rows[r]);
  }
  STRATA_RETURN_IF_ERROR(all_reduce_replicas(across, per_replica));
  Tensor result = partial[0];
  if (batch_mean) {
    const double total = rows[0].values()[0];
    const float scale = total > 0 ? static_cast<float>(1.0 / total) : 0.0f;
    for (float& x : result.values()) x *= scale;
  }
  return result;
}

StatusOr<Tensor> Strategy::reduce(ReduceOp op, const Tensor& value, std::optional<int> axis) {
  // As TF's reduce_non_distributed_value: the same value on every replica
  // has a well-defined mean, min and max, but its sum would silently
  // multiply it by the replica count.
  if ((op == ReduceOp::kSum || op == ReduceOp::kProd) && num_replicas_in_sync() > 1) {
    return InvalidArgumentError("reduce(" + std::string(reduce_op_name(op)) + ") of " +
                                value.describe() + ", which is not a PerReplica value, under " +
                                describe() + ": pass the per-replica values from run()");
  }
  std::vector<Tensor> copies(static_cast<size_t>(num_local_replicas()), value);
  return reduce(op, PerReplica<Tensor>(std::move(copies)), axis);
}

StatusOr<Tensor> Strategy::gather(const PerReplica<Tensor>& value, int axis) {
  if (value.num_replicas() != num_local_replicas()) {
    return InvalidArgumentError("gather: the value holds " + std::to_string(value.num_replicas()) +
                                " replica value(s) but " + describe() + " has " +
                                std::to_string(num_local_replicas()) + " local replica(s)");
  }
  if (worker_count_ == 1) return concat_axis(value.values(), axis);
  return gather_across_workers(value, axis);
}

}  // namespace strata
