// AEASGD, Asynchronous Elastic Averaging SGD (Zhang, Choromanska, LeCun
// 2015). Workers explore on their own copies x_k and are pulled towards the
// center w by an elastic force; the center moves towards them by the same
// amount. Every tau = communication_period steps:
//
//   worker, each step:  x <- x - eta * g
//   worker, every tau:  w <- pull;  e = alpha * (x - w);  x <- x - e;  push e
//   server, per push:   w <- w + e
//
// The worker keeps its own x afterwards (no pull-and-replace): that is the
// "elastic" part. alpha is moving_rate.
#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

class AeasgdScheme final : public Scheme {
 public:
  AeasgdScheme(float eta, int period, float alpha) : eta_(eta), period_(period), alpha_(alpha) {}
  std::string_view name() const override { return "aeasgd"; }
  int period() const override { return period_; }
  bool pulls_before_push() const override { return true; }
  bool pulls_after_push() const override { return false; }

  void local_step(WorkerState& w, std::span<const float> g) const override {
    for (size_t i = 0; i < w.x.size(); ++i) w.x[i] -= eta_ * g[i];
  }
  std::vector<float> push_payload(WorkerState& w, std::span<const float> center) const override {
    std::vector<float> e(w.x.size());
    for (size_t i = 0; i < e.size(); ++i) {
      e[i] = alpha_ * (w.x[i] - center[i]);
      w.x[i] -= e[i];
    }
    return e;
  }
  void apply_push(ShardState& s, std::span<const float> e, const PushInfo&) const override {
    for (size_t i = 0; i < s.value.size(); ++i) s.value[i] += e[i];
    ++s.clock;
  }

 private:
  float eta_;
  int period_;
  float alpha_;
};

}  // namespace

std::unique_ptr<Scheme> make_aeasgd_scheme(float learning_rate, int period, float alpha) {
  return std::make_unique<AeasgdScheme>(learning_rate, period, alpha);
}

}  // namespace strata::ps
