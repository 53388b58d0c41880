// The Estimator path: train_and_evaluate with an input function that gets an
// InputContext, training and evaluation under different strategies, and a
// second call that resumes from model_dir instead of starting over.
#include <gtest/gtest.h>

#include "core/train/estimator.h"
#include "training_fixture.h"

namespace strata::testing {
namespace {

TEST(EstimatorTest, TrainsDistributedEvaluatesDistributedAndResumes) {
  auto runtime = make_runtime(8);
  ASSERT_NE(runtime, nullptr);
  auto train_strategy = make_test_strategy(runtime, {"mirrored", 4});
  auto eval_strategy = make_test_strategy(runtime, {"mirrored", 2});
  ASSERT_NE(train_strategy, nullptr);
  ASSERT_NE(eval_strategy, nullptr);
  TempDir dir("estimator");
  const DigitsSlice train_rows = digits(1200);
  const DigitsSlice all = digits(1797);
  const DigitsSlice test_rows{all.features.slice_rows(1200, 1797),
                              all.labels.slice_rows(1200, 1797)};

  std::vector<InputContext> contexts;
  InputFn input_fn = [&](const InputContext& ctx, Mode mode) -> StatusOr<Dataset> {
    contexts.push_back(ctx);
    const DigitsSlice& d = mode == Mode::kTrain ? train_rows : test_rows;
    STRATA_ASSIGN_OR_RETURN(Dataset ds, Dataset::from_arrays({d.features, d.labels}));
    if (mode == Mode::kTrain) {
      STRATA_ASSIGN_OR_RETURN(ds, ds.shuffle(1200, 3));
      STRATA_ASSIGN_OR_RETURN(ds, ds.repeat());
    }
    return ds.batch(ctx.get_per_replica_batch_size(64));
  };
  ModelFn model_fn = []() -> StatusOr<ModelSpec> {
    STRATA_ASSIGN_OR_RETURN(Mlp mlp, Mlp::create({64, 32, 10}, 11));
    return ModelSpec{std::move(mlp), LossKind::kSparseSoftmaxCrossEntropy, make_adam(0.01f)};
  };
  RunConfig config;
  config.train_distribute = train_strategy.get();
  config.eval_distribute = eval_strategy.get();
  config.model_dir = dir.path();
  config.save_checkpoints_steps = 50;

  auto first = train_and_evaluate(model_fn, input_fn, config, TrainSpec{.max_steps = 150, .hooks = {}},
                                  EvalSpec{});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->global_step, 150);
  EXPECT_FALSE(first->resumed);
  EXPECT_EQ(first->evaluation.examples, 597);
  EXPECT_GT(first->evaluation.accuracy, 0.85f);
  ASSERT_GE(contexts.size(), 2u);
  EXPECT_EQ(contexts[0].num_replicas_in_sync, 4);
  EXPECT_EQ(contexts[1].num_replicas_in_sync, 2);

  // Same model_dir, more steps: resumes at 150 instead of starting over.
  auto second = train_and_evaluate(model_fn, input_fn, config,
                                   TrainSpec{.max_steps = 200, .hooks = {}}, EvalSpec{});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->resumed);
  EXPECT_EQ(second->global_step, 200);

  RunConfig no_dir;
  auto refused = train_and_evaluate(model_fn, input_fn, no_dir, TrainSpec{}, EvalSpec{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("model_dir is required"), std::string::npos);
}

}  // namespace
}  // namespace strata::testing
