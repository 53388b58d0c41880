// Shared set-up for the distributed training tests: a slice of the real
// digits data, a small MLP with a fixed seed, and a strategy of each kind.
#ifndef STRATA_TESTS_DISTRIBUTED_TRAINING_TRAINING_FIXTURE_H_
#define STRATA_TESTS_DISTRIBUTED_TRAINING_TRAINING_FIXTURE_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "core/data/digits.h"
#include "core/train/hooks.h"
#include "core/train/model.h"
#include "strategy_test_util.h"

namespace strata::testing {

struct DigitsSlice {
  Tensor features;
  Tensor labels;
};

// The first `rows` digits (features in [0,1], labels 0..9).
inline DigitsSlice digits(int64_t rows) {
  auto path = find_digits_file(STRATA_SOURCE_DIR);
  EXPECT_TRUE(path.ok()) << path.status();
  auto data = load_digits_csv_gz(*path);
  EXPECT_TRUE(data.ok()) << data.status();
  return {data->features.slice_rows(0, rows), data->labels.slice_rows(0, rows)};
}

inline Dataset batches(const DigitsSlice& d, int64_t global_batch) {
  auto ds = Dataset::from_arrays({d.features, d.labels});
  EXPECT_TRUE(ds.ok()) << ds.status();
  auto batched = ds->batch(global_batch);
  EXPECT_TRUE(batched.ok());
  return *batched;
}

inline Mlp digits_mlp(uint32_t seed = 7) {
  auto mlp = Mlp::create({64, 32, 10}, seed);
  EXPECT_TRUE(mlp.ok()) << mlp.status();
  return *mlp;
}

// A model of the digits MLP under `strategy` (inside its scope).
inline std::unique_ptr<Model> digits_model(Strategy& strategy, std::unique_ptr<Optimizer> opt) {
  auto scope = strategy.scope();
  EXPECT_TRUE(scope.ok()) << scope.status();
  auto model = Model::create(digits_mlp(), LossKind::kSparseSoftmaxCrossEntropy, std::move(opt));
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? std::move(*model) : nullptr;
}

// A kill: the fit fails right after step N, so no end hook runs and
// nothing is saved after the last scheduled checkpoint.
class KillAfterStep final : public Hook {
 public:
  explicit KillAfterStep(int64_t step) : step_(step) {}
  StatusOr<bool> after_step(const StepInfo& step) override {
    if (step.global_step < step_) return false;
    return AbortedError("killed after step " + std::to_string(step_));
  }

 private:
  int64_t step_;
};

// A fresh directory under the system's temp dir, removed with the object.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("strata-" + tag + "-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_DISTRIBUTED_TRAINING_TRAINING_FIXTURE_H_
