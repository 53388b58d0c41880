// All-gather by pulling: every device copies every input into its own
// output's slots on its own stream, all streams at once. In place, input k
// is slot k of output k; device k never writes that slot (it already holds
// the data) and every other device only reads it, so no stream waits for
// another. Copies work between any devices, so no peer access is needed.
#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class AllGatherPeerPullOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const uint64_t bytes = count() * elem();
    for (int r = 0; r < n(); ++r) {
      for (int step = 0; step < n(); ++step) {
        const int k = (r + step) % n();  // stagger so no input is read by all at once
        copy(r, out(r) + static_cast<uint64_t>(k) * bytes, r, in(k), k, bytes);
      }
    }
  }
};

class AllGatherPeerPull final : public LocalAlgorithm {
 public:
  AllGatherPeerPull()
      : LocalAlgorithm("peer_pull", STRATA_ALL_GATHER,
                       "every device copies every input into its own output, all streams "
                       "at once") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    const int per_stream = n - (call.in_place != 0 ? 1 : 0);
    if (per_stream == 0) return m.launch;
    return m.concurrent(n, per_stream * m.copy(bytes));
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<AllGatherPeerPullOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_peer_pull() {
  return std::make_unique<AllGatherPeerPull>();
}

}  // namespace strata::hierarchical_copy
