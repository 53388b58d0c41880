// Reduce for devices that can reach each other's memory: device p reduces
// slice p of every input straight into that slice of the root's output, all
// streams at once, so the root's stream is no bottleneck. Slices fall on
// 64-byte boundaries (slice()), so no two streams write one cache line. In
// place, slice p of the root's input is read only by device p, which writes
// it; no stream waits for another.
#include <vector>

#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class ReducePeerSlicesOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const int root = this->root();
    for (int p = 0; p < n(); ++p) {
      const Range s = slice(count(), elem(), p, n());
      const uint64_t off = s.begin * elem();
      std::vector<const void*> srcs{in(root) + off};  // first: the in-place source
      for (int step = 1; step < n(); ++step) srcs.push_back(in((root + step) % n()) + off);
      reduce(p, out(root) + off, srcs, s.count, /*final=*/true);
    }
  }
};

class ReducePeerSlices final : public LocalAlgorithm {
 public:
  ReducePeerSlices()
      : LocalAlgorithm("peer_slices", STRATA_REDUCE,
                       "device p reduces slice p of every input into the root's output, all "
                       "at once; needs peer access") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    return require_peer_access(call);
  }

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    // One slice's reduction on each stream.
    return m.concurrent(n, m.reduce(bytes / static_cast<uint64_t>(n), n));
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReducePeerSlicesOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_peer_slices() {
  return std::make_unique<ReducePeerSlices>();
}

}  // namespace strata::hierarchical_copy
