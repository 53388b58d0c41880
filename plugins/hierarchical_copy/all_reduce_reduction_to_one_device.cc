// TF's ReductionToOneDevice: one device reads every input, reduces, and
// copies the result to every other output, all on its own stream. One
// stream means no cross-stream hand-off, which wins for small tensors; for
// large ones that single stream is the bottleneck.
#include <vector>

#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class ReductionToOneDeviceOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const int root = 0;
    const uint64_t bytes = count() * elem();
    std::vector<const void*> srcs{in(root)};  // own input first: allows in place
    for (int r = 1; r < n(); ++r) srcs.push_back(readable(root, in(r), r, bytes, r));
    if (team().all_peers()) {
      // One pass: the result goes straight into every output.
      std::vector<void*> dsts;
      for (int r = 0; r < n(); ++r) dsts.push_back(out(r));
      reduce_to(root, dsts, srcs, count(), /*final=*/true);
      return;
    }
    reduce(root, out(root), srcs, count(), /*final=*/true);
    for (int r = 1; r < n(); ++r) copy(root, out(r), r, out(root), root, bytes);
  }
};

class ReductionToOneDevice final : public LocalAlgorithm {
 public:
  ReductionToOneDevice()
      : LocalAlgorithm("reduction_to_one_device", STRATA_ALL_REDUCE,
                       "TF's ReductionToOneDevice: replica 0 reduces all inputs and copies "
                       "the result out; lowest latency") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    // One stream reads n inputs and writes n outputs.
    return m.launch + m.reduce(bytes, n) + m.traffic((n - 1.0) * static_cast<double>(bytes));
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReductionToOneDeviceOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_reduction_to_one_device() {
  return std::make_unique<ReductionToOneDevice>();
}

}  // namespace strata::hierarchical_copy
