// Checkpoints are strategy-agnostic: saved under Mirrored with 4 replicas
// and restored under OneDevice, and the reverse, the values are identical.
#include <gtest/gtest.h>

#include "core/checkpoint/checkpoint_manager.h"
#include "core/strategy/default_strategy.h"
#include "training_fixture.h"

namespace strata::testing {
namespace {

void expect_same_weights(const Model& a, const Model& b) {
  ASSERT_EQ(a.variables().size(), b.variables().size());
  for (size_t i = 0; i < a.variables().size(); ++i) {
    const auto& va = *a.variables()[i];
    const auto& vb = *b.variables()[i];
    EXPECT_EQ(va.name(), vb.name());
    for (int r = 0; r < vb.strategy().num_replicas_in_sync(); ++r) {
      EXPECT_EQ(max_abs_difference(va.value(0), vb.value(r)), 0.0) << va.name() << " replica " << r;
    }
  }
}

class CheckpointAcrossStrategiesTest
    : public ::testing::TestWithParam<std::pair<StrategyCase, StrategyCase>> {};

TEST_P(CheckpointAcrossStrategiesTest, RestoresIdenticalValuesUnderAnotherStrategy) {
  const auto& [from_case, to_case] = GetParam();
  auto runtime = make_runtime(8);
  ASSERT_NE(runtime, nullptr);
  auto from = make_test_strategy(runtime, from_case);
  auto to = make_test_strategy(runtime, to_case);
  ASSERT_NE(from, nullptr);
  ASSERT_NE(to, nullptr);
  TempDir dir("ckpt");
  CheckpointManager manager(dir.path(), 3);

  auto trained = digits_model(*from, make_adam(0.01f));
  ASSERT_NE(trained, nullptr);
  const Dataset data = batches(digits(128), 32);
  ASSERT_TRUE(trained->fit(data).ok());
  ASSERT_TRUE(manager.save(trained->to_checkpoint().value()).ok());

  auto restored = digits_model(*to, make_adam(0.01f));
  ASSERT_NE(restored, nullptr);
  auto checkpoint = manager.restore_latest();
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
  EXPECT_EQ(checkpoint->metadata.at("strategy"), from->kind());
  ASSERT_TRUE(restored->restore(*checkpoint).ok());
  EXPECT_EQ(restored->global_step(), trained->global_step());
  expect_same_weights(*trained, *restored);
  // Same weights, same predictions, whatever the replica count.
  auto p1 = trained->predict(data);
  auto p2 = restored->predict(data);
  ASSERT_TRUE(p1.ok()) << p1.status();
  ASSERT_TRUE(p2.ok()) << p2.status();
  EXPECT_EQ(p1->shape(), (Shape{128, 10}));
  EXPECT_LT(max_abs_difference(*p1, *p2), 1e-6);

  // Both continue identically: the optimizer's slots came along.
  ASSERT_TRUE(trained->fit(data).ok());
  ASSERT_TRUE(restored->fit(data).ok());
  for (size_t i = 0; i < trained->variables().size(); ++i) {
    EXPECT_LT(max_abs_difference(trained->variables()[i]->value(0),
                                 restored->variables()[i]->value(0)),
              1e-5);
  }
  auto e1 = trained->evaluate(data);
  auto e2 = restored->evaluate(data);
  ASSERT_TRUE(e1.ok() && e2.ok());
  EXPECT_NEAR(e1->loss, e2->loss, 1e-5);
  EXPECT_EQ(e1->examples, 128);
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, CheckpointAcrossStrategiesTest,
    ::testing::Values(std::pair{StrategyCase{"mirrored", 4}, StrategyCase{"one_device", 1}},
                      std::pair{StrategyCase{"one_device", 1}, StrategyCase{"mirrored", 4}},
                      std::pair{StrategyCase{"central_storage", 3}, StrategyCase{"mirrored", 2}}),
    [](const auto& param_info) {
      return param_info.param.first.kind + "_to_" + param_info.param.second.kind;
    });

TEST(CheckpointRestoreErrorsTest, AModelOfAnotherShapeIsRefusedClearly) {
  DefaultStrategy single;
  auto model = digits_model(single, make_sgd(0.1f));
  ASSERT_NE(model, nullptr);
  Checkpoint wrong;
  wrong.step = 3;
  wrong.tensors.emplace("dense_0/kernel", Tensor(Shape{5, 5}));
  Status st = model->restore(wrong);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("dense_0/kernel"), std::string::npos) << st;
}

}  // namespace
}  // namespace strata::testing
