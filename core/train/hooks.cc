#include "core/train/hooks.h"

#include <cmath>
#include <ostream>

#include "core/common/logging.h"
#include "core/train/model.h"
#include "core/train/resume_agreement.h"

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

StatusOr<std::optional<Checkpoint>> CheckpointSaverHook::find_checkpoint(
    const Model& model) const {
  StatusOr<Checkpoint> found = manager_->restore_latest();
  if (found.ok()) {
    STRATA_RETURN_IF_ERROR(model.check_restorable(*found, resume_.restore));
    return std::optional<Checkpoint>(*std::move(found));
  }
  const std::string dir = manager_->directory().string();
  if (found.status().code() == Code::kNotFound) {
    STRATA_LOG_INFO("no checkpoint in '{}': training starts at step 0", dir);
    return std::optional<Checkpoint>();
  }
  if (found.status().code() == Code::kDataLoss && resume_.fresh_start_if_all_damaged) {
    STRATA_LOG_WARN("{}\nstarting afresh from step 0, as asked (the damaged files stay for "
                    "inspection; the next save replaces their steps)",
                    found.status().message());
    return std::optional<Checkpoint>();
  }
  if (found.status().code() == Code::kDataLoss) {
    return DataLossError(found.status().message() +
                         "\nNot resuming, and not restarting from step 0 either, which would "
                         "discard the training they hold: repair or remove them, or allow a "
                         "fresh start (ResumeOptions::fresh_start_if_all_damaged; train_digits "
                         "--fresh-start-if-damaged)");
  }
  return found.status();
}

Status CheckpointSaverHook::begin(Model& model) {
  last_save_ = std::chrono::steady_clock::now();
  // Restore once: a second begin (the same hook in another fit) would undo
  // the training done since.
  if (begun_) return Status();
  begun_ = true;
  if (model.strategy().kind() == "parameter_server") {
    return FailedPreconditionError(
        "CheckpointSaverHook cannot checkpoint '" + manager_->directory().string() +
        "' under ParameterServerStrategy: the variables live in the ps tasks' shards, which "
        "this hook neither saves nor restores");
  }
  StatusOr<std::optional<Checkpoint>> found = find_checkpoint(model);
  ResumeChoice mine;
  if (!found.ok()) {
    mine.kind = ResumeChoice::Kind::kError;
  } else if (found->has_value()) {
    mine = {ResumeChoice::Kind::kCheckpoint, (*found)->step, (*found)->checksum};
  }
  // Every worker takes part even after its own failure, so the others
  // fail at once instead of waiting in the first collective of training.
  const Status agreed = agree_on_resume(model.strategy(), mine);
  if (!found.ok()) return found.status();
  STRATA_RETURN_IF_ERROR(agreed);
  if (!found->has_value()) return Status();
  const Checkpoint& checkpoint = **found;
  RestoreOptions restore = resume_.restore;
  restore.continue_fit = true;  // what resuming means: BackupAndRestore, not load_weights
  STRATA_RETURN_IF_ERROR(model.restore(checkpoint, restore));
  last_saved_step_ = checkpoint.step;
  restored_step_ = checkpoint.step;
  resumed_ = true;
  return Status();
}

Status CheckpointSaverHook::save(Model& model) {
  // Only the chief writes: the workers' variables are identical, and
  // several writers of one directory would race (as in TF).
  // Every worker builds the checkpoint: reading distributed values may be a
  // collective that needs all of them.
  STRATA_ASSIGN_OR_RETURN(Checkpoint checkpoint, model.to_checkpoint());
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
