// The bandwidth-optimal 2-D all-reduce of a TPU pod: reduce-scatter along
// every row ring at once, then along every column ring on the row's share,
// then all-gather back along the columns and finally along the rows. Each
// core sends and receives 2(n-1)/n of the buffer, as a 1-D ring would, but
// with 2(rows + cols - 2) latency steps instead of 2(n - 1).
//
// After the row phase the core in grid column b holds row part (b+1) % cols
// of its row's sum; the column phase splits that part again, so the core at
// grid row a then holds sub-part (a+1) % rows of it summed over the team.
// In place is safe because every write to a core's output runs on its own
// stream and, before each all-gather phase overwrites parts a neighbour
// read in the matching reduce-scatter phase, the core waits for that
// neighbour to finish the phase.
#include <vector>

#include "algorithms.h"
#include "torus_algorithm.h"
#include "strata/sdk/types.h"

namespace strata::tpu_sim {
namespace {

class AllReduceTorusOp final : public TorusOperation {
 public:
  using TorusOperation::TorusOperation;

 private:
  void schedule() override {
    if (count() == 0) return;
    const Range all{0, count()};
    if (n() == 1) {
      if (!in_place()) pull(0, out(0), in(0), 0, count() * elem());
      return;
    }
    const TeamGrid& g = grid();
    const int rows = g.rows();
    const int cols = g.cols();
    std::vector<std::vector<int>> row_rings(static_cast<size_t>(rows));
    std::vector<std::vector<int>> col_rings(static_cast<size_t>(cols));
    for (int a = 0; a < rows; ++a) {
      for (int b = 0; b < cols; ++b) {
        row_rings[static_cast<size_t>(a)].push_back(g.replica(a, b));
        col_rings[static_cast<size_t>(b)].push_back(g.replica(a, b));
      }
    }
    // Column b's share after the row phase (the whole buffer with one column).
    auto row_part = [&](int b) { return slice(all, elem(), (b + 1) % cols, cols); };
    for (const auto& ring : row_rings) ring_reduce_scatter(ring, all, false, rows == 1);
    for (int b = 0; b < cols; ++b) {
      ring_reduce_scatter(col_rings[static_cast<size_t>(b)], row_part(b),
                          /*partials=*/cols > 1, true);
    }
    for (int b = 0; b < cols && rows > 1; ++b) {
      const auto& ring = col_rings[static_cast<size_t>(b)];
      for (size_t i = 0; i < ring.size(); ++i) wait_for(ring[i], ring[(i + 1) % ring.size()]);
      ring_all_gather(ring, 1, [&, b](int p) {
        return std::vector<Range>{slice(row_part(b), elem(), p, rows)};
      });
    }
    for (const auto& ring : row_rings) {
      if (cols < 2) break;
      for (size_t i = 0; i < ring.size(); ++i) wait_for(ring[i], ring[(i + 1) % ring.size()]);
      ring_all_gather(ring, 1, [&](int p) { return std::vector<Range>{slice(all, elem(), p, cols)}; });
    }
  }
};

class AllReduceTorus final : public TorusAlgorithm {
 public:
  explicit AllReduceTorus(Slice slice)
      : TorusAlgorithm(slice, "torus", STRATA_ALL_REDUCE,
                       "2-D ring on the torus: reduce-scatter along rows then columns, "
                       "all-gather back along columns then rows") {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    return std::make_unique<AllReduceTorusOp>(torus(team), call);
  }

 protected:
  double model(const TorusCostModel& m, const TeamGrid& grid,
               const strata_call_desc_t& call) const override {
    return m.all_reduce(grid, call.count * sdk::dtype_size(call.dtype));
  }
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_all_reduce_torus(Slice slice) {
  return std::make_unique<AllReduceTorus>(slice);
}

}  // namespace strata::tpu_sim
