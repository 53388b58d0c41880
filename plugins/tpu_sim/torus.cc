#include "torus.h"

#include <algorithm>
#include <cstdlib>

namespace strata::tpu_sim {
namespace {

int ring_distance(int a, int b, int size) {
  const int d = std::abs(a - b);
  return std::min(d, size - d);
}

// The longest step of the ring that visits `coords` in order and closes.
int ring_hops(const std::vector<int>& coords, int size) {
  if (coords.size() < 2) return 0;
  int worst = 0;
  for (size_t k = 0; k < coords.size(); ++k) {
    worst = std::max(worst, ring_distance(coords[k], coords[(k + 1) % coords.size()], size));
  }
  return worst;
}

}  // namespace

int Torus::hops(int a, int b) const {
  return ring_distance(row_of(a), row_of(b), rows) + ring_distance(col_of(a), col_of(b), cols);
}

std::optional<TeamGrid> TeamGrid::of(const Torus& torus, std::span<const int> cores,
                                     std::string* why) {
  std::vector<int> rows;
  std::vector<int> cols;
  for (int core : cores) {
    if (core < 0 || core >= torus.cores()) {
      *why = "core " + std::to_string(core) + " is not in the " + std::to_string(torus.rows) +
             "x" + std::to_string(torus.cols) + " slice";
      return std::nullopt;
    }
    rows.push_back(torus.row_of(core));
    cols.push_back(torus.col_of(core));
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  TeamGrid g;
  g.rows_ = static_cast<int>(rows.size());
  g.cols_ = static_cast<int>(cols.size());
  if (static_cast<size_t>(g.size()) != cores.size()) {
    *why = "the team's " + std::to_string(cores.size()) + " cores span " +
           std::to_string(g.rows_) + " rows and " + std::to_string(g.cols_) +
           " columns of the torus, which is not a rectangle of cores";
    return std::nullopt;
  }
  g.at_.assign(static_cast<size_t>(g.size()), -1);
  g.pos_.assign(cores.size(), -1);
  for (size_t r = 0; r < cores.size(); ++r) {
    const auto i = std::lower_bound(rows.begin(), rows.end(), torus.row_of(cores[r])) - rows.begin();
    const auto j = std::lower_bound(cols.begin(), cols.end(), torus.col_of(cores[r])) - cols.begin();
    const auto p = static_cast<size_t>(i * g.cols_ + j);
    if (g.at_[p] >= 0) {
      *why = "core " + std::to_string(cores[r]) + " appears twice in the team";
      return std::nullopt;
    }
    g.at_[p] = static_cast<int>(r);
    g.pos_[r] = static_cast<int>(p);
  }
  g.row_hops_ = ring_hops(cols, torus.cols);
  g.col_hops_ = ring_hops(rows, torus.rows);
  return g;
}

}  // namespace strata::tpu_sim
