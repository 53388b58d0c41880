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

}  // namespace

StatusOr<FitPosition> Model::take_resume_position(const DistributedDataset& input,
                                                  const FitOptions& options) {
  if (!resume_) return FitPosition{};
  const PendingResume resume = std::move(*resume_);
  resume_.reset();
  if (resume.position) {
    const FitPosition& at = *resume.position;
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
    // A resumed epoch: read past what the checkpoint had trained on.
    bool ended = false;
    for (int64_t b = 0; b < position_.batches_in_epoch && !ended; ++b) {
      STRATA_ASSIGN_OR_RETURN(std::optional<DistributedBatch> skipped, it->next());
      ended = !skipped.has_value();
    }
    while (!ended && !stop &&
           (options.steps_per_epoch < 0 || position_.steps_in_epoch < options.steps_per_epoch)) {
      STRATA_ASSIGN_OR_RETURN(std::optional<DistributedBatch> batch, it->next());
      if (!batch) break;
      ++position_.batches_in_epoch;
      if (batch->global_batch_size == 0) continue;
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
      ++global_step_;
      ++position_.steps_in_epoch;
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
