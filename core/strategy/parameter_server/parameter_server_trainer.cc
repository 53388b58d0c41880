#include "core/strategy/parameter_server/parameter_server_trainer.h"

#include <ostream>
#include <thread>

namespace strata::ps {

std::vector<float> flatten_parameters(Mlp& network) {
  std::vector<float> flat;
  for (Tensor* t : network.parameters()) flat.insert(flat.end(), t->data(), t->data() + t->size());
  return flat;
}

std::vector<float> flatten_gradients(Mlp& network) {
  std::vector<float> flat;
  for (Tensor* t : network.gradients()) flat.insert(flat.end(), t->data(), t->data() + t->size());
  return flat;
}

void unflatten_parameters(std::span<const float> flat, Mlp& network) {
  size_t at = 0;
  for (Tensor* t : network.parameters()) {
    std::copy_n(flat.begin() + static_cast<ptrdiff_t>(at), t->size(), t->data());
    at += static_cast<size_t>(t->size());
  }
}

ParameterServerTrainer::ParameterServerTrainer(PsWorkerClient& client, const Scheme& scheme,
                                               std::chrono::nanoseconds patience)
    : client_(client), scheme_(scheme), patience_(patience) {}

StatusOr<std::vector<std::vector<Element>>> ParameterServerTrainer::materialise(
    const Dataset& global_batches, int epochs) {
  std::vector<std::vector<Element>> out;
  for (int e = 0; e < epochs; ++e) {
    // One iteration per epoch, in order: a shuffle reshuffles per iteration,
    // so every worker sees the same epochs.
    auto it = global_batches.make_iterator();
    std::vector<Element> batches;
    for (;;) {
      STRATA_ASSIGN_OR_RETURN(std::optional<Element> batch, it->next());
      if (!batch) break;
      batches.push_back(std::move(*batch));
    }
    if (batches.empty()) return InvalidArgumentError("the training dataset is empty");
    out.push_back(std::move(batches));
  }
  return out;
}

StatusOr<float> ParameterServerTrainer::compute_gradient(Mlp& network, TrainLoss loss,
                                                         const Element& batch,
                                                         std::vector<float>& grad) {
  if (batch.size() < 2) return InvalidArgumentError("training batches need {features, labels}");
  unflatten_parameters(state_.x, network);
  STRATA_ASSIGN_OR_RETURN(Tensor out, network.forward(batch[0]));
  STRATA_ASSIGN_OR_RETURN(PerExampleLoss l, loss == TrainLoss::kMeanSquaredError
                                                ? mean_squared_error(out, batch[1])
                                                : sparse_softmax_cross_entropy(out, batch[1]));
  const int64_t rows = out.dim(0);
  STRATA_ASSIGN_OR_RETURN(Tensor grad_out, average_loss_gradient(l.gradient, rows));
  STRATA_RETURN_IF_ERROR(network.backward(grad_out).status());
  grad = flatten_gradients(network);
  STRATA_ASSIGN_OR_RETURN(Tensor mean, compute_average_loss(l.loss, rows));
  return mean.item();
}

Status ParameterServerTrainer::exchange(std::vector<int64_t>& pending, int64_t* pushes) {
  std::vector<float> center;
  if (scheme_.pulls_before_push()) {
    STRATA_ASSIGN_OR_RETURN(center, client_.pull());
  }
  std::vector<float> payload = scheme_.push_payload(state_, center);
  STRATA_RETURN_IF_ERROR(client_.push(payload));
  ++*pushes;
  if (scheme_.pulls_after_push()) {
    STRATA_ASSIGN_OR_RETURN(std::vector<float> fresh, client_.pull(scheme_.synchronous()));
    state_.reset(fresh);
  } else {
    std::fill(state_.acc.begin(), state_.acc.end(), 0.0f);
    state_.steps_since_push = 0;
  }
  for (int64_t step : pending) STRATA_RETURN_IF_ERROR(client_.step_done(step));
  pending.clear();
  return Status::Ok();
}

StatusOr<TrainerResult> ParameterServerTrainer::fit(Mlp& network, TrainLoss loss,
                                                    const std::vector<std::vector<Element>>& epochs,
                                                    std::ostream* progress) {
  if (epochs.empty()) return InvalidArgumentError("nothing to train on: no epochs");
  const auto start = Clock::now();
  const int64_t per_epoch = static_cast<int64_t>(epochs.front().size());
  const int64_t total = per_epoch * static_cast<int64_t>(epochs.size());
  STRATA_RETURN_IF_ERROR(client_.init(flatten_parameters(network)));
  STRATA_ASSIGN_OR_RETURN(std::vector<float> center, client_.pull());
  state_.worker = client_.worker();
  state_.reset(center);

  TrainerResult result;
  std::vector<float> grad;
  std::vector<int64_t> pending;
  double loss_sum = 0, epoch_sum = 0;
  int64_t epoch_steps = 0, last_epoch = -1;
  bool idle = false;
  Deadline give_up = Clock::now() + patience_;
  for (;;) {
    STRATA_RETURN_IF_ERROR(client_.health());
    STRATA_ASSIGN_OR_RETURN(int64_t step, client_.next_step(total));
    if (step == kFinished) break;
    if (step == kWait) {
      // Flush a half-full window first: its steps are what others wait on.
      if (!pending.empty()) STRATA_RETURN_IF_ERROR(exchange(pending, &result.pushes));
      if (!idle) STRATA_RETURN_IF_ERROR(client_.set_idle(true));
      idle = true;
      if (Clock::now() >= give_up) {
        return TimedOutError("worker " + std::to_string(client_.worker()) +
                             " waited too long for the last steps held by other workers");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (step < 0 || step >= total) {
      return DataLossError("the coordinator sent step " + std::to_string(step) + " of " +
                           std::to_string(total));
    }
    if (idle) STRATA_RETURN_IF_ERROR(client_.set_idle(false));
    idle = false;
    give_up = Clock::now() + patience_;
    const Element& batch = epochs[static_cast<size_t>(step / per_epoch)]
                                 [static_cast<size_t>(step % per_epoch)];
    STRATA_ASSIGN_OR_RETURN(float step_loss, compute_gradient(network, loss, batch, grad));
    scheme_.local_step(state_, grad);
    ++state_.steps_since_push;
    pending.push_back(step);
    ++result.steps;
    loss_sum += static_cast<double>(step_loss);
    if (step / per_epoch != last_epoch) {
      if (last_epoch >= 0 && progress != nullptr && epoch_steps > 0) {
        *progress << "worker " << client_.worker() << ": epoch " << last_epoch + 1 << ": "
                  << epoch_steps << " steps here, loss " << epoch_sum / epoch_steps << "\n";
      }
      last_epoch = step / per_epoch;
      epoch_sum = 0;
      epoch_steps = 0;
    }
    epoch_sum += static_cast<double>(step_loss);
    ++epoch_steps;
    if (state_.steps_since_push >= scheme_.period()) {
      STRATA_RETURN_IF_ERROR(exchange(pending, &result.pushes));
    }
  }
  if (!pending.empty()) STRATA_RETURN_IF_ERROR(exchange(pending, &result.pushes));
  STRATA_ASSIGN_OR_RETURN(std::vector<float> final_center, client_.pull());
  unflatten_parameters(final_center, network);
  STRATA_RETURN_IF_ERROR(client_.done());
  result.mean_loss = result.steps > 0 ? static_cast<float>(loss_sum / result.steps) : 0.0f;
  result.last_epoch_loss = epoch_steps > 0 ? static_cast<float>(epoch_sum / epoch_steps) : 0.0f;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace strata::ps
