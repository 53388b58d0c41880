#include "core/strategy/parameter_server/scheme.h"

#include <algorithm>
#include <string>

namespace strata::ps {

void WorkerState::reset(std::span<const float> center) {
  x.assign(center.begin(), center.end());
  anchor = x;
  acc.assign(x.size(), 0.0f);
  if (velocity.size() != x.size()) velocity.assign(x.size(), 0.0f);
  if (squares.size() != x.size()) squares.assign(x.size(), 0.0f);
  steps_since_push = 0;
}

std::vector<float> WorkerState::mean_accumulated_gradient() const {
  const float inv = 1.0f / static_cast<float>(steps_since_push > 0 ? steps_since_push : 1);
  std::vector<float> mean(acc.size());
  for (size_t i = 0; i < mean.size(); ++i) mean[i] = acc[i] * inv;
  return mean;
}

bool Scheme::complete_round(ShardState& s, int active) const {
  // A round waits for every active worker; once workers finish or die
  // fewer are expected, so a round they left half-full still completes.
  if (s.contributions == 0 || s.contributions < active) return false;
  const float inv = 1.0f / static_cast<float>(s.contributions);
  for (size_t i = 0; i < s.value.size(); ++i) {
    s.value[i] -= s.sum[i] * inv;
    s.sum[i] = 0.0f;
  }
  s.contributions = 0;
  ++s.round;
  ++s.clock;
  return true;
}

namespace {

StatusOr<std::vector<float>> rates_for(const ParameterServerConfig& c, int num_workers) {
  if (c.worker_learning_rates.empty()) {
    return std::vector<float>(static_cast<size_t>(std::max(num_workers, 1)), c.learning_rate);
  }
  if (static_cast<int>(c.worker_learning_rates.size()) != num_workers) {
    return InvalidArgumentError(
        "strategy.worker_learning_rates lists " + std::to_string(c.worker_learning_rates.size()) +
        " rate(s) but the job has " + std::to_string(num_workers) + " worker(s); give one per "
        "worker or leave it out to use learning_rate everywhere");
  }
  return c.worker_learning_rates;
}

}  // namespace

StatusOr<std::unique_ptr<Scheme>> make_scheme(const ParameterServerConfig& c, int num_workers) {
  const bool per_worker = c.scheme == "sync" || c.scheme == "sagn";
  if (!c.worker_learning_rates.empty() && !per_worker) {
    return InvalidArgumentError("strategy.worker_learning_rates applies to the sync and sagn "
                                "schemes only, not " + c.scheme);
  }
  if (c.local_optimizer != "sgd" && c.scheme != "downpour") {
    return InvalidArgumentError("strategy.local_optimizer applies to the downpour scheme only, "
                                "not " + c.scheme);
  }
  const int n = c.communication_period;
  if (c.scheme == "hogwild") return make_hogwild_scheme(c.learning_rate);
  if (c.scheme == "downpour") {
    return make_downpour_scheme(c.learning_rate, n, c.local_optimizer == "adagrad");
  }
  if (c.scheme == "agn") return make_agn_scheme(c.learning_rate, n);
  if (c.scheme == "dynamic_sgd") return make_dynamic_sgd_scheme(c.learning_rate, n);
  if (c.scheme == "aeasgd") return make_aeasgd_scheme(c.learning_rate, n, c.moving_rate);
  if (c.scheme == "aeamsgd") {
    return make_aeamsgd_scheme(c.learning_rate, n, c.moving_rate, c.momentum);
  }
  if (per_worker) {
    STRATA_ASSIGN_OR_RETURN(std::vector<float> rates, rates_for(c, num_workers));
    if (c.scheme == "sync") return make_sync_sgd_scheme(std::move(rates));
    return make_sagn_scheme(std::move(rates), n);
  }
  return InvalidArgumentError("unknown parameter server scheme '" + c.scheme + "'");
}

}  // namespace strata::ps
