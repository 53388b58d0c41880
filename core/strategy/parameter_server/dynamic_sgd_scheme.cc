// Dynamic SGD (DynSGD, Jiang et al. 2017, "Heterogeneity-aware Distributed
// Parameter Servers"): asynchronous, but an update computed on an old
// center counts for less. Each shard keeps a clock (pushes applied); a
// worker's push says which clock it last pulled, and the staleness is how
// many updates landed since:
//
//   worker, each step:  x <- x - eta * g
//   worker, every n:    push d = x - x_pulled (with the clock c it pulled);  x <- w
//   server, per push:   tau = clock - c;  w <- w + d / (tau + 1);  clock <- clock + 1
#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

class DynamicSgdScheme final : public Scheme {
 public:
  DynamicSgdScheme(float eta, int period) : eta_(eta), period_(period) {}
  std::string_view name() const override { return "dynamic_sgd"; }
  int period() const override { return period_; }

  void local_step(WorkerState& w, std::span<const float> g) const override {
    for (size_t i = 0; i < w.x.size(); ++i) w.x[i] -= eta_ * g[i];
  }
  std::vector<float> push_payload(WorkerState& w, std::span<const float>) const override {
    std::vector<float> d(w.x.size());
    for (size_t i = 0; i < d.size(); ++i) d[i] = w.x[i] - w.anchor[i];
    return d;
  }
  void apply_push(ShardState& s, std::span<const float> d, const PushInfo& info) const override {
    // A clock from the future (a confused worker) counts as fresh.
    const int64_t tau = s.clock > info.clock_seen ? s.clock - info.clock_seen : 0;
    const float scale = 1.0f / static_cast<float>(tau + 1);
    for (size_t i = 0; i < s.value.size(); ++i) s.value[i] += d[i] * scale;
    ++s.clock;
  }

 private:
  float eta_;
  int period_;
};

}  // namespace

std::unique_ptr<Scheme> make_dynamic_sgd_scheme(float learning_rate, int period) {
  return std::make_unique<DynamicSgdScheme>(learning_rate, period);
}

}  // namespace strata::ps
