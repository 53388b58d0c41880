// TF-style hierarchical broadcast: the devices form two groups (see
// device_groups.h) and the root leads its own. The root first copies its
// input to the other group's root — the one transfer between the groups, so
// on a two-island machine only one copy crosses the slow link — then every
// member of the root's group pulls from the root's input, and every member
// of the other group pulls from its group root once that copy has landed.
#include "algorithms.h"
#include "device_groups.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class BroadcastHierarchicalOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const int root = this->root();
    const uint64_t bytes = count() * elem();
    if (n() == 1) {
      copy(0, out(0), 0, in(0), 0, bytes);
      return;
    }
    DeviceGroups groups = DeviceGroups::of(n(), sequence());
    groups.lead_with(root);
    const int near = groups.group_of(root);
    const int far = 1 - near;
    const int relay = groups.root[far];
    // The relay copy is on the critical path: it goes first, and the root
    // signals right after it, before its own out-of-place copy.
    copy(root, out(relay), relay, in(root), root, bytes);
    const bool relayed = groups.size(far) > 1;
    if (relayed) signal(root);
    copy(root, out(root), root, in(root), root, bytes);
    for (int r = groups.begin[near]; r < groups.end[near]; ++r) {
      if (r != root) copy(r, out(r), r, in(root), root, bytes);  // root's input is ready
    }
    if (!relayed) return;
    for (int r = groups.begin[far]; r < groups.end[far]; ++r) {
      if (r == relay) continue;
      wait_for(r, root);
      copy(r, out(r), r, out(relay), relay, bytes);
    }
  }
};

class BroadcastHierarchical final : public LocalAlgorithm {
 public:
  BroadcastHierarchical()
      : LocalAlgorithm("hierarchical", STRATA_BROADCAST,
                       "two groups: the root copies to the other group's root, then each "
                       "group's members pull from their root") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    const int own = call.in_place != 0 ? 0 : 1;
    // Two devices run one_device's schedule; the extra task of bookkeeping
    // makes AUTO prefer the simpler algorithm on that tie.
    if (n <= 2) return m.launch + (n - 1 + own) * m.copy(bytes) + m.task;
    // The root's copies alongside its group's pulls; after one hop, the far
    // group's pulls. The root's group is taken to be the larger one.
    const int near = (n + 1) / 2;
    const int far = n - near;
    double t = m.concurrent(near + own, m.copy(bytes));
    if (far > 1) t += m.hop + m.concurrent(far - 1, m.copy(bytes));
    return t;
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<BroadcastHierarchicalOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_hierarchical() {
  return std::make_unique<BroadcastHierarchical>();
}

}  // namespace strata::hierarchical_copy
