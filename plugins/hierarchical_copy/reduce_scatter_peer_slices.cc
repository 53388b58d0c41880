// Reduce-scatter for devices that can read each other's memory: device r
// reduces slot r of every input straight into its own output, all streams at
// once. Each input byte is read once and each output byte written once.
// In place, output r is slot r of input r, which only device r reads (its
// own source comes first, so the reduction runs in place); no stream waits
// for another.
#include <vector>

#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class ReduceScatterPeerSlicesOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const uint64_t bytes = count() * elem();
    for (int r = 0; r < n(); ++r) {
      const uint64_t off = static_cast<uint64_t>(r) * bytes;
      std::vector<const void*> srcs;
      for (int step = 0; step < n(); ++step) {
        srcs.push_back(in((r + step) % n()) + off);  // own first, then staggered
      }
      reduce(r, out(r), srcs, count(), /*final=*/true);
    }
  }
};

class ReduceScatterPeerSlices final : public LocalAlgorithm {
 public:
  ReduceScatterPeerSlices()
      : LocalAlgorithm("peer_slices", STRATA_REDUCE_SCATTER,
                       "device r reduces slot r of every input straight into its output; "
                       "needs peer access") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    return require_peer_access(call);
  }

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    return m.concurrent(n, m.reduce(bytes, n));  // one reduction on each stream
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReduceScatterPeerSlicesOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_scatter_peer_slices() {
  return std::make_unique<ReduceScatterPeerSlices>();
}

}  // namespace strata::hierarchical_copy
