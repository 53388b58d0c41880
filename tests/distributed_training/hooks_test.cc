// The monitored-session hooks: stop at a step, stop on a NaN loss with a
// clear error, log, count steps per second, save checkpoints on a schedule,
// and resume from the latest checkpoint after a restart.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/train/hooks.h"
#include "training_fixture.h"

namespace strata::testing {
namespace {

class HooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = make_runtime(8);
    ASSERT_NE(runtime_, nullptr);
    strategy_ = make_test_strategy(runtime_, {"mirrored", 4});
    ASSERT_NE(strategy_, nullptr);
  }
  std::shared_ptr<Runtime> runtime_;
  std::unique_ptr<Strategy> strategy_;
  const Dataset data_ = batches(digits(256), 32);  // 8 steps per epoch
};

TEST_F(HooksTest, StopAtStepEndsTrainingMidEpoch) {
  auto model = digits_model(*strategy_, make_sgd(0.5f));
  FitOptions options;
  options.epochs = 10;
  options.hooks = {std::make_shared<StopAtStepHook>(11)};
  auto history = model->fit(data_, options);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(history->global_step, 11);
  EXPECT_TRUE(history->stopped_by_hook);
  EXPECT_EQ(history->epochs.size(), 2u);
}

TEST_F(HooksTest, ANanLossStopsWithAClearError) {
  auto model = digits_model(*strategy_, make_sgd(1e30f));  // diverges at once
  FitOptions options;
  options.epochs = 3;
  options.hooks = {std::make_shared<NanLossHook>()};
  auto history = model->fit(data_, options);
  ASSERT_FALSE(history.ok());
  EXPECT_NE(history.status().message().find("training diverged"), std::string::npos)
      << history.status();
  EXPECT_NE(history.status().message().find("at step"), std::string::npos);
}

TEST_F(HooksTest, LoggingAndStepCounterReport) {
  auto model = digits_model(*strategy_, make_sgd(0.5f));
  std::ostringstream log;
  auto counter = std::make_shared<StepCounterHook>(nullptr, 4);
  FitOptions options;
  options.epochs = 2;
  options.progress = &log;
  options.hooks = {std::make_shared<LoggingHook>(log, 5), counter};
  ASSERT_TRUE(model->fit(data_, options).ok());
  EXPECT_NE(log.str().find("step 5: loss "), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("step 15: loss "), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("epoch 2/2: 8 steps, loss "), std::string::npos) << log.str();
  EXPECT_GT(counter->steps_per_second(), 0.0);
}

TEST_F(HooksTest, CheckpointsOnScheduleAndResumeAfterARestart) {
  TempDir dir("hooks");
  auto manager = std::make_shared<CheckpointManager>(dir.path(), 2);
  std::vector<Tensor> weights_at_12;
  {
    auto model = digits_model(*strategy_, make_adam(0.01f));
    auto saver = std::make_shared<CheckpointSaverHook>(manager, 4);
    FitOptions options;
    options.epochs = 10;
    options.hooks = {saver, std::make_shared<StopAtStepHook>(12)};
    ASSERT_TRUE(model->fit(data_, options).ok());
    EXPECT_EQ(saver->saves(), 3);  // steps 4, 8, 12; nothing new at the end
    EXPECT_FALSE(saver->resumed());
    EXPECT_EQ(manager->checkpoints().size(), 2u);  // max_to_keep
    for (const auto& v : model->variables()) weights_at_12.push_back(v->value(0));
  }
  // "Restart": a new model resumes from step 12 and trains to 16.
  auto model = digits_model(*strategy_, make_adam(0.01f));
  auto saver = std::make_shared<CheckpointSaverHook>(manager, 4);
  FitOptions options;
  options.epochs = 1;
  options.steps_per_epoch = 0;  // begin hooks only: check the restored state
  ASSERT_TRUE(model->fit(data_, {.epochs = 0, .steps_per_epoch = -1, .hooks = {saver},
                                 .progress = nullptr})
                  .ok());
  EXPECT_TRUE(saver->resumed());
  EXPECT_EQ(model->global_step(), 12);
  for (size_t i = 0; i < weights_at_12.size(); ++i) {
    EXPECT_EQ(max_abs_difference(model->variables()[i]->value(3), weights_at_12[i]), 0.0);
  }
  options.steps_per_epoch = -1;
  options.epochs = 5;
  options.hooks = {saver, std::make_shared<StopAtStepHook>(16)};
  ASSERT_TRUE(model->fit(data_, options).ok());
  EXPECT_EQ(model->global_step(), 16);
  EXPECT_EQ(manager->restore_latest()->step, 16);
}

TEST_F(HooksTest, ACorruptLatestCheckpointFallsBackToThePreviousOne) {
  TempDir dir("corrupt");
  auto manager = std::make_shared<CheckpointManager>(dir.path(), 3);
  auto model = digits_model(*strategy_, make_sgd(0.5f));
  FitOptions options;
  options.epochs = 1;
  options.hooks = {std::make_shared<CheckpointSaverHook>(manager, 4)};
  ASSERT_TRUE(model->fit(data_, options).ok());  // saves at 4 and 8
  auto latest = manager->latest();
  ASSERT_TRUE(latest.has_value());
  {
    std::fstream f(*latest, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  auto restored = manager->restore_latest();
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step, 4);
}

}  // namespace
}  // namespace strata::testing
