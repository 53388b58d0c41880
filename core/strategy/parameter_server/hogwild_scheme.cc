// HogWild (asynchronous SGD, Recht et al. 2011). Every step each worker
// pulls the center w, computes g on it and pushes g; the ps applies pushes
// as they come, in no order and without waiting for anyone:
//
//   server, per push:  w <- w - eta * g
//
// The original is lock-free; here a shard is updated under its lock (so the
// sanitizers stay quiet), but different shards and different workers still
// interleave freely, which is what makes it HogWild.
#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

class HogwildScheme final : public Scheme {
 public:
  explicit HogwildScheme(float eta) : eta_(eta) {}
  std::string_view name() const override { return "hogwild"; }

  void local_step(WorkerState& w, std::span<const float> g) const override {
    w.acc.assign(g.begin(), g.end());
  }
  std::vector<float> push_payload(WorkerState& w, std::span<const float>) const override {
    return w.acc;
  }
  void apply_push(ShardState& s, std::span<const float> g, const PushInfo&) const override {
    for (size_t i = 0; i < s.value.size(); ++i) s.value[i] -= eta_ * g[i];
    ++s.clock;
  }

 private:
  float eta_;
};

}  // namespace

std::unique_ptr<Scheme> make_hogwild_scheme(float learning_rate) {
  return std::make_unique<HogwildScheme>(learning_rate);
}

}  // namespace strata::ps
