// DistributedVariable: a variable made under a strategy, after TF's
// MirroredVariable and SyncOnReadVariable.
//
//  - ON_WRITE (mirrored): one copy per variable device, kept identical.
//    Writes in the cross-replica context go to every copy; a write in a
//    replica context needs an aggregation (SUM, MEAN or ONLY_FIRST_REPLICA)
//    that says how the replicas' different writes combine — with NONE it is
//    refused, as TF refuses it.
//  - ON_READ (sync-on-read): one local copy per replica, written freely by
//    its replica (a metric's running total); reading in the cross-replica
//    context aggregates the copies of every replica of every worker (SUM,
//    MEAN), or returns the job's first replica's copy, the chief's
//    (ONLY_FIRST_REPLICA), on every worker.
//
// The copies may be owned or, for model parameters, be tensors that live in
// each replica's model (adopt()), so an update is seen by that replica's
// forward pass without copying.
#ifndef STRATA_CORE_STRATEGY_DISTRIBUTED_VARIABLE_H_
#define STRATA_CORE_STRATEGY_DISTRIBUTED_VARIABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/strategy/strategy.h"
#include "core/tensor/tensor.h"

namespace strata {

enum class VariableSynchronization { kOnWrite, kOnRead };
enum class VariableAggregation { kNone, kSum, kMean, kOnlyFirstReplica };
const char* aggregation_name(VariableAggregation aggregation);  // "SUM"

class DistributedVariable {
 public:
  // One owned copy per variable device (per replica for ON_READ), each
  // starting as `initial`.
  static StatusOr<std::shared_ptr<DistributedVariable>> create(
      Strategy& strategy, std::string name, const Tensor& initial,
      VariableSynchronization synchronization = VariableSynchronization::kOnWrite,
      VariableAggregation aggregation = VariableAggregation::kNone);
  // Copies that live elsewhere (one per variable device, or per replica for
  // ON_READ); they are set to copies[0]'s value so all start identical.
  static StatusOr<std::shared_ptr<DistributedVariable>> adopt(
      Strategy& strategy, std::string name, std::vector<Tensor*> copies,
      VariableSynchronization synchronization = VariableSynchronization::kOnWrite,
      VariableAggregation aggregation = VariableAggregation::kNone);

  const std::string& name() const { return name_; }
  Strategy& strategy() const { return *strategy_; }
  VariableSynchronization synchronization() const { return synchronization_; }
  VariableAggregation aggregation() const { return aggregation_; }
  const Shape& shape() const { return copies_[0]->shape(); }
  int num_copies() const { return static_cast<int>(copies_.size()); }

  // The copy a replica reads: its own, or the only one (CentralStorage).
  const Tensor& value(int replica) const { return *copies_[copy_index(replica)]; }
  Tensor& mutable_value(int replica) { return *copies_[copy_index(replica)]; }
  // The copy for the calling thread: its replica's in a replica context,
  // the primary one in the cross-replica context.
  const Tensor& local_value() const;

  // The variable's one logical value, for the cross-replica context and
  // checkpoints: the primary copy (ON_WRITE) or the aggregate (ON_READ).
  // In a job of several workers an ON_READ read is a collective (a
  // reduction, or for ONLY_FIRST_REPLICA a broadcast from the chief), also
  // where a worker holds a single copy: every worker must read together.
  StatusOr<Tensor> read_value() const;

  // Context-dependent writes, with TF's rules (see the class comment).
  Status assign(const Tensor& value);
  Status assign_add(const Tensor& delta);

  // Restores the logical value into every copy (cross-replica context):
  // ON_READ with SUM puts value / num_copies in each, so reading sums back.
  Status restore(const Tensor& value);

 private:
  DistributedVariable(Strategy& strategy, std::string name, std::vector<Tensor*> copies,
                      VariableSynchronization synchronization, VariableAggregation aggregation);
  size_t copy_index(int replica) const {
    return copies_.size() == 1 ? 0 : static_cast<size_t>(replica);
  }
  Status check_shape(const Tensor& value, const char* what) const;
  Status write(const Tensor& value, bool add);
  Status write_in_replica_context(ReplicaContext& ctx, const Tensor& value, bool add);
  // per_replica[0] of the chief (this worker's own with one worker): the
  // job's first replica's value, for ONLY_FIRST_REPLICA. `what` names the
  // access in errors ("reading").
  StatusOr<Tensor> chiefs_first(std::vector<Tensor> per_replica, const char* what) const;

  Strategy* strategy_;
  std::string name_;
  std::vector<std::unique_ptr<Tensor>> owned_;
  std::vector<Tensor*> copies_;
  VariableSynchronization synchronization_;
  VariableAggregation aggregation_;
};

using VariablePtr = std::shared_ptr<DistributedVariable>;

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_DISTRIBUTED_VARIABLE_H_
