// Bandwidth-optimal all-reduce for devices that can read each other's
// memory: device i reduces slice i of every input straight into its output,
// then every device copies the other slices from their owners. Each byte is
// read and written the minimum number of times and all streams work at once.
#include <vector>

#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class ScatterReduceOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    std::vector<int> all;
    for (int r = 0; r < n(); ++r) all.push_back(r);
    for (int r = 0; r < n(); ++r) {
      const Range s = slice(count(), elem(), r, n());
      const uint64_t off = s.begin * elem();
      std::vector<const void*> srcs{in(r) + off};  // own slice first: allows in place
      for (int k = 0; k < n(); ++k) {
        if (k != r) srcs.push_back(in(k) + off);
      }
      reduce(r, out(r) + off, srcs, s.count, /*final=*/true);
    }
    join(all);  // nobody overwrites a slice before its owner has read it
    for (int r = 0; r < n(); ++r) {
      for (int step = 1; step < n(); ++step) {
        const int k = (r + step) % n();  // stagger so owners are read evenly
        const Range s = slice(count(), elem(), k, n());
        const uint64_t off = s.begin * elem();
        copy(r, out(r) + off, r, out(k) + off, k, s.count * elem());
      }
    }
  }
};

class ScatterReduce final : public LocalAlgorithm {
 public:
  ScatterReduce()
      : LocalAlgorithm("scatter_reduce", STRATA_ALL_REDUCE,
                       "each device reduces its 1/n slice from all peers, then slices are "
                       "copied back; bandwidth-optimal, needs peer access") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    return require_peer_access(call);
  }

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t slice_bytes = call.count * sdk::dtype_size(call.dtype) / static_cast<uint64_t>(n);
    // Every stream works in parallel; two hops: start and the join.
    return 2 * m.hop + m.reduce(slice_bytes, n) + (n - 1) * m.copy(slice_bytes);
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ScatterReduceOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_scatter_reduce() {
  return std::make_unique<ScatterReduce>();
}

}  // namespace strata::hierarchical_copy
