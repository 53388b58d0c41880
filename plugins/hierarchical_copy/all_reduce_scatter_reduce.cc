// Bandwidth-optimal all-reduce for devices that can reach each other's
// memory: device i owns slice i; it reads that slice of every input once,
// reduces it in cache, and writes the result into that slice of every
// output in the same pass. All devices work at once and every byte is read
// and written exactly once — 2·n·S bytes for n buffers of S bytes, the
// lower bound. No device touches another's slice, so in place needs no
// synchronisation between streams at all.
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
    for (int r = 0; r < n(); ++r) {
      const Range s = slice(count(), elem(), r, n());
      const uint64_t off = s.begin * elem();
      std::vector<const void*> srcs;
      std::vector<void*> dsts;
      for (int step = 0; step < n(); ++step) {
        const int k = (r + step) % n();  // own buffer first, then staggered
        srcs.push_back(in(k) + off);
        dsts.push_back(out(k) + off);
      }
      reduce_to(r, dsts, srcs, s.count, /*final=*/true);
    }
  }
};

class ScatterReduce final : public LocalAlgorithm {
 public:
  ScatterReduce()
      : LocalAlgorithm("scatter_reduce", STRATA_ALL_REDUCE,
                       "device i reduces slice i of all inputs and writes it to every output "
                       "in one pass; bandwidth-optimal, needs peer access") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    return require_peer_access(call);
  }

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t slice_bytes = call.count * sdk::dtype_size(call.dtype) / static_cast<uint64_t>(n);
    // n streams at once, each reading n slices and writing n.
    const double per_stream = m.task + m.traffic(2.0 * n * static_cast<double>(slice_bytes));
    return m.concurrent(n, per_stream);
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
