// A restored fit position is checked against the fit that resumes it. A
// resumed epoch reads past the batches its checkpoint had trained on; a
// forged or mismatched count there used to be read as it stood, and on an
// endless (repeat()ed) input a count near 2^63 kept the fit reading for
// ever (issue 24). Each endless input here carries a watchdog: past a
// budget of batches its next() fails, so old code fails the test rather
// than hangs it. Honest positions, empty batches included, still resume.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "core/checkpoint/checkpoint_manager.h"
#include "core/runtime/runtime.h"
#include "core/train/hooks.h"
#include "training_fixture.h"

namespace strata::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kBudget = 5000;  // batches one iteration may read
constexpr char kWatchdog[] = "watchdog";

// The inner pipeline, failing once `budget` batches have been read.
class BudgetIterator final : public Iterator {
 public:
  BudgetIterator(std::unique_ptr<Iterator> inner, int64_t budget)
      : inner_(std::move(inner)), budget_(budget) {}
  StatusOr<std::optional<Element>> next() override {
    if (++read_ > budget_) {
      return TimedOutError(std::string(kWatchdog) + ": more than " +
                                   std::to_string(budget_) + " batches read in one pass");
    }
    return inner_->next();
  }

 private:
  std::unique_ptr<Iterator> inner_;
  int64_t budget_;
  int64_t read_ = 0;
};

// `pass` repeated for ever, behind the watchdog.
Dataset endless(const Dataset& pass) {
  auto repeated = pass.repeat();
  EXPECT_TRUE(repeated.ok()) << repeated.status();
  const Dataset forever = *repeated;
  return Dataset::from_generator(
      [forever] {
        return std::unique_ptr<Iterator>(
            std::make_unique<BudgetIterator>(forever.make_iterator(), kBudget));
      },
      Dataset::kInfiniteCardinality);
}

// Batches of 16 digits (rows 0..31), with a batch of no rows between them
// when `with_empty`: what a filter before batch() can leave.
Dataset one_pass(bool with_empty) {
  const DigitsSlice d = digits(32);
  return Dataset::from_generator(
      [d, with_empty] {
        struct Pass final : Iterator {
          DigitsSlice d;
          bool with_empty;
          int i = 0;
          StatusOr<std::optional<Element>> next() override {
            const int at = i++;
            if (with_empty && at == 1) {
              return std::optional<Element>(Element{d.features.slice_rows(0, 0),
                                                    d.labels.slice_rows(0, 0)});
            }
            const int64_t first = with_empty && at > 1 ? 16 * (at - 1) : 16 * at;
            if (first >= 32) return std::optional<Element>();
            return std::optional<Element>(Element{d.features.slice_rows(first, first + 16),
                                                  d.labels.slice_rows(first, first + 16)});
          }
        };
        auto pass = std::make_unique<Pass>();
        pass->d = d;
        pass->with_empty = with_empty;
        return std::unique_ptr<Iterator>(std::move(pass));
      },
      with_empty ? 3 : 2);
}

class ResumePositionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = make_runtime(8);
    ASSERT_NE(runtime_, nullptr);
    strategy_ = make_test_strategy(runtime_, {"mirrored", 4});
    ASSERT_NE(strategy_, nullptr);
  }
  std::unique_ptr<Model> model() { return digits_model(*strategy_, make_sgd(0.1f)); }

  // A fresh model restored (to continue its fit) from a checkpoint of step
  // `step` whose position is epoch 1 after `steps` steps and `batches`
  // batches; then its fit of `input`, or the fit's error.
  StatusOr<History> resume_forged(int64_t step, int64_t steps, int64_t batches,
                                  const Dataset& input, int64_t steps_per_epoch) {
    Checkpoint checkpoint = model()->to_checkpoint().value();
    checkpoint.step = step;
    checkpoint.metadata["fit/epoch"] = "0";
    checkpoint.metadata["fit/steps_in_epoch"] = std::to_string(steps);
    checkpoint.metadata["fit/batches_in_epoch"] = std::to_string(batches);
    auto m = model();
    STRATA_RETURN_IF_ERROR(m->restore(checkpoint, RestoreOptions{.continue_fit = true}));
    FitOptions options;
    options.steps_per_epoch = steps_per_epoch;
    return m->fit(input, options);
  }

  std::shared_ptr<Runtime> runtime_;
  std::unique_ptr<Strategy> strategy_;
};

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

TEST_F(ResumePositionTest, ABatchCountForgedOnAnEndlessInputIsRefusedNotReadForEver) {
  auto fit = resume_forged(2, 2, kForever, endless(one_pass(false)), 4);
  ASSERT_FALSE(fit.ok()) << "resumed a position of " << kForever << " batches";
  EXPECT_THAT(fit.status().message(), Not(HasSubstr(kWatchdog))) << fit.status();
  EXPECT_EQ(fit.status().code(), Code::kInvalidArgument) << fit.status();
  EXPECT_THAT(fit.status().message(), HasSubstr("the checkpoint (step 2)"));
  EXPECT_THAT(fit.status().message(), HasSubstr("'fit/batches_in_epoch' = " +
                                                std::to_string(kForever)));
  EXPECT_THAT(fit.status().message(), HasSubstr("batch 3 of this input is already step 3"));
}

TEST_F(ResumePositionTest, AStepCountPastStepsPerEpochIsRefused) {
  const int64_t huge = int64_t{1} << 62;
  auto fit = resume_forged(huge, huge, huge, endless(one_pass(false)), 4);
  ASSERT_FALSE(fit.ok());
  EXPECT_EQ(fit.status().code(), Code::kInvalidArgument) << fit.status();
  EXPECT_THAT(fit.status().message(), HasSubstr("'fit/steps_in_epoch' = " + std::to_string(huge)));
  EXPECT_THAT(fit.status().message(), HasSubstr("steps_per_epoch of 4"));
}

TEST_F(ResumePositionTest, AStepCountPastTheCheckpointsStepIsRefused) {
  // No steps_per_epoch: an epoch of an endless input never ends, so only
  // the checkpoint's own step bounds its steps.
  const int64_t huge = int64_t{1} << 62;
  auto fit = resume_forged(5, huge, huge, endless(one_pass(false)), -1);
  ASSERT_FALSE(fit.ok());
  EXPECT_EQ(fit.status().code(), Code::kDataLoss) << fit.status();
  EXPECT_THAT(fit.status().message(), HasSubstr("'fit/steps_in_epoch'"));
  EXPECT_THAT(fit.status().message(), HasSubstr("its step is 5"));
}

TEST_F(ResumePositionTest, ABatchCountPastOnePassOfAFiniteInputIsRefused) {
  auto fit = resume_forged(2, 2, 5, one_pass(false), -1);
  ASSERT_FALSE(fit.ok()) << "resumed an epoch of 5 batches on an input of 2";
  EXPECT_EQ(fit.status().code(), Code::kInvalidArgument) << fit.status();
  EXPECT_THAT(fit.status().message(), HasSubstr("'fit/batches_in_epoch' = 5"));
  EXPECT_THAT(fit.status().message(), HasSubstr("one pass of this input has 2"));
}

TEST_F(ResumePositionTest, AStepThatFailedIsNotCountedAsReadPast) {
  // Batch 2's labels are out of range, so its step fails. The position
  // counts the batches trained on: a resume reads batch 2 again (and the
  // replay's bound, a batch with rows per step, holds) instead of skipping
  // a batch that never trained.
  const DigitsSlice d = digits(32);
  Tensor bad_labels = d.labels.slice_rows(16, 32);
  for (float& label : bad_labels.values()) label = 12.0f;
  const Tensor parts[] = {d.labels.slice_rows(0, 16), bad_labels};
  auto labels = Tensor::concat_rows(parts);
  ASSERT_TRUE(labels.ok()) << labels.status();
  auto input = Dataset::from_arrays({d.features, *labels});
  ASSERT_TRUE(input.ok()) << input.status();
  auto batched = input->batch(16);
  ASSERT_TRUE(batched.ok()) << batched.status();
  auto m = model();
  auto fit = m->fit(*batched, FitOptions{});
  ASSERT_EQ(fit.status().code(), Code::kInvalidArgument) << fit.status();
  EXPECT_EQ(m->fit_position().steps_in_epoch, 1);
  EXPECT_EQ(m->fit_position().batches_in_epoch, 1);
}

TEST_F(ResumePositionTest, AnEndlessInputWithEmptyBatchesResumesToTheUninterruptedWeights) {
  // Each pass: 16 rows, no rows, 16 rows. Killed after step 3, saved at
  // step 3: its epoch read 4 batches (one empty) for 3 steps.
  const Dataset input = endless(one_pass(true));
  FitOptions options;
  options.epochs = 2;
  options.steps_per_epoch = 4;
  auto reference = model();
  auto uninterrupted = reference->fit(input, options);
  ASSERT_TRUE(uninterrupted.ok()) << uninterrupted.status();
  ASSERT_EQ(uninterrupted->global_step, 8);

  TempDir dir("resume-position");
  auto manager = std::make_shared<CheckpointManager>(dir.path(), 2);
  auto killed = model();
  FitOptions killing = options;
  killing.hooks = {std::make_shared<CheckpointSaverHook>(manager, 3),
                   std::make_shared<KillAfterStep>(3)};
  ASSERT_EQ(killed->fit(input, killing).status().code(), Code::kAborted);
  auto saved = manager->restore_latest();
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->metadata["fit/steps_in_epoch"], "3");
  EXPECT_EQ(saved->metadata["fit/batches_in_epoch"], "4");

  auto resumed = model();
  FitOptions resuming = options;
  resuming.hooks = {std::make_shared<CheckpointSaverHook>(manager, 3)};
  auto history = resumed->fit(input, resuming);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(history->global_step, 8);
  for (size_t v = 0; v < resumed->variables().size(); ++v) {
    EXPECT_LE(max_abs_difference(resumed->variables()[v]->value(0),
                                 reference->variables()[v]->value(0)),
              1e-6)
        << resumed->variables()[v]->name();
  }
}

}  // namespace
}  // namespace strata::testing
