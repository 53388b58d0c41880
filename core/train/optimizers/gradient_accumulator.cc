#include "core/train/optimizers/gradient_accumulator.h"

#include <algorithm>

namespace strata {

GradientAccumulator::GradientAccumulator(std::unique_ptr<Optimizer> inner, int steps,
                                         int replicas)
    : inner_(std::move(inner)),
      steps_(std::max(steps, 1)),
      replicas_(static_cast<size_t>(std::max(replicas, 1))) {}

StatusOr<bool> GradientAccumulator::apply_gradients(std::span<Tensor* const> grads,
                                                    std::span<const VariablePtr> vars) {
  const ReplicaContext* ctx = get_replica_context();
  const size_t replica = ctx != nullptr ? static_cast<size_t>(ctx->local_replica_id()) : 0;
  if (replica >= replicas_.size()) {
    return InvalidArgumentError("gradient accumulation was set up for " +
                                std::to_string(replicas_.size()) + " replica(s), called from " +
                                "replica " + std::to_string(replica));
  }
  ReplicaSums& mine = replicas_[replica];
  if (mine.sums.size() != grads.size()) {
    mine.sums.clear();
    for (Tensor* g : grads) mine.sums.emplace_back(g->shape(), 0.0f);
    mine.count = 0;
  }
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i]->shape() != mine.sums[i].shape()) {
      return InvalidArgumentError("gradient " + std::to_string(i) + " changed shape from " +
                                  shape_string(mine.sums[i].shape()) + " to " +
                                  grads[i]->describe() + " between accumulation steps");
    }
    for (int64_t k = 0; k < grads[i]->size(); ++k) mine.sums[i][k] += (*grads[i])[k];
  }
  if (++mine.count < steps_) return false;
  std::vector<Tensor*> means;
  for (Tensor& s : mine.sums) {
    for (float& x : s.values()) x /= static_cast<float>(steps_);
    means.push_back(&s);
  }
  Status applied = inner_->apply_gradients(means, vars);
  for (Tensor& s : mine.sums) std::fill(s.values().begin(), s.values().end(), 0.0f);
  mine.count = 0;
  if (!applied.ok()) return applied;
  return true;
}

}  // namespace strata
