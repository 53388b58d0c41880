#include "core/train/estimator.h"

#include <limits>

#include "core/strategy/default_strategy.h"

namespace strata {
namespace {

StatusOr<std::unique_ptr<Model>> build(const ModelFn& model_fn, Strategy& strategy) {
  STRATA_ASSIGN_OR_RETURN(StrategyScope scope, strategy.scope());
  STRATA_ASSIGN_OR_RETURN(ModelSpec spec, model_fn());
  return Model::create(std::move(spec.network), spec.loss, std::move(spec.optimizer));
}

StatusOr<DistributedDataset> input_for(const InputFn& input_fn, Strategy& strategy, Mode mode) {
  return distribute_datasets_from_function(
      strategy, [&](const InputContext& context) { return input_fn(context, mode); });
}

}  // namespace

StatusOr<TrainAndEvaluateResult> train_and_evaluate(const ModelFn& model_fn,
                                                    const InputFn& input_fn,
                                                    const RunConfig& config,
                                                    const TrainSpec& train,
                                                    const EvalSpec& eval) {
  if (config.model_dir.empty()) {
    return InvalidArgumentError("train_and_evaluate: RunConfig.model_dir is required (the "
                                "checkpoints that carry the model from training to evaluation "
                                "live there)");
  }
  Strategy& train_strategy =
      config.train_distribute != nullptr ? *config.train_distribute : default_strategy();
  Strategy& eval_strategy =
      config.eval_distribute != nullptr ? *config.eval_distribute : train_strategy;
  auto manager =
      std::make_shared<CheckpointManager>(config.model_dir, config.keep_checkpoint_max);

  TrainAndEvaluateResult result;
  {
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, build(model_fn, train_strategy));
    auto saver = std::make_shared<CheckpointSaverHook>(manager, config.save_checkpoints_steps);
    FitOptions options;
    options.epochs = std::numeric_limits<int>::max();  // until max_steps
    options.hooks = {saver, std::make_shared<StopAtStepHook>(train.max_steps)};
    options.hooks.insert(options.hooks.end(), train.hooks.begin(), train.hooks.end());
    STRATA_ASSIGN_OR_RETURN(DistributedDataset input,
                            input_for(input_fn, train_strategy, Mode::kTrain));
    // Resume first: a job that already reached max_steps trains no further.
    STRATA_RETURN_IF_ERROR(saver->begin(*model));
    if (model->global_step() < train.max_steps) {
      STRATA_RETURN_IF_ERROR(model->fit(input, options).status());
    }
    result.resumed = saver->resumed();
    result.global_step = model->global_step();
  }
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Model> evaluator, build(model_fn, eval_strategy));
  STRATA_ASSIGN_OR_RETURN(Checkpoint latest, manager->restore_latest());
  STRATA_RETURN_IF_ERROR(evaluator->restore(latest));
  STRATA_ASSIGN_OR_RETURN(DistributedDataset eval_input,
                          input_for(input_fn, eval_strategy, Mode::kEval));
  STRATA_ASSIGN_OR_RETURN(result.evaluation, evaluator->evaluate(eval_input, eval.steps));
  return result;
}

}  // namespace strata
