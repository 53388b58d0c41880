// Resuming after a kill continues the run; it does not restart it. A fit
// killed mid-epoch and resumed from its last checkpoint -- in a "new
// process": a fresh model and a freshly built input pipeline -- ends with
// the weights of a fit never interrupted, shuffle order included. And a
// checkpoint directory that cannot be resumed from honestly is refused:
// every file damaged, NaN/Inf values, a step at the end of int64, a
// forged position.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include "core/runtime/runtime.h"
#include "core/strategy/parameter_server/parameter_server_strategy.h"
#include "core/train/hooks.h"
#include "tests/common/log_capture.h"
#include "training_fixture.h"

namespace strata::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kEpochs = 3;
constexpr int64_t kStepsPerEpoch = 8;  // 256 rows in batches of 32

// train_digits' pipeline in small: reshuffled every epoch, batched,
// prefetched. Built anew for each run, as a restarted process would.
Dataset shuffled_batches() {
  const DigitsSlice d = digits(256);
  auto ds = Dataset::from_arrays({d.features, d.labels});
  EXPECT_TRUE(ds.ok()) << ds.status();
  auto shuffled = ds->shuffle(256, /*seed=*/42);
  auto batched = shuffled->batch(32);
  auto prefetched = batched->prefetch(2);
  EXPECT_TRUE(prefetched.ok()) << prefetched.status();
  return *prefetched;
}

FitOptions epochs_only(int epochs) {
  FitOptions options;
  options.epochs = epochs;
  return options;
}

std::vector<Tensor> weights_of(const Model& model) {
  std::vector<Tensor> out;
  for (const VariablePtr& v : model.variables()) out.push_back(v->value(0));
  return out;
}

double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    worst = std::max(worst, max_abs_difference(a[i], b[i]));
  }
  return worst;
}

class ResumeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = make_runtime(8);
    ASSERT_NE(runtime_, nullptr);
    strategy_ = make_test_strategy(runtime_, {"mirrored", 4});
    ASSERT_NE(strategy_, nullptr);
  }
  std::unique_ptr<Model> model() { return digits_model(*strategy_, make_adam(0.01f)); }
  std::shared_ptr<CheckpointManager> manager() {
    return std::make_shared<CheckpointManager>(dir_.path(), 3);
  }
  // Trains with checkpoints every `every` steps until killed after `kill`.
  void train_until_killed(int64_t every, int64_t kill) {
    auto m = model();
    FitOptions options;
    options.epochs = kEpochs;
    options.hooks = {std::make_shared<CheckpointSaverHook>(manager(), every),
                     std::make_shared<KillAfterStep>(kill)};
    auto history = m->fit(shuffled_batches(), options);
    ASSERT_FALSE(history.ok());
    ASSERT_EQ(history.status().code(), Code::kAborted) << history.status();
  }
  // A fresh model resumed from the directory, or its error.
  StatusOr<History> resume(Model& m, ResumeOptions resume_options = {}, int epochs = kEpochs) {
    FitOptions options;
    options.epochs = epochs;
    options.hooks = {
        std::make_shared<CheckpointSaverHook>(manager(), 4, std::nullopt, resume_options)};
    return m.fit(shuffled_batches(), options);
  }

  std::shared_ptr<Runtime> runtime_;
  std::unique_ptr<Strategy> strategy_;
  TempDir dir_{"resume"};
};

struct KillCase {
  int64_t save_every;
  int64_t kill_after;
  int64_t saved_step;  // the checkpoint the resume starts from
  const char* name;
};

class KillAndResumeTest : public ResumeTest, public ::testing::WithParamInterface<KillCase> {};

TEST_P(KillAndResumeTest, EndsWithTheWeightsOfARunNeverInterrupted) {
  const KillCase c = GetParam();
  auto reference = model();
  auto uninterrupted = reference->fit(shuffled_batches(), epochs_only(kEpochs));
  ASSERT_TRUE(uninterrupted.ok()) << uninterrupted.status();
  ASSERT_EQ(uninterrupted->global_step, kEpochs * kStepsPerEpoch);

  train_until_killed(c.save_every, c.kill_after);
  auto saved = manager()->restore_latest();
  ASSERT_TRUE(saved.ok()) << saved.status();
  ASSERT_EQ(saved->step, c.saved_step);
  EXPECT_EQ(saved->metadata["fit/epoch"], std::to_string((c.saved_step - 1) / kStepsPerEpoch));

  auto resumed = model();
  auto history = resume(*resumed);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(history->global_step, kEpochs * kStepsPerEpoch)
      << "the resumed fit ran epochs again instead of continuing";
  EXPECT_LE(max_difference(weights_of(*resumed), weights_of(*reference)), 1e-6);
  // Only the epochs this fit trained are listed, each with its full count.
  for (const EpochLog& log : history->epochs) EXPECT_EQ(log.steps, kStepsPerEpoch);
  EXPECT_EQ(history->epochs.back().epoch, kEpochs);
}

INSTANTIATE_TEST_SUITE_P(
    KillPoints, KillAndResumeTest,
    ::testing::Values(KillCase{4, 14, 12, "mid_second_epoch"},
                      KillCase{2, 3, 2, "mid_first_epoch"},
                      KillCase{8, 19, 16, "at_an_epoch_end"}),
    [](const ::testing::TestParamInfo<KillCase>& param) { return std::string(param.param.name); });

TEST_F(ResumeTest, ACheckpointWithoutAPositionResumesAtItsEpochStartAndSaysSo) {
  train_until_killed(4, 14);  // saved at 12: epoch 2, 4 steps in
  auto old = manager()->restore_latest();
  ASSERT_TRUE(old.ok()) << old.status();
  for (const char* key : {"fit/epoch", "fit/steps_in_epoch", "fit/batches_in_epoch",
                          "fit/data_state"}) {
    old->metadata.erase(key);  // as written before positions existed
  }
  ASSERT_TRUE(manager()->save(*old).ok());
  LogCapture log(spdlog::level::warn);
  auto resumed = model();
  auto history = resume(*resumed);
  ASSERT_TRUE(history.ok()) << history.status();
  // Epochs 2 and 3 in full after step 12: the 4 steps of epoch 2 run again.
  EXPECT_EQ(history->global_step, 12 + 2 * kStepsPerEpoch);
  EXPECT_THAT(log.text(), HasSubstr("records no position"));
  EXPECT_THAT(log.text(), HasSubstr("start of epoch 2"));
}

TEST_F(ResumeTest, AFitWithoutACheckpointStillRunsEveryEpochEachTime) {
  auto m = model();
  ASSERT_TRUE(m->fit(shuffled_batches(), epochs_only(2)).ok());
  auto again = m->fit(shuffled_batches(), epochs_only(2));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->global_step, 4 * kStepsPerEpoch);
  EXPECT_EQ(again->epochs.size(), 2u);
}

void flip_byte(const std::filesystem::path& path, std::streamoff at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(at);
  const char c = static_cast<char>(f.get());
  f.seekp(at);
  f.put(static_cast<char>(c ^ 0x5a));
}

TEST_F(ResumeTest, EveryCheckpointDamagedIsAnErrorNamingThemUnlessAFreshStartIsAllowed) {
  train_until_killed(4, 10);  // saves 4 and 8
  const std::vector<std::filesystem::path> files = manager()->checkpoints();
  ASSERT_EQ(files.size(), 2u);
  for (const auto& file : files) flip_byte(file, 41);
  auto m = model();
  const std::vector<Tensor> initial = weights_of(*m);
  auto refused = resume(*m);
  ASSERT_FALSE(refused.ok()) << "a silent restart from step 0";
  EXPECT_EQ(refused.status().code(), Code::kDataLoss) << refused.status();
  for (const auto& file : files) EXPECT_THAT(refused.status().message(), HasSubstr(file.string()));
  EXPECT_THAT(refused.status().message(), HasSubstr("fresh_start_if_all_damaged"));
  EXPECT_EQ(m->global_step(), 0);
  EXPECT_EQ(max_difference(weights_of(*m), initial), 0.0);

  auto fresh = model();
  ResumeOptions allow;
  allow.fresh_start_if_all_damaged = true;
  auto history = resume(*fresh, allow);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(history->global_step, kEpochs * kStepsPerEpoch);
}

// Saves `checkpoint` (a model's, edited) as the directory's latest.
void save_edited(CheckpointManager& manager, const Checkpoint& checkpoint) {
  ASSERT_TRUE(manager.save(checkpoint).ok());
}

TEST_F(ResumeTest, NonFiniteValuesAreRefusedUnlessAllowed) {
  auto source = model();
  ASSERT_TRUE(source->fit(shuffled_batches(), epochs_only(1)).ok());
  const std::string kernel = source->variables().front()->name();
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  for (float bad : {kNaN, std::numeric_limits<float>::infinity()}) {
    Checkpoint checkpoint = source->to_checkpoint().value();
    checkpoint.tensors.at(kernel).values()[5] = bad;
    save_edited(*manager(), checkpoint);
    auto m = model();
    const std::vector<Tensor> initial = weights_of(*m);
    auto refused = resume(*m);
    ASSERT_FALSE(refused.ok()) << "restored " << bad;
    EXPECT_EQ(refused.status().code(), Code::kInvalidArgument) << refused.status();
    EXPECT_THAT(refused.status().message(), HasSubstr("'" + kernel + "'"));
    EXPECT_THAT(refused.status().message(), HasSubstr("element 5"));
    EXPECT_EQ(max_difference(weights_of(*m), initial), 0.0) << "changed before refusing";
  }
  // An optimizer slot counts too.
  Checkpoint slot = source->to_checkpoint().value();
  std::string slot_name;
  for (auto& [name, tensor] : slot.tensors) {
    if (name.starts_with("optimizer/") && tensor.size() > 1) {
      tensor.values()[0] = -std::numeric_limits<float>::infinity();
      slot_name = name;
      break;
    }
  }
  ASSERT_FALSE(slot_name.empty());
  save_edited(*manager(), slot);
  auto m = model();
  auto refused = resume(*m);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr(slot_name));

  ResumeOptions allow;
  allow.restore.allow_non_finite = true;
  auto permitted = model();
  auto history = resume(*permitted, allow, /*epochs=*/0);  // restore only
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(permitted->global_step(), kStepsPerEpoch);
}

TEST_F(ResumeTest, StepsThatWouldOverflowOrAreNegativeAreErrors) {
  auto source = model();
  Checkpoint checkpoint = source->to_checkpoint().value();
  checkpoint.step = std::numeric_limits<int64_t>::max();
  save_edited(*manager(), checkpoint);
  auto m = model();
  auto refused = resume(*m);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kFailedPrecondition) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("would overflow"));
  EXPECT_EQ(m->global_step(), std::numeric_limits<int64_t>::max());

  // A negative step (the file format allows one) cannot be resumed either.
  Checkpoint negative = source->to_checkpoint().value();
  negative.step = -7;
  EXPECT_EQ(m->check_restorable(negative).code(), Code::kInvalidArgument);
  EXPECT_EQ(m->restore(negative).code(), Code::kInvalidArgument);
  EXPECT_EQ(m->global_step(), std::numeric_limits<int64_t>::max());

  // The optimizer's iteration count: a float, which a cast to int64 would
  // overflow (undefined behaviour) if it were not checked first.
  std::filesystem::remove_all(dir_.path());
  Checkpoint counted = source->to_checkpoint().value();
  counted.tensors.at("optimizer/iterations") = Tensor::scalar(1e30f);
  save_edited(*manager(), counted);
  auto n = model();
  auto bad_count = resume(*n);
  ASSERT_FALSE(bad_count.ok());
  EXPECT_EQ(bad_count.status().code(), Code::kInvalidArgument) << bad_count.status();
  EXPECT_THAT(bad_count.status().message(), HasSubstr("iteration count"));
}

TEST_F(ResumeTest, AForgedPositionIsRefused) {
  auto source = model();
  ASSERT_TRUE(source->fit(shuffled_batches(), epochs_only(1)).ok());
  const std::pair<const char*, const char*> forgeries[] = {
      {"fit/epoch", "99999999999999999999"},  // past int64
      {"fit/epoch", "-1"},
      {"fit/steps_in_epoch", "3x"},
      {"fit/batches_in_epoch", "0"},  // fewer batches read than steps run
      {"fit/data_state", "1,,2"}};
  for (const auto& [key, value] : forgeries) {
    Checkpoint checkpoint = source->to_checkpoint().value();
    checkpoint.metadata["fit/steps_in_epoch"] = "4";
    checkpoint.metadata["fit/batches_in_epoch"] = "4";
    checkpoint.metadata[key] = value;
    const Status s = source->check_restorable(checkpoint);
    EXPECT_EQ(s.code(), Code::kDataLoss) << key << " = " << value << ": " << s;
    EXPECT_THAT(s.message(), HasSubstr(key));
  }
  Checkpoint partial = source->to_checkpoint().value();
  partial.metadata.erase("fit/data_state");
  EXPECT_EQ(source->check_restorable(partial).code(), Code::kDataLoss);
}

TEST_F(ResumeTest, AnInputPipelineOfAnotherShapeIsRefused) {
  train_until_killed(4, 14);
  auto m = model();
  FitOptions options;
  options.epochs = kEpochs;
  options.hooks = {std::make_shared<CheckpointSaverHook>(manager(), 4)};
  auto unshuffled = m->fit(batches(digits(256), 32), options);  // no shuffle: state of 0 counters
  ASSERT_FALSE(unshuffled.ok());
  EXPECT_EQ(unshuffled.status().code(), Code::kInvalidArgument) << unshuffled.status();
  EXPECT_THAT(unshuffled.status().message(), HasSubstr("shuffle"));
}

// The hook cannot save or restore the ps tasks' shards, so it refuses
// rather than checkpointing this process's local copy as if it were the job's.
TEST(ResumeUnderParameterServerTest, TheCheckpointHookIsRefused) {
  Config config;
  config.devices.cpu_count = 1;
  config.strategy.kind = "parameter_server";
  RuntimeOptions runtime_options;
  runtime_options.discover_plugins = false;
  auto runtime = Runtime::create(config, runtime_options);
  ASSERT_TRUE(runtime.ok()) << runtime.status();
  auto strategy = ParameterServerStrategy::create(*runtime);  // one process: a local ps
  ASSERT_TRUE(strategy.ok()) << strategy.status();
  auto model = digits_model(**strategy, make_sgd(0.1f));
  ASSERT_NE(model, nullptr);
  TempDir dir("ps");
  FitOptions options;
  options.hooks = {std::make_shared<CheckpointSaverHook>(
      std::make_shared<CheckpointManager>(dir.path()), 4)};
  auto history = model->fit(batches(digits(64), 32), options);
  ASSERT_FALSE(history.ok()) << "checkpointed a parameter server job's local copy";
  EXPECT_EQ(history.status().code(), Code::kFailedPrecondition) << history.status();
  EXPECT_THAT(history.status().message(), HasSubstr("ParameterServerStrategy"));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace strata::testing
