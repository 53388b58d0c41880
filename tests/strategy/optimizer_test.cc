// Every optimizer under every strategy: replicas with different gradients
// must end with identical copies, equal to one device applying the sum of
// their gradients — so a strategy that forgot to combine gradients fails.
#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "core/strategy/default_strategy.h"
#include "core/train/optimizers/gradient_accumulator.h"
#include "core/train/optimizers/optimizer.h"
#include "strategy_test_util.h"

namespace strata::testing {
namespace {

using OptimizerFactory = std::function<std::unique_ptr<Optimizer>()>;
struct OptimizerCase {
  std::string name;
  OptimizerFactory make;
};

const std::vector<OptimizerCase>& optimizers() {
  static const std::vector<OptimizerCase> cases = {
      {"sgd", [] { return make_sgd(0.1f); }},
      {"momentum", [] { return make_momentum(0.1f, 0.9f); }},
      {"adagrad", [] { return make_adagrad(0.1f); }},
      {"adam", [] { return make_adam(0.1f); }}};
  return cases;
}

// Replica r's gradient at step s: distinct per replica and step.
Tensor gradient(int replica, int step) {
  Tensor g(Shape{3});
  for (int64_t i = 0; i < 3; ++i) {
    g[i] = 0.1f * static_cast<float>((replica + 1) * (i + 1)) - 0.05f * static_cast<float>(step);
  }
  return g;
}

// A variable under the strategy of the test case, and the same variable
// under one device (the reference), both starting at 1.
class OptimizerTest
    : public ::testing::TestWithParam<std::tuple<StrategyCase, OptimizerCase>> {
 protected:
  void SetUp() override {
    runtime_ = make_runtime(8);
    ASSERT_NE(runtime_, nullptr);
    strategy_ = make_test_strategy(runtime_, std::get<0>(GetParam()));
    ASSERT_NE(strategy_, nullptr);
    n_ = strategy_->num_replicas_in_sync();
    auto var = DistributedVariable::create(*strategy_, "w", Tensor(Shape{3}, 1.0f));
    ASSERT_TRUE(var.ok()) << var.status();
    vars_ = {*var};
    auto ref_var = DistributedVariable::create(single_, "w", Tensor(Shape{3}, 1.0f));
    ASSERT_TRUE(ref_var.ok());
    ref_vars_ = {*ref_var};
  }
  std::unique_ptr<Optimizer> make_optimizer() const { return std::get<1>(GetParam()).make(); }
  double distance(int replica) const {
    return max_abs_difference(vars_[0]->value(replica), ref_vars_[0]->value(0));
  }

  std::shared_ptr<Runtime> runtime_;
  std::unique_ptr<Strategy> strategy_;
  int n_ = 0;
  std::vector<VariablePtr> vars_;
  DefaultStrategy single_;
  std::vector<VariablePtr> ref_vars_;
};

TEST_P(OptimizerTest, ReplicasEndIdenticalAndEqualToOneDeviceOnSummedGradients) {
  auto optimizer = make_optimizer();
  auto reference = make_optimizer();  // one device, the summed gradient

  for (int step = 0; step < 5; ++step) {
    Status st = strategy_->run([&](ReplicaContext& ctx) {
      Tensor g = gradient(ctx.replica_id_in_sync_group(), step);
      Tensor* grads[] = {&g};
      return optimizer->apply_gradients(grads, vars_);
    });
    ASSERT_TRUE(st.ok()) << st;
    Tensor sum(Shape{3}, 0.0f);
    for (int r = 0; r < n_; ++r) {
      Tensor g = gradient(r, step);
      for (int64_t i = 0; i < 3; ++i) sum[i] += g[i];
    }
    Tensor* ref_grads[] = {&sum};
    ASSERT_TRUE(reference->apply_gradients(ref_grads, ref_vars_).ok());
  }
  EXPECT_EQ(optimizer->iterations(), 5);
  for (int r = 0; r < n_; ++r) {
    EXPECT_LT(distance(r), 1e-5) << "replica " << r;
  }
}

TEST_P(OptimizerTest, AccumulationAppliesTheMeanEveryRSteps) {
  GradientAccumulator accumulator(make_optimizer(), 2, n_);
  auto reference = make_optimizer();

  for (int step = 0; step < 4; ++step) {
    Status st = strategy_->run([&](ReplicaContext& ctx) -> Status {
      Tensor g = gradient(ctx.replica_id_in_sync_group(), step);
      Tensor* grads[] = {&g};
      STRATA_ASSIGN_OR_RETURN(bool applied, accumulator.apply_gradients(grads, vars_));
      EXPECT_EQ(applied, step % 2 == 1);
      return Status();
    });
    ASSERT_TRUE(st.ok()) << st;
    if (step % 2 == 1) {
      Tensor mean(Shape{3}, 0.0f);
      for (int r = 0; r < n_; ++r) {
        for (int s : {step - 1, step}) {
          Tensor g = gradient(r, s);
          for (int64_t i = 0; i < 3; ++i) mean[i] += g[i] / 2.0f;
        }
      }
      Tensor* ref_grads[] = {&mean};
      ASSERT_TRUE(reference->apply_gradients(ref_grads, ref_vars_).ok());
    } else {
      EXPECT_LT(distance(0), 1e-6) << "no update between accumulation steps";
    }
  }
  EXPECT_EQ(accumulator.inner().iterations(), 2);
  for (int r = 0; r < n_; ++r) {
    EXPECT_LT(distance(r), 1e-5) << "replica " << r;
  }
}

TEST(OptimizerStateTest, SlotsRoundTripThroughState) {
  DefaultStrategy single;
  auto var = DistributedVariable::create(single, "w", Tensor(Shape{2}, 1.0f));
  std::vector<VariablePtr> vars = {*var};
  auto adam = make_adam(0.1f);
  Tensor g(Shape{2}, 0.5f);
  Tensor* grads[] = {&g};
  ASSERT_TRUE(adam->apply_gradients(grads, vars).ok());
  auto state = adam->state();
  ASSERT_EQ(state.count("w/m"), 1u);
  ASSERT_EQ(state.count("w/v"), 1u);
  EXPECT_FLOAT_EQ(state.at("iterations").item(), 1.0f);
  // A fresh optimizer restored from the state continues identically.
  auto resumed = make_adam(0.1f);
  ASSERT_TRUE(resumed->restore_state(state).ok());
  auto copy = DistributedVariable::create(single, "w", (*var)->value(0));
  std::vector<VariablePtr> copy_vars = {*copy};
  ASSERT_TRUE(adam->apply_gradients(grads, vars).ok());
  ASSERT_TRUE(resumed->apply_gradients(grads, copy_vars).ok());
  EXPECT_EQ(max_abs_difference((*var)->value(0), (*copy)->value(0)), 0.0);
  EXPECT_FALSE(resumed->restore_state({{"w/unknown", g}}).ok());
}

INSTANTIATE_TEST_SUITE_P(
    EveryStrategyAndOptimizer, OptimizerTest,
    ::testing::Combine(::testing::ValuesIn(all_strategy_cases()), ::testing::ValuesIn(optimizers())),
    [](const auto& param_info) {
      return std::get<0>(param_info.param).kind + "_" +
             std::to_string(std::get<0>(param_info.param).replicas) +
             "_" + std::get<1>(param_info.param).name;
    });

}  // namespace
}  // namespace strata::testing
