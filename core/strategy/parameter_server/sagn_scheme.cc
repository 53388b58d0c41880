// SAGN, Synchronous Accumulated Gradient Normalization (Hermans 2017): AGN's
// worker half, synchronous SGD's server half. Each worker takes lambda =
// communication_period local SGD steps and pushes the mean of its
// gradients; the ps waits for every active worker and applies the mean of
// those means:
//
//   worker, each step:  x <- x - eta_k * g;  acc <- acc + g
//   worker, every l:    push m_k = acc / l;  x <- w (pull, after the round)
//   server, per round K:  w <- w - (1/|K|) * sum_{k in K} eta_k * m_k
#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

class SagnScheme final : public Scheme {
 public:
  SagnScheme(std::vector<float> rates, int period) : rates_(std::move(rates)), period_(period) {}
  std::string_view name() const override { return "sagn"; }
  int period() const override { return period_; }
  bool synchronous() const override { return true; }

  void local_step(WorkerState& w, std::span<const float> g) const override {
    const float eta = rates_[static_cast<size_t>(w.worker) % rates_.size()];
    for (size_t i = 0; i < w.x.size(); ++i) {
      w.x[i] -= eta * g[i];
      w.acc[i] += g[i];
    }
  }
  std::vector<float> push_payload(WorkerState& w, std::span<const float>) const override {
    return w.mean_accumulated_gradient();
  }
  void apply_push(ShardState& s, std::span<const float> m, const PushInfo& info) const override {
    const float eta = rates_[static_cast<size_t>(info.worker) % rates_.size()];
    if (s.sum.size() != s.value.size()) s.sum.assign(s.value.size(), 0.0f);
    for (size_t i = 0; i < s.sum.size(); ++i) s.sum[i] += eta * m[i];
    ++s.contributions;
  }

 private:
  std::vector<float> rates_;
  int period_;
};

}  // namespace

std::unique_ptr<Scheme> make_sagn_scheme(std::vector<float> worker_rates, int period) {
  return std::make_unique<SagnScheme>(std::move(worker_rates), period);
}

}  // namespace strata::ps
