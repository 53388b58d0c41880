// Model: the seeds' Keras path in C++. Built inside a strategy's scope, it
// trains, evaluates and predicts unchanged under every strategy:
//
//   auto scope = strategy->scope();
//   auto model = Model::create(std::move(mlp), LossKind::kSparseSoftmaxCrossEntropy,
//                              make_adam(0.01f));
//   auto history = (*model)->fit(train_batches, {.epochs = 5});
//   auto eval = (*model)->evaluate(test_batches);
//
// One copy of the network per replica runs each step concurrently; the
// parameters are DistributedVariables (mirrored: each replica's copy is its
// network's own tensors; central storage: one copy that replicas read at
// the start of each step), and the optimizer all-reduces the gradients.
#ifndef STRATA_CORE_TRAIN_MODEL_H_
#define STRATA_CORE_TRAIN_MODEL_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/checkpoint/checkpoint_file.h"
#include "core/data/dataset.h"
#include "core/strategy/distributed_dataset.h"
#include "core/strategy/distributed_variable.h"
#include "core/strategy/strategy.h"
#include "core/train/fit_position.h"
#include "core/train/metrics.h"
#include "core/train/mlp.h"
#include "core/train/optimizers/optimizer.h"

namespace strata {

class Hook;

enum class LossKind { kMeanSquaredError, kSparseSoftmaxCrossEntropy };

struct FitOptions {
  int epochs = 1;
  int64_t steps_per_epoch = -1;  // -1: until the dataset ends
  std::vector<std::shared_ptr<Hook>> hooks;
  std::ostream* progress = nullptr;  // a line per epoch (and a bar) when set
};

struct EpochLog {
  int epoch = 0;
  int64_t steps = 0;
  float loss = 0;      // mean over every example of the epoch, all replicas of all workers
  float accuracy = 0;  // classification only
  double seconds = 0;
};

struct History {
  std::vector<EpochLog> epochs;
  int64_t global_step = 0;
  bool stopped_by_hook = false;
};

// How Model::restore treats a checkpoint's values.
struct RestoreOptions {
  // NaN and infinite values are refused by default: a checkpoint of a run
  // that diverged would otherwise resume, silently, into more NaN.
  bool allow_non_finite = false;
  // The next fit() continues from the checkpoint's position (the epoch it
  // was in, past the batches already trained on, with the input's shuffle
  // state), as Keras' BackupAndRestore does; CheckpointSaverHook sets it.
  // Otherwise, as after Keras' load_weights, fit() runs all its epochs.
  bool continue_fit = false;
};

// Job-wide figures: the same on every worker of a multi-worker job.
struct Evaluation {
  float loss = 0;      // mean over every example scored, all replicas of all workers
  float accuracy = 0;  // classification only
  int64_t examples = 0;  // the examples scored, by all replicas of all workers
};

class Model {
 public:
  // Variables are made under get_strategy(): call inside strategy.scope().
  static StatusOr<std::unique_ptr<Model>> create(Mlp network, LossKind loss,
                                                 std::unique_ptr<Optimizer> optimizer);
  ~Model();

  // `global_batches`: elements {features [B, in], labels} batched with the
  // global batch size; each batch is split over the replicas.
  StatusOr<History> fit(const Dataset& global_batches, const FitOptions& options = {});
  StatusOr<History> fit(const DistributedDataset& input, const FitOptions& options = {});
  StatusOr<Evaluation> evaluate(const Dataset& global_batches, int64_t steps = -1);
  StatusOr<Evaluation> evaluate(const DistributedDataset& input, int64_t steps = -1);
  // Outputs for every row of features-only (or features+labels) batches, in order.
  StatusOr<Tensor> predict(const Dataset& global_batches);

  Strategy& strategy() const { return *strategy_; }
  const std::vector<VariablePtr>& variables() const { return variables_; }
  Optimizer& optimizer() { return *optimizer_; }
  int64_t global_step() const { return global_step_; }
  LossKind loss_kind() const { return loss_; }

  // Strategy-agnostic state: every variable's logical value by name, the
  // optimizer's slots under "optimizer/", the step, and where fit() stands
  // (fit_position.h). Fails when a variable cannot be read (a sync-on-read
  // value's collective), rather than leave it out.
  StatusOr<Checkpoint> to_checkpoint() const;
  // The checks restore() makes before changing anything: every variable
  // present with its shape, values finite unless allowed, a readable fit
  // position. Lets workers agree a checkpoint is usable before any restores.
  Status check_restorable(const Checkpoint& checkpoint, const RestoreOptions& options = {}) const;
  // Restores the values and the step, and with options.continue_fit the
  // position the next fit() continues from (a checkpoint without one: the
  // start of the epoch its step falls in).
  Status restore(const Checkpoint& checkpoint, const RestoreOptions& options = {});
  // Where fit() stands (or the last fit ended, or restore() put it).
  const FitPosition& fit_position() const { return position_; }

 private:
  Model(Strategy& strategy, LossKind loss, std::unique_ptr<Optimizer> optimizer);
  // Replica r's network reads the variables' current values (central
  // storage: the one copy; mirrored: already its own tensors).
  Status pull_parameters(int replica);
  StatusOr<Tensor> train_step(ReplicaContext& ctx, const Element& batch, int64_t global_batch);
  Status eval_step(ReplicaContext& ctx, const Element& batch, int64_t global_batch);
  // The position fit() starts from: a restored checkpoint's (consumed
  // here, with the input's iteration state restored), else epoch 0.
  StatusOr<FitPosition> take_resume_position(const DistributedDataset& input,
                                             const FitOptions& options);
  // One epoch from `position_`; false in `stop` when it ran to its end.
  Status run_epoch(const DistributedDataset& input, const FitOptions& options, bool& stop,
                   History& history);

  Strategy* strategy_;
  LossKind loss_;
  std::unique_ptr<Optimizer> optimizer_;
  std::vector<Mlp> replicas_;  // one network per replica
  std::vector<VariablePtr> variables_;
  bool aliased_ = true;        // the variables' copies are the replicas' tensors
  std::unique_ptr<MeanMetric> loss_metric_;
  std::unique_ptr<AccuracyMetric> accuracy_metric_;
  int64_t global_step_ = 0;
  FitPosition position_;
  // Set by restore(), taken by the next fit(): the checkpoint it came from
  // and its position (none in a checkpoint older than positions).
  struct PendingResume {
    std::optional<FitPosition> position;
    std::string source;
  };
  std::optional<PendingResume> resume_;
  // The checkpoint the running fit resumed from, for its errors ("" if none).
  std::string resumed_from_;
};

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_MODEL_H_
