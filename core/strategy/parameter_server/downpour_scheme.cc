// DOWNPOUR (Dean et al. 2012, "Large Scale Distributed Deep Networks").
// Each worker trains its own copy x for n = communication_period steps with
// a local optimizer, then pushes the accumulated change and fetches the
// center:
//
//   worker, each step:  adagrad:  a <- a + g*g;  x <- x - eta * g / (sqrt(a) + 1e-7)
//                       sgd:      x <- x - eta * g     (the guide's DOWNPOUR-Easy)
//   worker, every n:    push d = x - x_pulled;  x <- w (pull)
//   server, per push:   w <- w + d
#include <cmath>

#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

class DownpourScheme final : public Scheme {
 public:
  DownpourScheme(float eta, int period, bool adagrad)
      : eta_(eta), period_(period), adagrad_(adagrad) {}
  std::string_view name() const override { return "downpour"; }
  int period() const override { return period_; }

  void local_step(WorkerState& w, std::span<const float> g) const override {
    for (size_t i = 0; i < w.x.size(); ++i) {
      if (adagrad_) {
        w.squares[i] += g[i] * g[i];
        w.x[i] -= eta_ * g[i] / (std::sqrt(w.squares[i]) + 1e-7f);
      } else {
        w.x[i] -= eta_ * g[i];
      }
    }
  }
  std::vector<float> push_payload(WorkerState& w, std::span<const float>) const override {
    std::vector<float> d(w.x.size());
    for (size_t i = 0; i < d.size(); ++i) d[i] = w.x[i] - w.anchor[i];
    return d;
  }
  void apply_push(ShardState& s, std::span<const float> d, const PushInfo&) const override {
    for (size_t i = 0; i < s.value.size(); ++i) s.value[i] += d[i];
    ++s.clock;
  }

 private:
  float eta_;
  int period_;
  bool adagrad_;
};

}  // namespace

std::unique_ptr<Scheme> make_downpour_scheme(float learning_rate, int period, bool adagrad) {
  return std::make_unique<DownpourScheme>(learning_rate, period, adagrad);
}

}  // namespace strata::ps
