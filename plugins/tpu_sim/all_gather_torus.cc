// All-gather on the torus: a ring all-gather of the inputs along every row
// at once, then of whole rows along every column. Each core receives the
// (n-1) slots it lacks exactly once, over rows + cols - 2 latency steps.
// Out of place each core first copies its input into its own slot; in
// place the input already is that slot. Every slot of a core's output is
// written once, on that core's stream, and read by its ring successor only
// after the step that wrote it, so no phase needs more ordering than the
// ring steps give.
#include <vector>

#include "algorithms.h"
#include "strata/sdk/types.h"
#include "torus_algorithm.h"

namespace strata::tpu_sim {
namespace {

class AllGatherTorusOp final : public TorusOperation {
 public:
  using TorusOperation::TorusOperation;

 private:
  Range slot(int replica) const { return {static_cast<uint64_t>(replica) * count(), count()}; }

  // Row a's slots, merged where the team numbers the row consecutively (the
  // usual case), so a column step moves one block.
  std::vector<Range> row_block(int a) const {
    std::vector<Range> ranges;
    for (int b = 0; b < grid().cols(); ++b) {
      const Range s = slot(grid().replica(a, b));
      if (!ranges.empty() && ranges.back().begin + ranges.back().count == s.begin) {
        ranges.back().count += s.count;
      } else {
        ranges.push_back(s);
      }
    }
    return ranges;
  }

  void schedule() override {
    if (count() == 0) return;
    const TeamGrid& g = grid();
    for (int r = 0; r < n(); ++r) {
      if (!in_place()) pull(r, out(r) + slot(r).begin * elem(), in(r), r, count() * elem());
      signal(r);
    }
    for (int a = 0; a < g.rows(); ++a) {
      std::vector<int> ring;
      for (int b = 0; b < g.cols(); ++b) ring.push_back(g.replica(a, b));
      ring_all_gather(ring, 0, [&, a](int p) {
        return std::vector<Range>{slot(g.replica(a, p))};
      });
    }
    for (int b = 0; b < g.cols(); ++b) {
      std::vector<int> ring;
      for (int a = 0; a < g.rows(); ++a) ring.push_back(g.replica(a, b));
      ring_all_gather(ring, 0, [&](int p) { return row_block(p); });
    }
  }
};

class AllGatherTorus final : public TorusAlgorithm {
 public:
  explicit AllGatherTorus(Slice slice)
      : TorusAlgorithm(slice, "torus", STRATA_ALL_GATHER,
                       "ring all-gather along the torus rows, then of whole rows along "
                       "the columns") {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<AllGatherTorusOp>(torus(team), call);
  }

 protected:
  double model(const TorusCostModel& m, const TeamGrid& grid,
               const strata_call_desc_t& call) const override {
    return m.all_gather(grid, call.count * sdk::dtype_size(call.dtype));
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_gather_torus(Slice slice) {
  return std::make_unique<AllGatherTorus>(slice);
}

}  // namespace strata::tpu_sim
