// TF-style hierarchical all-gather over two groups (device_groups.h): each
// group's root gathers its members' inputs into its own output, the two roots
// swap their groups' halves, and every member then copies the complete
// output from its root. Only the swap crosses between the groups.
//
// In place, input k is slot k of output k. Its group root reads it in the
// first phase; member k overwrites its output only after waiting for the
// root's signal, which follows that read on the root's stream.
#include "algorithms.h"
#include "device_groups.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class AllGatherHierarchicalOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const uint64_t bytes = count() * elem();
    const uint64_t whole = bytes * static_cast<uint64_t>(n());
    if (n() == 1) {
      copy(0, out(0), 0, in(0), 0, bytes);
      return;
    }
    const DeviceGroups groups = DeviceGroups::of(n(), sequence());
    auto slot = [&](int r, int k) { return out(r) + static_cast<uint64_t>(k) * bytes; };
    for (int g = 0; g < 2; ++g) {
      const int root = groups.root[g];
      for (int k = groups.begin[g]; k < groups.end[g]; ++k) {
        copy(root, slot(root, k), root, in(k), k, bytes);
      }
    }
    const int roots[2] = {groups.root[0], groups.root[1]};
    join(roots);
    // Each root copies the other group's contiguous run of slots. The two
    // copies write disjoint halves of each output, so they run concurrently.
    for (int g = 0; g < 2; ++g) {
      const int root = groups.root[g];
      const int other = 1 - g;
      const int from = groups.root[other];
      copy(root, slot(root, groups.begin[other]), root, slot(from, groups.begin[other]), from,
           static_cast<uint64_t>(groups.size(other)) * bytes);
      signal(root);
    }
    for (int g = 0; g < 2; ++g) {
      const int root = groups.root[g];
      for (int r = groups.begin[g]; r < groups.end[g]; ++r) {
        if (r == root) continue;
        wait_for(r, root);
        copy(r, out(r), r, out(root), root, whole);
      }
    }
  }
};

class AllGatherHierarchical final : public LocalAlgorithm {
 public:
  AllGatherHierarchical()
      : LocalAlgorithm("hierarchical", STRATA_ALL_GATHER,
                       "two groups: roots gather their group, swap halves, members copy "
                       "the result from their root") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    if (n == 1) return m.launch + (call.in_place != 0 ? 0 : m.copy(bytes));
    const int big = (n + 1) / 2;
    const int small = n - big;
    // Two roots gather at once; one hop; they swap at once; after another
    // hop the members copy the whole output, concurrently.
    double t = m.concurrent(2, big * m.copy(bytes)) + m.hop +
               m.concurrent(2, m.copy(bytes * static_cast<uint64_t>(small)));
    if (n > 2) t += m.hop + m.concurrent(n - 2, m.copy(bytes * static_cast<uint64_t>(n)));
    return t;
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<AllGatherHierarchicalOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_hierarchical() {
  return std::make_unique<AllGatherHierarchical>();
}

}  // namespace strata::hierarchical_copy
