// AEAMSGD, Asynchronous Elastic Averaging Momentum SGD (Zhang et al. 2015,
// EAMSGD): AEASGD whose local steps use Nesterov momentum delta. The
// look-ahead gradient g(x + delta*v) is taken in its usual rewritten form,
// the gradient at x itself, so one forward/backward per step suffices:
//
//   worker, each step:  v <- delta * v - eta * g;  x <- x + delta * v - eta * g
//   worker, every tau:  w <- pull;  e = alpha * (x - w);  x <- x - e;  push e
//   server, per push:   w <- w + e
#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

class AeamsgdScheme final : public Scheme {
 public:
  AeamsgdScheme(float eta, int period, float alpha, float delta)
      : eta_(eta), period_(period), alpha_(alpha), delta_(delta) {}
  std::string_view name() const override { return "aeamsgd"; }
  int period() const override { return period_; }
  bool pulls_before_push() const override { return true; }
  bool pulls_after_push() const override { return false; }

  void local_step(WorkerState& w, std::span<const float> g) const override {
    for (size_t i = 0; i < w.x.size(); ++i) {
      w.velocity[i] = delta_ * w.velocity[i] - eta_ * g[i];
      w.x[i] += delta_ * w.velocity[i] - eta_ * g[i];
    }
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
  float delta_;
};

}  // namespace

std::unique_ptr<Scheme> make_aeamsgd_scheme(float learning_rate, int period, float alpha,
                                            float momentum) {
  return std::make_unique<AeamsgdScheme>(learning_rate, period, alpha, momentum);
}

}  // namespace strata::ps
