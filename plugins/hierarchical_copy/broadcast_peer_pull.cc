// Broadcast by pulling: every device copies the root's input into its own
// output on its own stream, all at once. Only the root's input is read and
// nothing is written that another stream reads, so no stream waits for
// another. Copies work between any two devices of a type (staged through the
// host where the hardware cannot do better), so this needs no peer access.
#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class BroadcastPeerPullOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const int root = this->root();
    const uint64_t bytes = count() * elem();
    for (int r = 0; r < n(); ++r) copy(r, out(r), r, in(root), root, bytes);
  }
};

class BroadcastPeerPull final : public LocalAlgorithm {
 public:
  BroadcastPeerPull()
      : LocalAlgorithm("peer_pull", STRATA_BROADCAST,
                       "every device pulls the root's input on its own stream, all at once") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    const int copies = n - 1 + (call.in_place != 0 ? 0 : 1);
    if (copies == 0) return m.launch;
    return m.concurrent(copies, m.copy(bytes));  // one copy on each stream
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<BroadcastPeerPullOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_peer_pull() {
  return std::make_unique<BroadcastPeerPull>();
}

}  // namespace strata::hierarchical_copy
