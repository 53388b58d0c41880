// AGN, Accumulated Gradient Normalization (Hermans 2017). A worker takes
// lambda = communication_period local SGD steps, summing its gradients,
// and pushes their mean, so a longer window does not mean a bigger step on
// the center:
//
//   worker, each step:  x <- x - eta * g;  acc <- acc + g
//   worker, every l:    push acc / l;  x <- w (pull)
//   server, per push:   w <- w - eta * (acc / l)
#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

class AgnScheme final : public Scheme {
 public:
  AgnScheme(float eta, int period) : eta_(eta), period_(period) {}
  std::string_view name() const override { return "agn"; }
  int period() const override { return period_; }

  void local_step(WorkerState& w, std::span<const float> g) const override {
    for (size_t i = 0; i < w.x.size(); ++i) {
      w.x[i] -= eta_ * g[i];
      w.acc[i] += g[i];
    }
  }
  std::vector<float> push_payload(WorkerState& w, std::span<const float>) const override {
    return w.mean_accumulated_gradient();
  }
  void apply_push(ShardState& s, std::span<const float> mean, const PushInfo&) const override {
    for (size_t i = 0; i < s.value.size(); ++i) s.value[i] -= eta_ * mean[i];
    ++s.clock;
  }

 private:
  float eta_;
  int period_;
};

}  // namespace

std::unique_ptr<Scheme> make_agn_scheme(float learning_rate, int period) {
  return std::make_unique<AgnScheme>(learning_rate, period);
}

}  // namespace strata::ps
