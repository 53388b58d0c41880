#include "torus_cost_model.h"

#include <algorithm>
#include <cmath>

namespace strata::tpu_sim {
namespace {

// The chunks of a ring phase are a 1/k share of what the phase works on;
// the largest decides the step (slices round up to 64 bytes).
double share(double bytes, int k) { return std::ceil(bytes / k / 64.0) * 64.0; }

}  // namespace

double TorusCostModel::all_reduce(const TeamGrid& grid, uint64_t bytes) const {
  const int r = grid.rows();
  const int c = grid.cols();
  const double row_chunk = share(static_cast<double>(bytes), c);
  const double col_chunk = share(row_chunk, r);
  double t = 0;
  t += (c - 1) * step(grid.row_hops(), row_chunk, true);   // reduce-scatter, rows
  t += (r - 1) * step(grid.col_hops(), col_chunk, true);   // reduce-scatter, columns
  t += (r - 1) * step(grid.col_hops(), col_chunk, false);  // all-gather, columns
  t += (c - 1) * step(grid.row_hops(), row_chunk, false);  // all-gather, rows
  return t;
}

double TorusCostModel::all_gather(const TeamGrid& grid, uint64_t bytes) const {
  const auto b = static_cast<double>(bytes);
  return (grid.cols() - 1) * step(grid.row_hops(), b, false) +
         (grid.rows() - 1) * step(grid.col_hops(), b * grid.cols(), false);
}

double TorusCostModel::broadcast(const TeamGrid& grid, uint64_t bytes, int segments) const {
  // A row of c cores is a chain of c-1 edges, a column one of r-1; segment
  // p leaves the root p steps after the first, so the last arrives after
  // (edges + segments - 1) steps. A row edge is one link; the wrap is not
  // used by a chain.
  const int edges = (grid.cols() - 1) + (grid.rows() - 1);
  if (edges == 0) return 0;
  const double seg = share(static_cast<double>(bytes), segments);
  return (edges + segments - 1) * step(1, seg, false);
}

int TorusCostModel::broadcast_segments(const TeamGrid& grid, uint64_t bytes,
                                       uint64_t elements) const {
  const int edges = (grid.cols() - 1) + (grid.rows() - 1);
  if (edges <= 1 || bytes == 0) return 1;
  // d/dP of (E+P-1)(alpha + S beta / P) is zero at P = sqrt((E-1) S beta / alpha).
  const double best = std::sqrt((edges - 1) * static_cast<double>(bytes) * beta / alpha);
  const auto cap = static_cast<int>(std::min<uint64_t>(64, std::max<uint64_t>(1, elements)));
  return std::clamp(static_cast<int>(std::lround(best)), 1, cap);
}

}  // namespace strata::tpu_sim
