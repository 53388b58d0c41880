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
#include "core/train/model.h"

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

// What CheckpointSaverHook does when the checkpoint directory is not a
// clean resume.
struct ResumeOptions {
  // When every checkpoint in the directory is damaged, start afresh from
  // step 0 with a warning naming them, instead of failing.
  bool fresh_start_if_all_damaged = false;
  RestoreOptions restore;  // NaN/Inf refused unless restore.allow_non_finite
};

// Restores the latest checkpoint at the first begin (resuming after a
// restart: the step, and the epoch and batch fit() continues from), saves
// every `every_steps` steps and/or `every_seconds`, and at the end.
//
// Refusals at begin, so that a resume is never silently a restart:
//  - every checkpoint in the directory damaged (each named; a FIFO, device
//    or directory in a checkpoint's place counts as damaged), unless
//    ResumeOptions::fresh_start_if_all_damaged;
//  - a checkpoint Model::check_restorable refuses (NaN/Inf, wrong shapes);
//  - workers of a multi-worker job that would restore different steps
//    (resume_agreement.h): every worker fails, naming them;
//  - a ParameterServerStrategy: its variables live on the ps tasks, which
//    this hook can neither save nor restore.
class CheckpointSaverHook final : public Hook {
 public:
  CheckpointSaverHook(std::shared_ptr<CheckpointManager> manager, int64_t every_steps,
                      std::optional<std::chrono::seconds> every_seconds = std::nullopt,
                      ResumeOptions resume = {})
      : manager_(std::move(manager)),
        every_steps_(every_steps),
        every_seconds_(every_seconds),
        resume_(resume) {}
  Status begin(Model& model) override;
  StatusOr<bool> after_step(const StepInfo& step) override;
  Status end(Model& model) override;
  int64_t saves() const { return saves_; }
  bool resumed() const { return resumed_; }
  int64_t restored_step() const { return restored_step_; }  // -1 unless resumed()

 private:
  Status save(Model& model);
  // The checkpoint this worker would resume from (none: a fresh start).
  StatusOr<std::optional<Checkpoint>> find_checkpoint(const Model& model) const;
  std::shared_ptr<CheckpointManager> manager_;
  int64_t every_steps_;
  std::optional<std::chrono::seconds> every_seconds_;
  ResumeOptions resume_;
  std::chrono::steady_clock::time_point last_save_;
  int64_t last_saved_step_ = -1;
  int64_t saves_ = 0;
  int64_t restored_step_ = -1;
  bool begun_ = false;
  bool resumed_ = false;
};

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_HOOKS_H_
