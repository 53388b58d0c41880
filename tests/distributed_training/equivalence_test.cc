// TF's combinations-style equivalence test: one test body, every strategy.
// With the same seed and the same global batches, training under any
// strategy must end with the weights one device gets — which only happens
// if the replicas' gradients are combined (the negative control below shows
// the difference when they are not).
#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "core/strategy/default_strategy.h"
#include "training_fixture.h"

namespace strata::testing {
namespace {

using OptimizerFactory = std::function<std::unique_ptr<Optimizer>()>;

struct TrainedRun {
  std::vector<Tensor> weights;  // replica 0's copy of every variable
  std::vector<std::vector<Tensor>> all_copies;
  History history;
};

TrainedRun train(Strategy& strategy, const OptimizerFactory& optimizer, const Dataset& data) {
  TrainedRun run;
  auto model = digits_model(strategy, optimizer());
  if (model == nullptr) return run;
  FitOptions options;
  options.epochs = 2;
  auto history = model->fit(data, options);
  EXPECT_TRUE(history.ok()) << history.status();
  if (history.ok()) run.history = *history;
  for (const VariablePtr& v : model->variables()) {
    run.weights.push_back(v->value(0));
    std::vector<Tensor> copies;
    for (int r = 0; r < strategy.num_replicas_in_sync(); ++r) copies.push_back(v->value(r));
    run.all_copies.push_back(copies);
  }
  return run;
}

double max_difference(const TrainedRun& a, const TrainedRun& b) {
  double worst = 0;
  for (size_t i = 0; i < a.weights.size(); ++i) {
    worst = std::max(worst, max_abs_difference(a.weights[i], b.weights[i]));
  }
  return worst;
}

class EquivalenceTest
    : public ::testing::TestWithParam<std::tuple<StrategyCase, std::string>> {
 protected:
  static OptimizerFactory optimizer(const std::string& name) {
    if (name == "sgd") return [] { return make_sgd(0.5f); };
    if (name == "momentum") return [] { return make_momentum(0.1f, 0.9f); };
    if (name == "adagrad") return [] { return make_adagrad(0.1f); };
    return [] { return make_adam(0.01f); };
  }
};

TEST_P(EquivalenceTest, EveryStrategyEndsWithTheSingleDeviceWeights) {
  const auto& [scase, opt] = GetParam();
  auto runtime = make_runtime(8);
  ASSERT_NE(runtime, nullptr);
  auto strategy = make_test_strategy(runtime, scase);
  ASSERT_NE(strategy, nullptr);
  // 250 rows in global batches of 32: the last batch is partial (26 rows),
  // so some replicas get fewer rows than others.
  const Dataset data = batches(digits(250), 32);

  DefaultStrategy single;
  const TrainedRun reference = train(single, optimizer(opt), data);
  const TrainedRun distributed = train(*strategy, optimizer(opt), data);
  ASSERT_EQ(reference.weights.size(), 4u);
  ASSERT_EQ(distributed.weights.size(), 4u);
  EXPECT_EQ(distributed.history.global_step, 16);
  EXPECT_LT(max_difference(reference, distributed), 2e-4)
      << "weights after 16 steps under " << strategy->describe();
  // Mirrored copies stay identical on every replica.
  for (const auto& copies : distributed.all_copies) {
    for (const Tensor& c : copies) EXPECT_EQ(max_abs_difference(c, copies[0]), 0.0);
  }
  // The loss fell, and the epoch losses agree with one device's.
  ASSERT_EQ(distributed.history.epochs.size(), 2u);
  EXPECT_LT(distributed.history.epochs[1].loss, distributed.history.epochs[0].loss);
  EXPECT_NEAR(distributed.history.epochs[1].loss, reference.history.epochs[1].loss, 1e-4);
  EXPECT_NEAR(distributed.history.epochs[1].accuracy, reference.history.epochs[1].accuracy,
              1e-6);
}

// The negative control: had each replica trained on its own slice without
// combining gradients, its weights would differ from one device's by far
// more than the tolerance above, so the equivalence test can fail.
TEST(EquivalenceControlTest, UncombinedGradientsWouldBeCaught) {
  const DigitsSlice all = digits(256);
  DefaultStrategy single;
  const TrainedRun full = train(single, [] { return make_sgd(0.5f); }, batches(all, 32));
  // Replica 0 of 4 alone: the first quarter of every global batch.
  std::vector<Tensor> features, labels;
  for (int64_t begin = 0; begin < 256; begin += 32) {
    features.push_back(all.features.slice_rows(begin, begin + 8));
    labels.push_back(all.labels.slice_rows(begin, begin + 8));
  }
  const DigitsSlice quarter{*Tensor::concat_rows(features), *Tensor::concat_rows(labels)};
  const TrainedRun alone = train(single, [] { return make_sgd(0.5f); }, batches(quarter, 8));
  EXPECT_GT(max_difference(full, alone), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(
    Combinations, EquivalenceTest,
    ::testing::Combine(::testing::ValuesIn(all_strategy_cases()),
                       ::testing::Values("sgd", "momentum", "adagrad", "adam")),
    [](const auto& param_info) {
      return std::get<0>(param_info.param).kind + "_" +
             std::to_string(std::get<0>(param_info.param).replicas) + "_" +
             std::get<1>(param_info.param);
    });

}  // namespace
}  // namespace strata::testing
