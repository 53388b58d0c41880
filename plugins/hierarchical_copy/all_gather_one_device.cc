// All-gather on one stream: replica 0's stream copies every input into its
// own output's slots, then copies that whole output to every other replica.
// In place, each input is a slot of its own output; the stream reads it in
// the first phase, strictly before the second phase overwrites that output
// (with the same bytes), so no cross-stream ordering is needed.
#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class AllGatherOneDeviceOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const int gather = 0;
    const uint64_t bytes = count() * elem();
    // In place, the gatherer's own slot already holds its input: copy()
    // skips a copy onto itself.
    for (int k = 0; k < n(); ++k) copy(gather, out(gather) + k * bytes, gather, in(k), k, bytes);
    const uint64_t whole = bytes * static_cast<uint64_t>(n());
    for (int r = 0; r < n(); ++r) {
      if (r != gather) copy(gather, out(r), r, out(gather), gather, whole);
    }
  }
};

class AllGatherOneDevice final : public LocalAlgorithm {
 public:
  AllGatherOneDevice()
      : LocalAlgorithm("one_device", STRATA_ALL_GATHER,
                       "replica 0's stream gathers every input, then copies the whole output "
                       "to the others; lowest latency") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    const int gathers = n - (call.in_place != 0 ? 1 : 0);
    return m.launch + gathers * m.copy(bytes) +
           (n - 1) * m.copy(bytes * static_cast<uint64_t>(n));
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<AllGatherOneDeviceOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_one_device() {
  return std::make_unique<AllGatherOneDevice>();
}

}  // namespace strata::hierarchical_copy
