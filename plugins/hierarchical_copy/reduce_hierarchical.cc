// TF-style hierarchical reduce over two groups (device_groups.h), with the
// root leading its own group: the root reduces its group's inputs into its
// output while the other group's root reduces that group's inputs into
// scratch, concurrently; then the root combines the two partials. Only one
// partial crosses between the groups. MEAN sums the partials and divides
// only in the root's final step.
#include <vector>

#include "algorithms.h"
#include "device_groups.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class ReduceHierarchicalOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  // Scratch slots: slot k stages member k's input; these two follow, so
  // that no device uses one slot twice in a call.
  int far_sum_slot() const { return n(); }             // on the far group's root
  int staged_far_sum_slot() const { return n() + 1; }  // on the call's root

  void schedule() override {
    const int root = this->root();
    const uint64_t bytes = count() * elem();
    if (n() == 1) {
      copy(0, out(0), 0, in(0), 0, bytes);  // MEAN over one replica is the input
      return;
    }
    if (count() == 0) return;
    DeviceGroups groups = DeviceGroups::of(n(), sequence());
    groups.lead_with(root);
    const int near = groups.group_of(root);
    const int far = 1 - near;
    const int relay = groups.root[far];
    // The far group's partial first: the root waits for it.
    const void* far_partial = in(relay);  // a group of one: its input is the partial
    if (groups.size(far) > 1) {
      void* sum = team().scratch(relay, far_sum_slot(), bytes);
      reduce(relay, sum, group_sources(groups, far, relay), count(), /*final=*/false);
      far_partial = sum;
    }
    signal(relay);
    const void* near_partial = in(root);
    if (groups.size(near) > 1) {
      // Straight into the output: in place it is the root's input, which
      // comes first among the sources; nobody else reads it.
      reduce(root, out(root), group_sources(groups, near, root), count(), /*final=*/false);
      near_partial = out(root);
    }
    wait_for(root, relay);
    const void* far_view = readable(root, far_partial, relay, bytes, staged_far_sum_slot());
    const std::vector<const void*> srcs{near_partial, far_view};
    reduce(root, out(root), srcs, count(), /*final=*/true);
  }

  // The inputs of `group` as `on` (its root) can read them, its own first.
  std::vector<const void*> group_sources(const DeviceGroups& groups, int group, int on) {
    const uint64_t bytes = count() * elem();
    std::vector<const void*> srcs{in(on)};
    for (int k = groups.begin[group]; k < groups.end[group]; ++k) {
      if (k != on) srcs.push_back(readable(on, in(k), k, bytes, k));
    }
    return srcs;
  }
};

class ReduceHierarchical final : public LocalAlgorithm {
 public:
  ReduceHierarchical()
      : LocalAlgorithm("hierarchical", STRATA_REDUCE,
                       "two groups reduce concurrently, the root leading its own; the root "
                       "combines the two partials") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    if (n == 1) return m.launch + (call.in_place != 0 ? 0 : m.copy(bytes));
    const bool peers = !require_peer_access(call);
    const int big = (n + 1) / 2;
    // Both groups reduce at once (staging members without peer access); one
    // hop; the root combines the two partials.
    const double group = (peers ? 0 : (big - 1) * m.copy(bytes)) + m.reduce(bytes, big);
    return m.concurrent(2, group) + m.hop + (peers ? 0 : m.copy(bytes)) + m.reduce(bytes, 2);
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReduceHierarchicalOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_hierarchical() {
  return std::make_unique<ReduceHierarchical>();
}

}  // namespace strata::hierarchical_copy
