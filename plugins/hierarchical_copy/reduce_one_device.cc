// Reduce on the root's stream alone: it reduces every input (staged into
// its scratch where it cannot read a peer directly) into its own output in
// one pass. No cross-stream hand-off, so it wins for small tensors.
#include <vector>

#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class ReduceOneDeviceOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const int root = this->root();
    const uint64_t bytes = count() * elem();
    std::vector<const void*> srcs{in(root)};  // own input first: allows in place
    for (int step = 1; step < n(); ++step) {
      const int k = (root + step) % n();
      srcs.push_back(readable(root, in(k), k, bytes, k));
    }
    reduce(root, out(root), srcs, count(), /*final=*/true);
  }
};

class ReduceOneDevice final : public LocalAlgorithm {
 public:
  ReduceOneDevice()
      : LocalAlgorithm("one_device", STRATA_REDUCE,
                       "the root's stream reduces every input into its output; lowest "
                       "latency") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    const double staging = require_peer_access(call) ? (n - 1) * m.copy(bytes) : 0;
    return m.launch + staging + m.reduce(bytes, n);
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReduceOneDeviceOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_one_device() {
  return std::make_unique<ReduceOneDevice>();
}

}  // namespace strata::hierarchical_copy
