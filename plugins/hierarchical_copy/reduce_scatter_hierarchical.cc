// TF-style hierarchical reduce-scatter over two groups (device_groups.h):
// each group's root reduces its members' whole inputs into a full-length
// partial (staged into scratch where it cannot read a member directly), then
// every replica reduces its own slot from the two partials. Only the second
// step crosses between the groups, and it moves one slot per replica. MEAN
// sums the partials and divides only in that final step.
//
// In place, output r is slot r of input r. The group root reads input r in
// the first step; replica r writes it only after waiting for both roots.
#include <vector>

#include "algorithms.h"
#include "device_groups.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class ReduceScatterHierarchicalOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  // Scratch slots on one device; distinct because a root also finishes its
  // own slot while its partial is still being read by others.
  static constexpr int kPartialSlot = 0;
  int staged_input_slot(int k) const { return 1 + k; }
  int staged_partial_slot(int group) const { return 1 + n() + group; }

  void schedule() override {
    const uint64_t bytes = count() * elem();
    if (n() == 1) {
      copy(0, out(0), 0, in(0), 0, bytes);  // MEAN over one replica is the input
      return;
    }
    if (count() == 0) return;
    const uint64_t whole = bytes * static_cast<uint64_t>(n());
    const DeviceGroups groups = DeviceGroups::of(n(), sequence());
    const char* partial[2];
    for (int g = 0; g < 2; ++g) {
      const int root = groups.root[g];
      if (groups.size(g) == 1) {
        partial[g] = in(root);  // a group of one: its input is the partial
        continue;
      }
      std::vector<const void*> srcs{in(root)};
      for (int k = groups.begin[g]; k < groups.end[g]; ++k) {
        if (k != root) srcs.push_back(readable(root, in(k), k, whole, staged_input_slot(k)));
      }
      char* sum = static_cast<char*>(team().scratch(root, kPartialSlot, whole));
      reduce(root, sum, srcs, count() * static_cast<uint64_t>(n()), /*final=*/false);
      partial[g] = sum;
    }
    signal(groups.root[0]);
    signal(groups.root[1]);
    for (int r = 0; r < n(); ++r) {
      const uint64_t off = static_cast<uint64_t>(r) * bytes;
      const int mine = groups.group_of(r);
      std::vector<const void*> srcs;
      // Own group's partial first: for a group of one it is input r, whose
      // slot r is output r in place, and a reduction in place on its first
      // source is what every device type supports.
      for (int g : {mine, 1 - mine}) {
        const int root = groups.root[g];
        wait_for(r, root);
        srcs.push_back(readable(r, partial[g] + off, root, bytes, staged_partial_slot(g)));
      }
      reduce(r, out(r), srcs, count(), /*final=*/true);
    }
  }
};

class ReduceScatterHierarchical final : public LocalAlgorithm {
 public:
  ReduceScatterHierarchical()
      : LocalAlgorithm("hierarchical", STRATA_REDUCE_SCATTER,
                       "two groups: roots reduce full-length group partials, then every "
                       "replica reduces its slot from the two") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    if (n == 1) return m.launch + (call.in_place != 0 ? 0 : m.copy(bytes));
    const bool peers = !require_peer_access(call);
    const int big = (n + 1) / 2;
    const uint64_t whole = bytes * static_cast<uint64_t>(n);
    // Two roots reduce their groups at once (staging members without peer
    // access); one hop; every replica finishes its slot, concurrently.
    // Two devices run peer_slices' schedule; the extra task of bookkeeping
    // makes AUTO prefer the simpler algorithm on that tie.
    double t = m.task;
    if (big > 1) {
      t += m.concurrent(2, (peers ? 0 : (big - 1) * m.copy(whole)) + m.reduce(whole, big)) + m.hop;
    }
    return t + m.concurrent(n, (peers ? 0 : 2 * m.copy(bytes)) + m.reduce(bytes, 2));
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<ReduceScatterHierarchicalOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_reduce_scatter_hierarchical() {
  return std::make_unique<ReduceScatterHierarchical>();
}

}  // namespace strata::hierarchical_copy
