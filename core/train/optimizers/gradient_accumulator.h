// Gradient accumulation, the RFC discussion's "effective batch N·B·R": each
// replica sums its gradients locally over R steps without communicating,
// and every R-th step applies their mean through the wrapped optimizer (one
// all-reduce per R steps instead of one per step).
#ifndef STRATA_CORE_TRAIN_OPTIMIZERS_GRADIENT_ACCUMULATOR_H_
#define STRATA_CORE_TRAIN_OPTIMIZERS_GRADIENT_ACCUMULATOR_H_

#include <memory>
#include <span>
#include <vector>

#include "core/train/optimizers/optimizer.h"

namespace strata {

class GradientAccumulator {
 public:
  // steps >= 1; replicas: the strategy's replica count.
  GradientAccumulator(std::unique_ptr<Optimizer> inner, int steps, int replicas);

  // Adds this step's gradients (in a replica context: this replica's). On
  // every `steps`-th call, applies their mean and starts over; returns
  // whether it applied.
  StatusOr<bool> apply_gradients(std::span<Tensor* const> grads,
                                 std::span<const VariablePtr> vars);

  Optimizer& inner() { return *inner_; }
  int steps() const { return steps_; }

 private:
  struct ReplicaSums {
    std::vector<Tensor> sums;
    int count = 0;
  };

  std::unique_ptr<Optimizer> inner_;
  int steps_;
  std::vector<ReplicaSums> replicas_;  // each touched only by its replica
};

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_OPTIMIZERS_GRADIENT_ACCUMULATOR_H_
