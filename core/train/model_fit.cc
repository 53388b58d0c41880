// Model::fit: the training loop, its hooks and its progress lines.
#include <chrono>
#include <cstdio>
#include <ostream>

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

StatusOr<History> Model::fit(const DistributedDataset& input, const FitOptions& options) {
  History history;
  for (const auto& hook : options.hooks) STRATA_RETURN_IF_ERROR(hook->begin(*this));
  const bool classification = loss_ == LossKind::kSparseSoftmaxCrossEntropy;
  bool stop = false;
  for (int epoch = 1; epoch <= options.epochs && !stop; ++epoch) {
    STRATA_RETURN_IF_ERROR(loss_metric_->reset_state());
    STRATA_RETURN_IF_ERROR(accuracy_metric_->reset_state());
    const auto start = std::chrono::steady_clock::now();
    EpochLog log;
    log.epoch = epoch;
    auto it = input.make_iterator();
    while (!stop && (options.steps_per_epoch < 0 || log.steps < options.steps_per_epoch)) {
      STRATA_ASSIGN_OR_RETURN(std::optional<DistributedBatch> batch, it->next());
      if (!batch) break;
      if (batch->global_batch_size == 0) continue;
      STRATA_ASSIGN_OR_RETURN(PerReplica<Tensor> shares,
                              strategy_->run(
                                  [&](ReplicaContext& ctx, const Element& mine) {
                                    return train_step(ctx, mine, batch->global_batch_size);
                                  },
                                  batch->values));
      // Each replica's share is its loss sum over the global batch size.
      STRATA_ASSIGN_OR_RETURN(Tensor loss, strategy_->reduce(ReduceOp::kSum, shares));
      ++global_step_;
      ++log.steps;
      StepInfo info{global_step_, epoch, loss.item(), this};
      for (const auto& hook : options.hooks) {
        STRATA_ASSIGN_OR_RETURN(bool wants_stop, hook->after_step(info));
        if (wants_stop) {
          stop = true;
          history.stopped_by_hook = true;
        }
      }
    }
    STRATA_ASSIGN_OR_RETURN(log.loss, loss_metric_->result());
    STRATA_ASSIGN_OR_RETURN(log.accuracy, accuracy_metric_->result());
    log.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.progress != nullptr) print_epoch(*options.progress, log, options.epochs, classification);
    history.epochs.push_back(log);
  }
  for (const auto& hook : options.hooks) STRATA_RETURN_IF_ERROR(hook->end(*this));
  history.global_step = global_step_;
  return history;
}

}  // namespace strata
