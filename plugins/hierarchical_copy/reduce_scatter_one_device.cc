// Reduce-scatter on one stream (replica 0's), the reduce-scatter analogue of
// TF's ReductionToOneDevice: lowest latency, no cross-stream hand-off.
// With peer access the stream reduces slot r of every input straight into
// output r, slot by slot. Without it, it stages every input on its own
// device, reduces everything into scratch, then copies each slot out.
// Either way one stream reads every input before it writes the output that
// shares the input's memory in place.
#include <vector>

#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class ReduceScatterOneDeviceOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const int on = 0;
    const uint64_t bytes = count() * elem();
    if (team().all_peers()) {
      for (int r = 0; r < n(); ++r) {
        const uint64_t off = static_cast<uint64_t>(r) * bytes;
        std::vector<const void*> srcs;
        for (int step = 0; step < n(); ++step) srcs.push_back(in((r + step) % n()) + off);
        reduce(on, out(r), srcs, count(), /*final=*/true);  // in place: out(r) is srcs[0]
      }
      return;
    }
    if (count() == 0) return;  // no scratch for nothing
    const uint64_t whole = bytes * static_cast<uint64_t>(n());
    std::vector<const void*> srcs{in(on)};
    for (int k = 0; k < n(); ++k) {
      if (k != on) srcs.push_back(readable(on, in(k), k, whole, 1 + k));
    }
    char* result = static_cast<char*>(team().scratch(on, 0, whole));
    reduce(on, result, srcs, count() * static_cast<uint64_t>(n()), /*final=*/true);
    for (int r = 0; r < n(); ++r) {
      copy(on, out(r), r, result + static_cast<uint64_t>(r) * bytes, on, bytes);
    }
  }
};

class ReduceScatterOneDevice final : public LocalAlgorithm {
 public:
  ReduceScatterOneDevice()
      : LocalAlgorithm("one_device", STRATA_REDUCE_SCATTER,
                       "replica 0's stream reduces every slot of every input and writes each "
                       "output; lowest latency") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    if (!require_peer_access(call)) return m.launch + n * m.reduce(bytes, n);
    const uint64_t whole = bytes * static_cast<uint64_t>(n);
    return m.launch + (n - 1) * m.copy(whole) + m.reduce(whole, n) + n * m.copy(bytes);
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReduceScatterOneDeviceOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_scatter_one_device() {
  return std::make_unique<ReduceScatterOneDevice>();
}

}  // namespace strata::hierarchical_copy
