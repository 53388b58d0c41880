// Hooks for Model::fit, in the spirit of TF's MonitoredTrainingSession:
// small objects called around the loop that stop it, save it, watch it.
#ifndef STRATA_CORE_TRAIN_HOOKS_H_
#define STRATA_CORE_TRAIN_HOOKS_H_

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <vector>

#include "core/checkpoint/checkpoint_manager.h"
#include "core/common/status.h"

namespace strata {

class Model;

struct StepInfo {
  int64_t global_step = 0;  // after this step
  int epoch = 0;
  float loss = 0;           // this step's mean loss over the global batch
  Model* model = nullptr;
};

class Hook {
 public:
  virtual ~Hook() = default;
  virtual Status begin(Model&) { return Status(); }
  // true asks the loop to stop after this step; an error stops it with it.
  virtual StatusOr<bool> after_step(const StepInfo& step) = 0;
  virtual Status end(Model&) { return Status(); }
};

// Stops once the global step reaches last_step (counting resumed steps).
class StopAtStepHook final : public Hook {
 public:
  explicit StopAtStepHook(int64_t last_step) : last_step_(last_step) {}
  StatusOr<bool> after_step(const StepInfo& step) override {
    return step.global_step >= last_step_;
  }

 private:
  int64_t last_step_;
};

// Fails the loop with a clear error on a NaN or infinite loss.
class NanLossHook final : public Hook {
 public:
  StatusOr<bool> after_step(const StepInfo& step) override;
};

// Writes "step N: loss L" every `every_steps` steps.
class LoggingHook final : public Hook {
 public:
  LoggingHook(std::ostream& out, int64_t every_steps) : out_(&out), every_(every_steps) {}
  StatusOr<bool> after_step(const StepInfo& step) override;

 private:
  std::ostream* out_;
  int64_t every_;
};

// Measures steps per second over each window of `every_steps` steps.
class StepCounterHook final : public Hook {
 public:
  StepCounterHook(std::ostream* out, int64_t every_steps) : out_(out), every_(every_steps) {}
  StatusOr<bool> after_step(const StepInfo& step) override;
  // The rate over the last finished window (0 before one finishes).
  double steps_per_second() const { return rate_; }

 private:
  std::ostream* out_;
  int64_t every_;
  int64_t window_start_step_ = -1;
  std::chrono::steady_clock::time_point window_start_;
  double rate_ = 0;
};

// Restores the latest checkpoint at begin (resuming after a restart),
// saves every `every_steps` steps and/or `every_seconds`, and at the end.
class CheckpointSaverHook final : public Hook {
 public:
  CheckpointSaverHook(std::shared_ptr<CheckpointManager> manager, int64_t every_steps,
                      std::optional<std::chrono::seconds> every_seconds = std::nullopt)
      : manager_(std::move(manager)), every_steps_(every_steps), every_seconds_(every_seconds) {}
  Status begin(Model& model) override;
  StatusOr<bool> after_step(const StepInfo& step) override;
  Status end(Model& model) override;
  int64_t saves() const { return saves_; }
  bool resumed() const { return resumed_; }

 private:
  Status save(Model& model);
  std::shared_ptr<CheckpointManager> manager_;
  int64_t every_steps_;
  std::optional<std::chrono::seconds> every_seconds_;
  std::chrono::steady_clock::time_point last_save_;
  int64_t last_saved_step_ = -1;
  int64_t saves_ = 0;
  bool resumed_ = false;
};

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_HOOKS_H_
