// MultiWorkerMirroredStrategy with its workers as threads over a memory
// store (the store_exchange plugin carries the cross-process step): 2
// workers x 2 devices must train to the weights Mirrored gets on 4 devices,
// start from the chief's variables, shard the input as the policy says and
// leave checkpoint writing to the chief, and resume together from one
// checkpoint or not at all. The same program across real
// processes is tests/launch (strata launch + the mpi plugin).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>

#include "core/checkpoint/checkpoint_manager.h"
#include "core/data/digits.h"
#include "core/strategy/distributed_dataset.h"
#include "core/strategy/multi_worker_mirrored_strategy.h"
#include "core/strategy/strategy_factory.h"
#include "core/train/hooks.h"
#include "core/train/model.h"
#include "process_world.h"
#include "worker_threads.h"

namespace strata {
namespace {

constexpr int kWorkers = 2;
constexpr int kLocal = 2;

std::shared_ptr<Runtime> make_runtime() {
  return testing::make_multi_process_runtime(kWorkers * kLocal);
}

Dataset digit_batches(int64_t rows, int64_t batch) {
  auto path = find_digits_file(STRATA_SOURCE_DIR);
  EXPECT_TRUE(path.ok()) << path.status();
  auto data = load_digits_csv_gz(*path);
  EXPECT_TRUE(data.ok()) << data.status();
  auto ds = Dataset::from_arrays({data->features.slice_rows(0, rows),
                                  data->labels.slice_rows(0, rows)});
  EXPECT_TRUE(ds.ok()) << ds.status();
  return *ds->batch(batch);
}

// Runs body(strategy) on each worker thread, each with its own strategy.
void run_workers(const std::shared_ptr<Runtime>& rt,
                 const std::function<void(MultiWorkerMirroredStrategy&)>& body) {
  testing::run_workers(rt, kWorkers, kLocal, body);
}

std::vector<Tensor> train(Strategy& strategy, uint32_t seed, const Dataset& data,
                          std::vector<std::shared_ptr<Hook>> hooks = {}) {
  std::unique_ptr<Model> model;
  {
    auto scope = strategy.scope();
    EXPECT_TRUE(scope.ok()) << scope.status();
    auto created = Model::create(*Mlp::create({64, 32, 10}, seed),
                                 LossKind::kSparseSoftmaxCrossEntropy, make_adam(0.01f));
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return {};
    model = std::move(*created);
  }
  FitOptions options;
  options.epochs = 2;
  options.hooks = std::move(hooks);
  auto history = model->fit(data, options);
  EXPECT_TRUE(history.ok()) << history.status();
  std::vector<Tensor> weights;
  for (const VariablePtr& v : model->variables()) weights.push_back(v->value(0));
  return weights;
}

double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    for (int64_t k = 0; k < a[i].size(); ++k) {
      worst = std::max(worst, static_cast<double>(std::abs(a[i][k] - b[i][k])));
    }
  }
  return worst;
}

TEST(MultiWorkerMirroredTest, TwoWorkersOfTwoDevicesTrainLikeMirroredOnFour) {
  auto rt = make_runtime();
  ASSERT_NE(rt, nullptr);
  const Dataset data = digit_batches(128, 32);
  StrategyOptions mirrored_options;
  mirrored_options.devices = {"cpu:0", "cpu:1", "cpu:2", "cpu:3"};
  auto mirrored = make_strategy(rt, "mirrored", mirrored_options);
  ASSERT_TRUE(mirrored.ok()) << mirrored.status();
  const std::vector<Tensor> reference = train(**mirrored, 7, data);

  std::mutex mu;
  std::vector<std::vector<Tensor>> per_worker(kWorkers);
  run_workers(rt, [&](MultiWorkerMirroredStrategy& s) {
    EXPECT_EQ(s.num_replicas_in_sync(), 4);
    EXPECT_EQ(s.num_local_replicas(), 2);
    // Worker 1 seeds differently: the chief's initial values must win.
    auto weights = train(s, s.is_chief() ? 7 : 1234, data);
    std::lock_guard lock(mu);
    per_worker[static_cast<size_t>(s.worker_rank())] = std::move(weights);
  });
  EXPECT_EQ(max_difference(per_worker[0], per_worker[1]), 0.0) << "workers diverged";
  // Only the order of the floating-point sums differs from Mirrored's.
  EXPECT_LT(max_difference(per_worker[0], reference), 2e-5);
}

TEST(MultiWorkerMirroredTest, DataShardingGivesEachWorkerItsReplicasRows) {
  auto rt = make_runtime();
  ASSERT_NE(rt, nullptr);
  const Dataset data = digit_batches(8, 8);  // one global batch of 8 rows
  run_workers(rt, [&](MultiWorkerMirroredStrategy& s) {
    for (AutoShardPolicy policy : {AutoShardPolicy::kAuto, AutoShardPolicy::kOff}) {
      auto input = distribute_dataset(s, data, policy);
      ASSERT_TRUE(input.ok()) << input.status();
      auto batch = input->make_iterator()->next();
      ASSERT_TRUE(batch.ok() && batch->has_value()) << batch.status();
      const auto& values = (*batch)->values;
      ASSERT_EQ(values.num_replicas(), kLocal);
      const int64_t rows = policy == AutoShardPolicy::kOff ? 4 : 2;
      const int64_t first = policy == AutoShardPolicy::kOff ? 0 : 2 * s.first_replica_id();
      for (int l = 0; l < kLocal; ++l) {
        const Tensor& labels = values[l][1];
        ASSERT_EQ(labels.dim(0), rows);
        // Labels of digits 0..7 in the file are 0,1,2,...: rows tell who got what.
        EXPECT_EQ(labels[0], data.make_iterator()->next()->value()[1][first + l * rows]);
      }
    }
    EXPECT_EQ(distribute_dataset(s, data, AutoShardPolicy::kFile).status().code(),
              Code::kInvalidArgument);
  });
}

TEST(MultiWorkerMirroredTest, OnlyTheChiefWritesCheckpoints) {
  auto rt = make_runtime();
  ASSERT_NE(rt, nullptr);
  const Dataset data = digit_batches(64, 32);
  const auto base = std::filesystem::temp_directory_path() /
                    ("strata-mwms-ckpt-" + std::to_string(::getpid()));
  run_workers(rt, [&](MultiWorkerMirroredStrategy& s) {
    const auto dir = base / ("worker" + std::to_string(s.worker_rank()));
    auto saver = std::make_shared<CheckpointSaverHook>(std::make_shared<CheckpointManager>(dir, 2),
                                                       1);
    train(s, 7, data, {saver});
  });
  EXPECT_TRUE(std::filesystem::exists(base / "worker0"));
  EXPECT_FALSE(std::filesystem::exists(base / "worker1") &&
               !std::filesystem::is_empty(base / "worker1"));
  std::filesystem::remove_all(base);
}

// A kill after step N, on every worker alike.
class KillAfterStep final : public Hook {
 public:
  explicit KillAfterStep(int64_t step) : step_(step) {}
  StatusOr<bool> after_step(const StepInfo& step) override {
    if (step.global_step >= step_) return AbortedError("killed");
    return false;
  }

 private:
  int64_t step_;
};

// A fit of 2 epochs with `hooks`: its weights, or its error.
StatusOr<std::vector<Tensor>> fit_weights(Strategy& strategy, const Dataset& data,
                                          std::vector<std::shared_ptr<Hook>> hooks) {
  std::unique_ptr<Model> model;
  {
    STRATA_ASSIGN_OR_RETURN(StrategyScope scope, strategy.scope());
    STRATA_ASSIGN_OR_RETURN(model, Model::create(*Mlp::create({64, 32, 10}, 7),
                                                 LossKind::kSparseSoftmaxCrossEntropy,
                                                 make_adam(0.01f)));
  }
  FitOptions options;
  options.epochs = 2;
  options.hooks = std::move(hooks);
  STRATA_ASSIGN_OR_RETURN(History history, model->fit(data, options));
  if (history.global_step != 16) {
    return InternalError("ran to step " + std::to_string(history.global_step) + ", not 16");
  }
  std::vector<Tensor> weights;
  for (const VariablePtr& v : model->variables()) weights.push_back(v->value(0));
  return weights;
}

class MultiWorkerResumeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = make_runtime();
    ASSERT_NE(rt_, nullptr);
    std::filesystem::remove_all(base_);
  }
  void TearDown() override { std::filesystem::remove_all(base_); }
  std::shared_ptr<CheckpointSaverHook> saver(const std::filesystem::path& dir) {
    return std::make_shared<CheckpointSaverHook>(std::make_shared<CheckpointManager>(dir, 3), 2);
  }
  // Every worker trains with checkpoints in dir_of(rank) until killed after step 5.
  void train_until_killed(const std::function<std::filesystem::path(int)>& dir_of) {
    run_workers(rt_, [&](MultiWorkerMirroredStrategy& s) {
      auto killed = fit_weights(s, data_, {saver(dir_of(s.worker_rank())),
                                           std::make_shared<KillAfterStep>(5)});
      EXPECT_EQ(killed.status().code(), Code::kAborted) << killed.status();
    });
  }
  // Every worker resumes from dir_of(rank): its weights or error, by rank.
  std::vector<StatusOr<std::vector<Tensor>>> resume(
      const std::function<std::filesystem::path(int)>& dir_of) {
    std::mutex mu;
    std::vector<StatusOr<std::vector<Tensor>>> results(kWorkers, InternalError("did not run"));
    run_workers(rt_, [&](MultiWorkerMirroredStrategy& s) {
      auto result = fit_weights(s, data_, {saver(dir_of(s.worker_rank()))});
      std::lock_guard lock(mu);
      results[static_cast<size_t>(s.worker_rank())] = std::move(result);
    });
    return results;
  }

  std::shared_ptr<Runtime> rt_;
  const Dataset data_ = digit_batches(128, 16);  // 8 steps per epoch
  const std::filesystem::path base_ = std::filesystem::temp_directory_path() /
                                      ("strata-mwms-resume-" + std::to_string(::getpid()));
};

TEST_F(MultiWorkerResumeTest, WorkersSharingADirectoryResumeToTheUninterruptedWeights) {
  std::vector<Tensor> reference;
  run_workers(rt_, [&](MultiWorkerMirroredStrategy& s) {
    auto weights = fit_weights(s, data_, {});
    ASSERT_TRUE(weights.ok()) << weights.status();
    if (s.is_chief()) reference = *weights;
  });
  train_until_killed([&](int) { return base_ / "shared"; });
  auto results = resume([&](int) { return base_ / "shared"; });
  for (int w = 0; w < kWorkers; ++w) {
    ASSERT_TRUE(results[static_cast<size_t>(w)].ok()) << "worker " << w << ": "
                                                      << results[static_cast<size_t>(w)].status();
    EXPECT_LE(max_difference(*results[static_cast<size_t>(w)], reference), 1e-6) << "worker " << w;
  }
}

// Worker 0 finds its checkpoints, worker 1 an empty directory: resuming
// would train two different models and exit 0. Both must refuse, naming
// the workers and what each found.
TEST_F(MultiWorkerResumeTest, WorkersWithDifferentCheckpointsRefuseNamingThem) {
  auto own_dir = [&](int rank) { return base_ / ("worker" + std::to_string(rank)); };
  train_until_killed(own_dir);  // only the chief writes: worker1 stays empty
  auto results = resume(own_dir);
  for (int w = 0; w < kWorkers; ++w) {
    const Status& s = results[static_cast<size_t>(w)].status();
    ASSERT_FALSE(s.ok()) << "worker " << w << " trained on from its own state";
    EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
    EXPECT_THAT(s.message(), ::testing::HasSubstr("worker 0 (chief): the checkpoint of step 4"));
    EXPECT_THAT(s.message(), ::testing::HasSubstr("worker 1: no checkpoint"));
    EXPECT_THAT(s.message(), ::testing::HasSubstr("differs from the chief"));
  }
}

// One worker's copies are all damaged: it fails with its own error, and
// the other, whose copy is fine, fails too instead of training alone.
TEST_F(MultiWorkerResumeTest, OneWorkersDamagedDirectoryStopsEveryWorker) {
  auto own_dir = [&](int rank) { return base_ / ("worker" + std::to_string(rank)); };
  train_until_killed(own_dir);
  std::filesystem::copy(own_dir(0), own_dir(1));
  for (const auto& file : CheckpointManager(own_dir(1)).checkpoints()) {
    std::filesystem::resize_file(file, 30);
  }
  auto results = resume(own_dir);
  EXPECT_EQ(results[1].status().code(), Code::kDataLoss) << results[1].status();
  EXPECT_EQ(results[0].status().code(), Code::kAborted) << results[0].status();
  EXPECT_THAT(results[0].status().message(), ::testing::HasSubstr("worker(s) 1"));
}

}  // namespace
}  // namespace strata
