// Broadcast on the torus: a pipelined chain from the root along its row,
// and from every core of that row down its column. The buffer goes in
// segments (as many as the cost model finds best for the size), so while a
// core forwards segment p its successor already holds p-1: the last core
// has everything (rows + cols - 2 + segments - 1) link steps after the
// start, not (rows + cols - 2) whole-buffer transfers.
//
// Each core pulls from its parent into its own output; the root's children
// read the root's input, which is ready at post() and never written, and
// the root copies its input to its output only when out of place.
#include <vector>

#include "algorithms.h"
#include "strata/sdk/types.h"
#include "torus_algorithm.h"

namespace strata::tpu_sim {
namespace {

class BroadcastTorusOp final : public TorusOperation {
 public:
  BroadcastTorusOp(TorusTeam& team, const strata_call_t& call, int segments)
      : TorusOperation(team, call), segments_(segments) {}

 private:
  struct Hop {
    int replica;
    int parent;
  };

  // Every core but the root with its parent, parents first.
  std::vector<Hop> tree() const {
    const TeamGrid& g = grid();
    const int ra = g.row_of(root());
    const int rb = g.col_of(root());
    std::vector<Hop> hops;
    for (int k = 1; k < g.cols(); ++k) {
      hops.push_back({g.replica(ra, (rb + k) % g.cols()), g.replica(ra, (rb + k - 1) % g.cols())});
    }
    for (int k = 1; k < g.rows(); ++k) {
      for (int b = 0; b < g.cols(); ++b) {
        hops.push_back({g.replica((ra + k) % g.rows(), b), g.replica((ra + k - 1) % g.rows(), b)});
      }
    }
    return hops;
  }

  void schedule() override {
    if (count() == 0) return;
    const int from_root = root();
    if (!in_place()) pull(from_root, out(from_root), in(from_root), from_root, count() * elem());
    const std::vector<Hop> hops = tree();
    for (int p = 0; p < segments_; ++p) {
      const Range seg = slice({0, count()}, elem(), p, segments_);
      if (seg.count == 0) continue;
      const uint64_t off = seg.begin * elem();
      for (const Hop& h : hops) {
        const char* src = (h.parent == from_root ? in(from_root) : out(h.parent)) + off;
        wait_for(h.replica, h.parent);
        pull(h.replica, out(h.replica) + off, src, h.parent, seg.count * elem());
        signal(h.replica);
      }
    }
  }

  int segments_;
};

class BroadcastTorus final : public TorusAlgorithm {
 public:
  explicit BroadcastTorus(Slice slice)
      : TorusAlgorithm(slice, "torus", STRATA_BROADCAST,
                       "pipelined chain along the root's torus row, then down every column"),
        model_(TorusCostModel::of(slice.cores->options())) {}

  std::unique_ptr<sdk::Operation> create(sdk::TeamState* team, const strata_call_t& call) override {
    TorusTeam& t = torus(team);
    const int segments = model_.broadcast_segments(
        t.grid(), call.desc->count * sdk::dtype_size(call.desc->dtype), call.desc->count);
    return std::make_unique<BroadcastTorusOp>(t, call, segments);
  }

 protected:
  double model(const TorusCostModel& m, const TeamGrid& grid,
               const strata_call_desc_t& call) const override {
    const uint64_t bytes = call.count * sdk::dtype_size(call.dtype);
    return m.broadcast(grid, bytes, m.broadcast_segments(grid, bytes, call.count));
  }

 private:
  TorusCostModel model_;
};

}  // namespace

std::unique_ptr<sdk::Algorithm> make_broadcast_torus(Slice slice) {
  return std::make_unique<BroadcastTorus>(slice);
}

}  // namespace strata::tpu_sim
