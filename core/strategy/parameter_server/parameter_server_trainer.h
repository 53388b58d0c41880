// ParameterServerTrainer: a worker's training loop under a parameter
// server scheme. It asks the coordinator for steps, runs each on its own
// copy of the network (forward, loss, backward), lets the scheme's worker
// half turn the gradient into local updates and pushes, and reports steps
// done only once their effect has reached the ps (so the steps of a worker
// that dies mid-window are re-queued, not lost). At the end the network
// holds the center variable, the model the job trained.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_TRAINER_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_TRAINER_H_

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <vector>

#include "core/data/dataset.h"
#include "core/strategy/parameter_server/ps_worker_client.h"
#include "core/strategy/parameter_server/scheme.h"
#include "core/train/losses.h"
#include "core/train/mlp.h"

namespace strata::ps {

enum class TrainLoss { kMeanSquaredError, kSparseSoftmaxCrossEntropy };

struct TrainerResult {
  int64_t steps = 0;        // steps this worker ran
  int64_t pushes = 0;
  float mean_loss = 0;      // over this worker's steps
  float last_epoch_loss = 0;  // over its steps of the last epoch it saw
  double seconds = 0;
};

class ParameterServerTrainer {
 public:
  // `patience`: how long a worker told to wait (others hold the last
  // steps) keeps asking before it gives up.
  ParameterServerTrainer(PsWorkerClient& client, const Scheme& scheme,
                         std::chrono::nanoseconds patience);

  // epochs[e][b]: batch b of epoch e, {features, labels}; the job's steps
  // are every batch of every epoch, step s = epochs[s / B][s % B].
  StatusOr<TrainerResult> fit(Mlp& network, TrainLoss loss,
                              const std::vector<std::vector<Element>>& epochs,
                              std::ostream* progress = nullptr);

  // Every batch of `epochs` passes over `global_batches`, in order.
  static StatusOr<std::vector<std::vector<Element>>> materialise(const Dataset& global_batches,
                                                                 int epochs);

 private:
  StatusOr<float> compute_gradient(Mlp& network, TrainLoss loss, const Element& batch,
                                   std::vector<float>& grad);
  Status exchange(std::vector<int64_t>& pending, int64_t* pushes);

  PsWorkerClient& client_;
  const Scheme& scheme_;
  std::chrono::nanoseconds patience_;
  WorkerState state_;
};

// The network's parameters as one flat vector, and back.
std::vector<float> flatten_parameters(Mlp& network);
void unflatten_parameters(std::span<const float> flat, Mlp& network);
std::vector<float> flatten_gradients(Mlp& network);

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_PARAMETER_SERVER_TRAINER_H_
