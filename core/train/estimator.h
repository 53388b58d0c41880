// The seeds' Estimator path: train_and_evaluate with a model function, an
// input function that receives an InputContext and returns per-replica
// batches, and a RunConfig naming the strategies for training and for
// evaluation. Training writes checkpoints to model_dir; evaluation builds
// the model afresh under eval_distribute and restores the latest one — so
// the two strategies may differ, as in TF.
#ifndef STRATA_CORE_TRAIN_ESTIMATOR_H_
#define STRATA_CORE_TRAIN_ESTIMATOR_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "core/train/hooks.h"
#include "core/train/model.h"

namespace strata {

struct ModelSpec {
  Mlp network;
  LossKind loss = LossKind::kSparseSoftmaxCrossEntropy;
  std::unique_ptr<Optimizer> optimizer;
};

enum class Mode { kTrain, kEval };

// input_fn(context, mode): a dataset of *per-replica* batches (batch it with
// context.get_per_replica_batch_size(global)).
using InputFn = std::function<StatusOr<Dataset>(const InputContext&, Mode)>;
using ModelFn = std::function<StatusOr<ModelSpec>()>;

struct RunConfig {
  Strategy* train_distribute = nullptr;  // null: the default strategy
  Strategy* eval_distribute = nullptr;   // null: train_distribute
  std::filesystem::path model_dir;       // required: checkpoints live here
  int64_t save_checkpoints_steps = 100;
  int keep_checkpoint_max = 5;
};

struct TrainSpec {
  int64_t max_steps = 1000;  // global steps, counting resumed ones
  std::vector<std::shared_ptr<Hook>> hooks;
};

struct EvalSpec {
  int64_t steps = -1;  // -1: the whole evaluation input
};

struct TrainAndEvaluateResult {
  int64_t global_step = 0;
  bool resumed = false;  // training continued from a checkpoint in model_dir
  Evaluation evaluation;
};

StatusOr<TrainAndEvaluateResult> train_and_evaluate(const ModelFn& model_fn,
                                                    const InputFn& input_fn,
                                                    const RunConfig& config,
                                                    const TrainSpec& train,
                                                    const EvalSpec& eval);

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_ESTIMATOR_H_
