#include "core/train/hooks.h"

#include <cmath>
#include <ostream>

#include "core/train/model.h"

namespace strata {

StatusOr<bool> NanLossHook::after_step(const StepInfo& step) {
  if (std::isfinite(step.loss)) return false;
  return InvalidArgumentError("the loss is " + std::string(std::isnan(step.loss) ? "NaN" : "infinite") +
                              " at step " + std::to_string(step.global_step) +
                              " (epoch " + std::to_string(step.epoch) +
                              "): training diverged; lower the learning rate or check the data");
}

StatusOr<bool> LoggingHook::after_step(const StepInfo& step) {
  if (every_ > 0 && step.global_step % every_ == 0) {
    *out_ << "step " << step.global_step << ": loss " << step.loss << "\n";
  }
  return false;
}

StatusOr<bool> StepCounterHook::after_step(const StepInfo& step) {
  const auto now = std::chrono::steady_clock::now();
  if (window_start_step_ < 0) {
    window_start_step_ = step.global_step;
    window_start_ = now;
    return false;
  }
  if (step.global_step - window_start_step_ >= every_) {
    const double seconds = std::chrono::duration<double>(now - window_start_).count();
    rate_ = seconds > 0 ? static_cast<double>(step.global_step - window_start_step_) / seconds : 0;
    if (out_ != nullptr) *out_ << "step " << step.global_step << ": " << rate_ << " steps/s\n";
    window_start_step_ = step.global_step;
    window_start_ = now;
  }
  return false;
}

Status CheckpointSaverHook::begin(Model& model) {
  last_save_ = std::chrono::steady_clock::now();
  // Restore once: a second begin (the same hook in another fit) would undo
  // the training done since.
  if (resumed_ || !manager_->latest()) return Status();
  STRATA_ASSIGN_OR_RETURN(Checkpoint checkpoint, manager_->restore_latest());
  STRATA_RETURN_IF_ERROR(model.restore(checkpoint));
  last_saved_step_ = checkpoint.step;
  resumed_ = true;
  return Status();
}

Status CheckpointSaverHook::save(Model& model) {
  // Only the chief writes: the workers' variables are identical, and
  // several writers of one directory would race (as in TF).
  // Every worker builds the checkpoint: reading distributed values may be a
  // collective that needs all of them.
  auto checkpoint = model.to_checkpoint();
  if (model.strategy().is_chief()) STRATA_RETURN_IF_ERROR(manager_->save(checkpoint).status());
  last_saved_step_ = model.global_step();
  last_save_ = std::chrono::steady_clock::now();
  ++saves_;
  return Status();
}

StatusOr<bool> CheckpointSaverHook::after_step(const StepInfo& step) {
  const bool by_steps = every_steps_ > 0 && step.global_step % every_steps_ == 0;
  const bool by_time =
      every_seconds_ && std::chrono::steady_clock::now() - last_save_ >= *every_seconds_;
  if (by_steps || by_time) STRATA_RETURN_IF_ERROR(save(*step.model));
  return false;
}

Status CheckpointSaverHook::end(Model& model) {
  if (model.global_step() == last_saved_step_) return Status();
  return save(model);
}

}  // namespace strata
