// Model::fit: the training loop, its hooks, its progress lines, and
// resuming a restored checkpoint's epoch where it stood.
#include <chrono>
#include <cstdio>
#include <limits>
#include <ostream>

#include "core/common/logging.h"
#include "core/train/hooks.h"
#include "core/train/model.h"

namespace strata {

StatusOr<History> Model::fit(const Dataset& global_batches, const FitOptions& options) {
  STRATA_ASSIGN_OR_RETURN(DistributedDataset input, distribute_dataset(*strategy_, global_batches));
  return fit(input, options);
}

namespace {

void print_epoch(std::ostream& out, const EpochLog& log, int epochs, bool classification) {
  char line[160];
  std::snprintf(line, sizeof line, "epoch %d/%d: %lld steps, loss %.4f", log.epoch, epochs,
                static_cast<long long>(log.steps), static_cast<double>(log.loss));
  out << line;
  if (classification) {
    std::snprintf(line, sizeof line, ", accuracy %.4f", static_cast<double>(log.accuracy));
    out << line;
  }
  std::snprintf(line, sizeof line, " (%.2f s)\n", log.seconds);
  out << line << std::flush;
}

// A position a fit over `input` with `options` could have written. One
// past its epoch's end would have the resumed fit read past it, and on an
// endless (repeat()ed) input that read would never end.
Status check_position_fits(const FitPosition& at, int64_t global_step, const FitOptions& options,
                           const DistributedDataset& input, const std::string& source) {
  const std::string epoch = "epoch " + std::to_string(at.epoch + 1);
  if (at.steps_in_epoch > global_step) {
    return DataLossError(source + ": metadata '" + kFitStepsInEpochKey + "' = " +
                         std::to_string(at.steps_in_epoch) + " steps of " + epoch +
                         ", more than the checkpoint's whole fit ran (its step is " +
                         std::to_string(global_step) + ")");
  }
  if (options.steps_per_epoch >= 0 && at.steps_in_epoch > options.steps_per_epoch) {
    return InvalidArgumentError(
        source + ": metadata '" + kFitStepsInEpochKey + "' = " +
        std::to_string(at.steps_in_epoch) + " steps of " + epoch + ", more than this fit's " +
        "steps_per_epoch of " + std::to_string(options.steps_per_epoch) + "; resume with the "
        "steps_per_epoch the checkpoint was written with");
  }
  const int64_t per_pass = input.steps_per_pass();
  if (per_pass >= 0 && at.batches_in_epoch > per_pass) {
    return InvalidArgumentError(
        source + ": metadata '" + kFitBatchesInEpochKey + "' = " +
        std::to_string(at.batches_in_epoch) + " batches read in " + epoch + ", but one pass " +
        "of this input has " + std::to_string(per_pass) + "; it is not the input the "
        "checkpoint was written with");
  }
  return Status();
}

}  // namespace

StatusOr<FitPosition> Model::take_resume_position(const DistributedDataset& input,
                                                  const FitOptions& options) {
  resumed_from_.clear();
  if (!resume_) return FitPosition{};
  const PendingResume resume = std::move(*resume_);
  resume_.reset();
  resumed_from_ = resume.source;
  if (resume.position) {
    const FitPosition& at = *resume.position;
    STRATA_RETURN_IF_ERROR(check_position_fits(at, global_step_, options, input, resume.source));
    if (at.data_state) {
      if (Status s = input.restore_iteration_state(*at.data_state); !s.ok()) {
        return s.prefixed("resuming from " + resume.source + ": the input is not the pipeline "
                          "the checkpoint was written with");
      }
    }
    STRATA_LOG_INFO("resuming from {}: epoch {}, after {} of its steps", resume.source,
                    at.epoch + 1, at.steps_in_epoch);
    return at;
  }
  // A checkpoint from before positions were saved: only the step is known.
  const int64_t per_epoch =
      options.steps_per_epoch > 0 ? options.steps_per_epoch : input.steps_per_pass();
  FitPosition at;
  if (per_epoch > 0) {
    at.epoch = global_step_ / per_epoch;
    STRATA_LOG_WARN("{} records no position in its data (it predates resumable fits); resuming "
                    "at the start of epoch {}, the one its step fell in: {} step(s) of that "
                    "epoch run again, in the input's current shuffle order",
                    resume.source, at.epoch + 1, global_step_ % per_epoch);
  } else {
    STRATA_LOG_WARN("{} records no position in its data (it predates resumable fits) and the "
                    "input's steps per epoch are unknown; starting again at epoch 1 from its "
                    "step", resume.source);
  }
  return at;
}

Status Model::run_epoch(const DistributedDataset& input, const FitOptions& options, bool& stop,
                        History& history) {
  STRATA_RETURN_IF_ERROR(loss_metric_->reset_state());
  STRATA_RETURN_IF_ERROR(accuracy_metric_->reset_state());
  const auto start = std::chrono::steady_clock::now();
  const int epoch = static_cast<int>(position_.epoch + 1);  // fit's loop keeps it <= epochs
  int64_t trained = 0;
  {
    auto it = input.make_iterator();
    // A resumed epoch: read past what the checkpoint had trained on. Those
    // batches hold exactly its steps: one more batch with rows means the
    // position is not this input's, and on an endless input the count of
    // batches alone (forged, say) could keep this loop reading for ever.
    bool ended = false;
    int64_t with_rows = 0;
    for (int64_t b = 0; b < position_.batches_in_epoch && !ended; ++b) {
      STRATA_ASSIGN_OR_RETURN(std::optional<DistributedBatch> skipped, it->next());
      ended = !skipped.has_value();
      if (ended || skipped->global_batch_size == 0) continue;
      if (++with_rows > position_.steps_in_epoch) {
        return InvalidArgumentError(
            resumed_from_ + ": metadata '" + kFitBatchesInEpochKey + "' = " +
            std::to_string(position_.batches_in_epoch) + " batches read in epoch " +
            std::to_string(epoch) + " for its " + std::to_string(position_.steps_in_epoch) +
            " step(s), but batch " + std::to_string(b + 1) + " of this input is already step " +
            std::to_string(with_rows) + "; it is not the input the checkpoint was written with");
      }
    }
    while (!ended && !stop &&
           (options.steps_per_epoch < 0 || position_.steps_in_epoch < options.steps_per_epoch)) {
      STRATA_ASSIGN_OR_RETURN(std::optional<DistributedBatch> batch, it->next());
      if (!batch) break;
      if (batch->global_batch_size == 0) {
        ++position_.batches_in_epoch;
        continue;
      }
      if (global_step_ == std::numeric_limits<int64_t>::max()) {
        return FailedPreconditionError("the global step is " + std::to_string(global_step_) +
                                       ", the largest int64: one more step would overflow it");
      }
      STRATA_ASSIGN_OR_RETURN(PerReplica<Tensor> shares,
                              strategy_->run(
                                  [&](ReplicaContext& ctx, const Element& mine) {
                                    return train_step(ctx, mine, batch->global_batch_size);
                                  },
                                  batch->values));
      // Each replica's share is its loss sum over the global batch size.
      STRATA_ASSIGN_OR_RETURN(Tensor loss, strategy_->reduce(ReduceOp::kSum, shares));
      // Counted once trained: a step that failed is read again on resuming.
      ++global_step_;
      ++position_.steps_in_epoch;
      ++position_.batches_in_epoch;
      ++trained;
      StepInfo info{global_step_, epoch, loss.item(), this};
      for (const auto& hook : options.hooks) {
        STRATA_ASSIGN_OR_RETURN(bool wants_stop, hook->after_step(info));
        if (wants_stop) {
          stop = true;
          history.stopped_by_hook = true;
        }
      }
    }
  }  // the iterator (and any prefetch thread) is gone: the input's state is final
  EpochLog log;
  log.epoch = epoch;
  log.steps = position_.steps_in_epoch;
  if (!stop) position_ = FitPosition{position_.epoch + 1, 0, 0, input.iteration_state()};
  // An epoch the checkpoint had already finished trains nothing: no line.
  if (trained == 0 && log.steps > 0) return Status();
  STRATA_ASSIGN_OR_RETURN(log.loss, loss_metric_->result());
  STRATA_ASSIGN_OR_RETURN(log.accuracy, accuracy_metric_->result());
  log.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.progress != nullptr) {
    print_epoch(*options.progress, log, options.epochs,
                loss_ == LossKind::kSparseSoftmaxCrossEntropy);
  }
  history.epochs.push_back(log);
  return Status();
}

StatusOr<History> Model::fit(const DistributedDataset& input, const FitOptions& options) {
  History history;
  for (const auto& hook : options.hooks) STRATA_RETURN_IF_ERROR(hook->begin(*this));
  STRATA_ASSIGN_OR_RETURN(position_, take_resume_position(input, options));
  bool stop = false;
  // int64_t: options.epochs may be INT_MAX (run until a hook stops).
  while (position_.epoch < options.epochs && !stop) {
    // A new epoch, or a resumed one whose checkpoint had not read a batch
    // yet: its state is the input's now (restored above when known).
    if (position_.batches_in_epoch == 0) {
      position_.steps_in_epoch = 0;
      position_.data_state = input.iteration_state();
    }
    STRATA_RETURN_IF_ERROR(run_epoch(input, options, stop, history));
  }
  for (const auto& hook : options.hooks) STRATA_RETURN_IF_ERROR(hook->end(*this));
  history.global_step = global_step_;
  return history;
}

}  // namespace strata
