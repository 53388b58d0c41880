// Optimizers that know about distribution, as Keras optimizers do under a
// tf.distribute strategy: apply_gradients called in a replica context first
// all-reduces the replicas' gradients (SUM, batched and packed into few
// collective calls), then gives every copy of every variable the same
// update, so mirrored copies stay identical. With gradients computed from
// compute_average_loss(per_example, global_batch), the SUM is the gradient
// of the mean loss over the global batch — what one device would compute.
//
// Each rule is one small class (sgd.cc, momentum.cc, adagrad.cc, adam.cc);
// the base class owns the distribution and the per-copy slot state.
#ifndef STRATA_CORE_TRAIN_OPTIMIZERS_OPTIMIZER_H_
#define STRATA_CORE_TRAIN_OPTIMIZERS_OPTIMIZER_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/strategy/distributed_variable.h"
#include "core/tensor/tensor.h"

namespace strata {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual std::string_view name() const = 0;  // "sgd", "adam", ...

  // grads[i] is the gradient of vars[i] (same shape). In a replica context
  // the grads are this replica's and are all-reduced in place; in the
  // cross-replica context they are applied as given. Either way every copy
  // of each variable receives the same update.
  Status apply_gradients(std::span<Tensor* const> grads, std::span<const VariablePtr> vars);

  // Updates applied so far (one per apply_gradients, whatever the replicas).
  int64_t iterations() const { return iterations_.load(); }

  // Slot values for checkpoints, "<variable>/<slot>", from the first copy
  // (copies are identical), plus "iterations"; and their restoration into
  // every copy. Unknown names are an error; missing slots stay fresh.
  std::map<std::string, Tensor> state() const;
  Status restore_state(const std::map<std::string, Tensor>& state);

 protected:
  // Per-variable slots this rule keeps ("momentum", "m", "v"...).
  virtual std::vector<std::string> slot_names() const { return {}; }
  virtual float slot_initial_value(size_t /*slot*/) const { return 0.0f; }
  // One update of one copy: w and its slots, g the combined gradient,
  // t the 1-based number of this update.
  virtual void update(Tensor& w, const Tensor& g, std::span<Tensor> slots, int64_t t) = 0;

 private:
  struct CopyState {
    std::vector<Tensor> slots;
  };
  struct VariableState {
    std::vector<CopyState> copies;
  };
  // The state of a variable, created on first use; stable address.
  VariableState& state_for(const DistributedVariable& variable);
  Status check(std::span<Tensor* const> grads, std::span<const VariablePtr> vars) const;
  void update_copy(DistributedVariable& v, int copy, const Tensor& g, int64_t t);

  mutable std::mutex mu_;
  std::map<std::string, VariableState> state_;
  std::map<std::string, Tensor> pending_;  // restored before the slots existed
  std::atomic<int64_t> iterations_{0};
};

// Factories, with Keras' defaults.
std::unique_ptr<Optimizer> make_sgd(float learning_rate = 0.01f);
std::unique_ptr<Optimizer> make_momentum(float learning_rate = 0.01f, float momentum = 0.9f);
std::unique_ptr<Optimizer> make_adagrad(float learning_rate = 0.001f,
                                        float initial_accumulator = 0.1f,
                                        float epsilon = 1e-7f);
std::unique_ptr<Optimizer> make_adam(float learning_rate = 0.001f, float beta_1 = 0.9f,
                                     float beta_2 = 0.999f, float epsilon = 1e-7f);

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_OPTIMIZERS_OPTIMIZER_H_
