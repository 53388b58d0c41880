// Scheme: one training scheme of the seeds' examples guide (HogWild,
// DOWNPOUR, AGN, ...), both halves of it. The worker half says what a
// worker does with each local gradient and what it sends to the parameter
// servers every `period()` steps; the server half says how a ps applies what
// it receives to the center variable. Each scheme is one class in its own
// file with its update rule written above it; the math is pure (flat float
// vectors, no I/O), so tests check the rules numerically.
//
// The model is one flat float vector (every variable, in order); a shard is
// a range of it living on one ps task, and the server half runs per shard.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_SCHEME_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_SCHEME_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/common/status.h"
#include "core/config/config.h"

namespace strata::ps {

// A worker's own state, every vector the size of the whole model.
struct WorkerState {
  std::vector<float> x;         // the local model the worker computes with
  std::vector<float> anchor;    // x when it last came from the ps
  std::vector<float> acc;       // gradients summed since the last push
  std::vector<float> velocity;  // momentum (aeamsgd)
  std::vector<float> squares;   // adagrad accumulator (downpour)
  int steps_since_push = 0;
  int worker = 0;               // this worker's index (per-worker rates)
  void reset(std::span<const float> center);
  // acc / steps_since_push: the mean gradient of the window just ended (a
  // last, shorter window divides by its own length). AGN and SAGN push it.
  std::vector<float> mean_accumulated_gradient() const;
};

// What a push carries besides its payload.
struct PushInfo {
  int worker = 0;
  int64_t clock_seen = 0;  // the shard's clock when this worker last pulled it
};

// One shard of the center variable and its bookkeeping on a ps.
struct ShardState {
  std::vector<float> value;
  std::vector<float> sum;    // synchronous schemes: the round's contributions
  int contributions = 0;     // pushes in the current round
  int64_t round = 0;         // completed rounds (synchronous schemes)
  int64_t clock = 0;         // pushes applied (asynchronous) or rounds (sync)
};

class Scheme {
 public:
  virtual ~Scheme() = default;
  virtual std::string_view name() const = 0;

  // ---- worker half
  // Local steps per exchange with the ps.
  virtual int period() const { return 1; }
  // Every local step: what the worker does with its gradient g of x.
  virtual void local_step(WorkerState& w, std::span<const float> g) const = 0;
  // Elastic averaging needs the current center to compute its push.
  virtual bool pulls_before_push() const { return false; }
  // The payload of the push; `center` is the fresh center when
  // pulls_before_push(), else empty. May change w (elastic: x moves too).
  virtual std::vector<float> push_payload(WorkerState& w, std::span<const float> center) const = 0;
  // After the push the worker's x becomes the center (all but elastic).
  virtual bool pulls_after_push() const { return true; }

  // ---- server half
  // Synchronous schemes apply once per round, when every active worker
  // has pushed (complete_round); asynchronous ones apply every push.
  virtual bool synchronous() const { return false; }
  virtual void apply_push(ShardState& s, std::span<const float> payload,
                          const PushInfo& info) const = 0;
  // Synchronous schemes: applies the round if `active` workers pushed (or
  // any did and none is active any more). Returns whether it did.
  bool complete_round(ShardState& s, int active) const;
};

// The scheme `config.scheme` names, with its parameters checked against
// the number of workers (per-worker learning rates).
StatusOr<std::unique_ptr<Scheme>> make_scheme(const ParameterServerConfig& config,
                                              int num_workers);

// The factories behind make_scheme, one per scheme file.
std::unique_ptr<Scheme> make_hogwild_scheme(float learning_rate);
std::unique_ptr<Scheme> make_downpour_scheme(float learning_rate, int period, bool adagrad);
std::unique_ptr<Scheme> make_agn_scheme(float learning_rate, int period);
std::unique_ptr<Scheme> make_sagn_scheme(std::vector<float> worker_rates, int period);
std::unique_ptr<Scheme> make_sync_sgd_scheme(std::vector<float> worker_rates);
std::unique_ptr<Scheme> make_dynamic_sgd_scheme(float learning_rate, int period);
std::unique_ptr<Scheme> make_aeasgd_scheme(float learning_rate, int period, float alpha);
std::unique_ptr<Scheme> make_aeamsgd_scheme(float learning_rate, int period, float alpha,
                                            float momentum);

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_SCHEME_H_
