#include "core/strategy/distributed_variable.h"

namespace strata {

const char* aggregation_name(VariableAggregation aggregation) {
  switch (aggregation) {
    case VariableAggregation::kNone: return "NONE";
    case VariableAggregation::kSum: return "SUM";
    case VariableAggregation::kMean: return "MEAN";
    case VariableAggregation::kOnlyFirstReplica: return "ONLY_FIRST_REPLICA";
  }
  return "?";
}

namespace {

size_t copies_needed(const Strategy& strategy, VariableSynchronization sync) {
  return sync == VariableSynchronization::kOnRead
             ? static_cast<size_t>(strategy.num_local_replicas())
             : strategy.variable_devices().size();
}

}  // namespace

DistributedVariable::DistributedVariable(Strategy& strategy, std::string name,
                                         std::vector<Tensor*> copies,
                                         VariableSynchronization synchronization,
                                         VariableAggregation aggregation)
    : strategy_(&strategy),
      name_(std::move(name)),
      copies_(std::move(copies)),
      synchronization_(synchronization),
      aggregation_(aggregation) {}

StatusOr<std::shared_ptr<DistributedVariable>> DistributedVariable::create(
    Strategy& strategy, std::string name, const Tensor& initial,
    VariableSynchronization synchronization, VariableAggregation aggregation) {
  std::vector<std::unique_ptr<Tensor>> owned;
  std::vector<Tensor*> copies;
  for (size_t i = 0; i < copies_needed(strategy, synchronization); ++i) {
    owned.push_back(std::make_unique<Tensor>(initial));
    copies.push_back(owned.back().get());
  }
  auto v = adopt(strategy, std::move(name), std::move(copies), synchronization, aggregation);
  if (v.ok()) (*v)->owned_ = std::move(owned);
  return v;
}

StatusOr<std::shared_ptr<DistributedVariable>> DistributedVariable::adopt(
    Strategy& strategy, std::string name, std::vector<Tensor*> copies,
    VariableSynchronization synchronization, VariableAggregation aggregation) {
  const size_t want = copies_needed(strategy, synchronization);
  if (copies.size() != want) {
    return InvalidArgumentError("variable '" + name + "' under " + strategy.describe() +
                                " needs " + std::to_string(want) + " copies, got " +
                                std::to_string(copies.size()));
  }
  if (synchronization == VariableSynchronization::kOnRead &&
      aggregation == VariableAggregation::kNone && strategy.num_replicas_in_sync() > 1) {
    return InvalidArgumentError("sync-on-read variable '" + name +
                                "' needs an aggregation (SUM, MEAN or ONLY_FIRST_REPLICA) to "
                                "be read across replicas");
  }
  for (size_t i = 0; i < copies.size(); ++i) {
    if (i > 0) *copies[i] = *copies[0];
    copies[i]->set_device(synchronization == VariableSynchronization::kOnRead
                              ? strategy.devices()[i]
                              : strategy.variable_devices()[i]);
  }
  if (synchronization == VariableSynchronization::kOnWrite) {
    // Workers may have initialised differently (seeds, restored files):
    // every worker starts from the chief's values, as in TF.
    STRATA_RETURN_IF_ERROR(strategy.broadcast_from_chief(copies).prefixed(
        "variable '" + name + "': broadcasting the chief's initial value"));
  }
  return std::shared_ptr<DistributedVariable>(new DistributedVariable(
      strategy, std::move(name), std::move(copies), synchronization, aggregation));
}

const Tensor& DistributedVariable::local_value() const {
  const ReplicaContext* ctx = get_replica_context();
  return value(ctx != nullptr && &ctx->strategy() == strategy_ ? ctx->local_replica_id()
                                                               : 0);
}

StatusOr<Tensor> DistributedVariable::chiefs_first(std::vector<Tensor> per_replica,
                                                    const char* what) const {
  if (strategy_->worker_count() == 1) return std::move(per_replica[0]);
  std::vector<Tensor*> copies;
  for (Tensor& t : per_replica) copies.push_back(&t);
  STRATA_RETURN_IF_ERROR(strategy_->broadcast_from_chief(copies).prefixed(
      std::string(what) + " variable '" + name_ + "' (ONLY_FIRST_REPLICA): broadcasting the "
      "chief's first replica's value"));
  return std::move(per_replica[0]);
}

StatusOr<Tensor> DistributedVariable::read_value() const {
  if (synchronization_ == VariableSynchronization::kOnWrite) return *copies_[0];
  if (aggregation_ == VariableAggregation::kOnlyFirstReplica) {
    // The job's first replica is the chief's: every worker reads its copy,
    // as every worker reads the same SUM or MEAN, not a value of its own.
    std::vector<Tensor> local;
    for (const Tensor* c : copies_) local.push_back(*c);
    return chiefs_first(std::move(local), "reading");
  }
  if (strategy_->worker_count() > 1) {
    // The other workers hold the rest of the value, also when this worker
    // has a single copy: reading it is a collective, made by every worker
    // together (as in TF).
    std::vector<Tensor> local;
    for (const Tensor* c : copies_) local.push_back(*c);
    return strategy_->reduce(aggregation_ == VariableAggregation::kMean ? ReduceOp::kMean
                                                                        : ReduceOp::kSum,
                             PerReplica<Tensor>(std::move(local)));
  }
  Tensor sum = *copies_[0];
  for (size_t i = 1; i < copies_.size(); ++i) {
    for (int64_t k = 0; k < sum.size(); ++k) sum[k] += (*copies_[i])[k];
  }
  if (aggregation_ == VariableAggregation::kMean) {
    for (float& x : sum.values()) x /= static_cast<float>(copies_.size());
  }
  return sum;
}

Status DistributedVariable::check_shape(const Tensor& value, const char* what) const {
  if (value.shape() == shape()) return Status();
  return InvalidArgumentError(std::string(what) + " of " + value.describe() + " to variable '" +
                              name_ + "' of shape " + shape_string(shape()));
}

Status DistributedVariable::assign(const Tensor& value) { return write(value, false); }
Status DistributedVariable::assign_add(const Tensor& delta) { return write(delta, true); }

Status DistributedVariable::write(const Tensor& value, bool add) {
  STRATA_RETURN_IF_ERROR(check_shape(value, add ? "assign_add" : "assign"));
  ReplicaContext* ctx = get_replica_context();
  if (ctx != nullptr && &ctx->strategy() == strategy_) {
    return write_in_replica_context(*ctx, value, add);
  }
  // Cross-replica context: the same write to every copy. For ON_READ the
  // copies hold parts of the value, so a plain assign goes through restore.
  if (synchronization_ == VariableSynchronization::kOnRead && !add) return restore(value);
  for (Tensor* copy : copies_) {
    for (int64_t k = 0; k < copy->size(); ++k) {
      (*copy)[k] = add ? (*copy)[k] + value[k] : value[k];
    }
  }
  return Status();
}

Status DistributedVariable::write_in_replica_context(ReplicaContext& ctx, const Tensor& value,
                                                     bool add) {
  if (synchronization_ == VariableSynchronization::kOnRead) {
    Tensor& mine = mutable_value(ctx.local_replica_id());
    for (int64_t k = 0; k < mine.size(); ++k) mine[k] = add ? mine[k] + value[k] : value[k];
    return Status();
  }
  if (aggregation_ == VariableAggregation::kNone && ctx.num_replicas_in_sync() > 1) {
    return FailedPreconditionError(
        "variable '" + name_ + "' is mirrored with aggregation NONE, so replicas cannot write "
        "it in a replica context (their writes would differ); give it an aggregation (SUM, "
        "MEAN, ONLY_FIRST_REPLICA) or write it in the cross-replica context");
  }
  // As TF: combine the replicas' writes once, in the cross-replica context,
  // and write the result to every copy.
  auto merged = ctx.merge_call(
      [&](Strategy& s, const PerReplica<Tensor>& writes) -> Status {
        Tensor combined;
        if (aggregation_ == VariableAggregation::kSum ||
            aggregation_ == VariableAggregation::kMean) {
          const ReduceOp op =
              aggregation_ == VariableAggregation::kSum ? ReduceOp::kSum : ReduceOp::kMean;
          STRATA_ASSIGN_OR_RETURN(combined, s.reduce(op, writes));
        } else {
          // The job's first replica's write, so the workers' copies stay equal.
          STRATA_ASSIGN_OR_RETURN(combined, chiefs_first(writes.values(), "writing"));
        }
        for (Tensor* copy : copies_) {
          for (int64_t k = 0; k < copy->size(); ++k) {
            (*copy)[k] = add ? (*copy)[k] + combined[k] : combined[k];
          }
        }
        return Status();
      },
      value);
  return merged;
}

Status DistributedVariable::restore(const Tensor& value) {
  STRATA_RETURN_IF_ERROR(check_shape(value, "restore"));
  const bool split = synchronization_ == VariableSynchronization::kOnRead &&
                     aggregation_ == VariableAggregation::kSum;
  for (Tensor* copy : copies_) {
    for (int64_t k = 0; k < copy->size(); ++k) {
      (*copy)[k] = split ? value[k] / static_cast<float>(strategy_->num_replicas_in_sync())
                         : value[k];
    }
  }
  return Status();
}

}  // namespace strata
