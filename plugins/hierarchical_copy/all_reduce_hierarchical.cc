// TF's HierarchicalCopyAllReduce: the devices form two groups; in each, an
// aggregation root (rotating with every call, so no device is always the
// busiest) reduces the group's inputs; the two roots combine their partial
// sums, each finishing half of the tensor, and swap halves; then every
// member copies the result from its group's root.
#include <vector>

#include "algorithms.h"
#include "local_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {
namespace {

class HierarchicalOp final : public LocalOperation {
 public:
  using LocalOperation::LocalOperation;

 private:
  void schedule() override {
    const uint64_t bytes = count() * elem();
    if (n() == 1) {
      reduce(0, out(0), std::vector<const void*>{in(0)}, count(), /*final=*/true);
      return;
    }
    const int half = (n() + 1) / 2;  // group A = [0, half), B = [half, n)
    const int groups[2][2] = {{0, half}, {half, n()}};
    int roots[2];
    for (int g = 0; g < 2; ++g) {
      const int begin = groups[g][0];
      const int size = groups[g][1] - begin;
      const int root = begin + static_cast<int>(sequence() % static_cast<uint64_t>(size));
      roots[g] = root;
      std::vector<const void*> srcs{in(root)};
      for (int r = begin; r < begin + size; ++r) {
        if (r != root) srcs.push_back(readable(root, in(r), r, bytes, r));
      }
      reduce(root, out(root), srcs, count(), /*final=*/false);
    }
    const int a = roots[0];
    const int b = roots[1];
    const int pair[2] = {a, b};
    join(pair);
    // Each root finishes one half from both partial sums, then they swap.
    const Range lo = slice(count(), elem(), 0, 2);
    const Range hi = slice(count(), elem(), 1, 2);
    const uint64_t lo_off = lo.begin * elem();
    const uint64_t hi_off = hi.begin * elem();
    reduce(a, out(a) + lo_off,
           std::vector<const void*>{out(a) + lo_off,
                                    readable(a, out(b) + lo_off, b, lo.count * elem(), n())},
           lo.count, /*final=*/true);
    reduce(b, out(b) + hi_off,
           std::vector<const void*>{out(b) + hi_off,
                                    readable(b, out(a) + hi_off, a, hi.count * elem(), n())},
           hi.count, /*final=*/true);
    join(pair);
    copy(a, out(a) + hi_off, a, out(b) + hi_off, b, hi.count * elem());
    copy(b, out(b) + lo_off, b, out(a) + lo_off, a, lo.count * elem());
    signal(a);
    signal(b);
    // Members pull from their group's root, all streams at once.
    for (int g = 0; g < 2; ++g) {
      for (int r = groups[g][0]; r < groups[g][1]; ++r) {
        if (r == roots[g]) continue;
        wait_for(r, roots[g]);
        copy(r, out(r), r, out(roots[g]), roots[g], bytes);
      }
    }
  }
};

class Hierarchical final : public LocalAlgorithm {
 public:
  Hierarchical()
      : LocalAlgorithm("hierarchical", STRATA_ALL_REDUCE,
                       "TF's HierarchicalCopyAllReduce: two groups, rotating roots reduce, "
                       "roots combine, members copy back") {}

  std::optional<double> estimate(const strata_call_desc_t& call) const override {
    const CostModel m = CostModel::of(call);
    const int n = static_cast<int>(call.team->local_count);
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    if (n == 1) return m.reduce(bytes, 1);
    const int group = (n + 1) / 2;
    // Two roots reduce at once, combine and swap halves, then members pull.
    return m.concurrent(2, m.reduce(bytes, group)) + 2 * m.hop + m.reduce(bytes / 2, 2) +
           m.copy(bytes / 2) + m.concurrent(n - 2, m.copy(bytes));
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<HierarchicalOp>(local(team), call);
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_hierarchical() {
  return std::make_unique<Hierarchical>();
}

}  // namespace strata::hierarchical_copy
