// Synchronous SGD, with one learning rate for all or one per worker (the
// guide's Synchronous-SGD and Synchronous-SGD-different-learning-rates).
// Every step each active worker pushes its gradient; the ps waits until all
// of them have (a round), applies their mean once, and only then lets the
// workers pull:
//
//   server, per round K (the workers that pushed):
//     w <- w - (1/|K|) * sum_{k in K} eta_k * g_k
//
// A worker that finishes or dies leaves the rounds after it smaller, so
// nobody waits for it.
#include "core/strategy/parameter_server/scheme.h"

namespace strata::ps {
namespace {

class SyncSgdScheme final : public Scheme {
 public:
  explicit SyncSgdScheme(std::vector<float> rates) : rates_(std::move(rates)) {}
  std::string_view name() const override { return "sync"; }
  bool synchronous() const override { return true; }

  void local_step(WorkerState& w, std::span<const float> g) const override {
    w.acc.assign(g.begin(), g.end());
  }
  std::vector<float> push_payload(WorkerState& w, std::span<const float>) const override {
    return w.acc;
  }
  void apply_push(ShardState& s, std::span<const float> g, const PushInfo& info) const override {
    const float eta = rates_[static_cast<size_t>(info.worker) % rates_.size()];
    if (s.sum.size() != s.value.size()) s.sum.assign(s.value.size(), 0.0f);
    for (size_t i = 0; i < s.sum.size(); ++i) s.sum[i] += eta * g[i];
    ++s.contributions;
  }

 private:
  std::vector<float> rates_;
};

}  // namespace

std::unique_ptr<Scheme> make_sync_sgd_scheme(std::vector<float> worker_rates) {
  return std::make_unique<SyncSgdScheme>(std::move(worker_rates));
}

}  // namespace strata::ps
