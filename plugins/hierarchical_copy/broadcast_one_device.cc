// Broadcast from the root's stream alone: it copies its input into every
// output in turn. One stream means no cross-stream hand-off and no other
// stream to wake, which wins for small tensors; for large ones the n - 1
// copies in a row are the bottleneck.
#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class BroadcastOneDeviceOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const int root = this->root();
    const uint64_t bytes = count() * elem();
    // The other replicas first: the root's own out-of-place copy (skipped
    // when in place) is the only one nobody else waits for.
    for (int step = 1; step <= n(); ++step) {
      const int r = (root + step) % n();
      copy(root, out(r), r, in(root), root, bytes);
    }
  }
};

class BroadcastOneDevice final : public LocalAlgorithm {
 public:
  BroadcastOneDevice()
      : LocalAlgorithm("one_device", STRATA_BROADCAST,
                       "the root's stream copies its input to every output; lowest latency") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    const int copies = n - 1 + (call.in_place != 0 ? 0 : 1);
    return m.launch + copies * m.copy(bytes);
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<BroadcastOneDeviceOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_one_device() {
  return std::make_unique<BroadcastOneDevice>();
}

}  // namespace strata::hierarchical_copy
