// Geometry of the simulated slice and of the teams on it. Cores are
// numbered row by row: core = row * cols + col. Every core has four links,
// to its neighbours along the row and the column, with wrap-around (a
// torus), so the distance between two cores is the sum of the two ring
// distances.
//
// A team runs the 2-D algorithms on its own grid: the distinct rows and
// columns its cores occupy, which must form a full rectangle (every row
// meets every column in exactly one team core). Rows of that grid are the
// rings of the first phase, columns those of the second. A team that is not
// a rectangle is declined rather than run on a lopsided ring.
#ifndef STRATA_PLUGINS_TPU_SIM_TORUS_H_
#define STRATA_PLUGINS_TPU_SIM_TORUS_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::tpu_sim {

struct Torus {
  int rows = 1;
  int cols = 1;

  int cores() const { return rows * cols; }
  int row_of(int core) const { return core / cols; }
  int col_of(int core) const { return core % cols; }
  // Links a message crosses from core a to core b on the shortest path.
  int hops(int a, int b) const;
};

class TeamGrid {
 public:
  // The grid of `cores` (team order: replica i runs on cores[i]), or
  // nullopt with the reason in *why.
  static std::optional<TeamGrid> of(const Torus& torus, std::span<const int> cores,
                                    std::string* why);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int size() const { return rows_ * cols_; }
  // The team replica at grid position (i, j).
  int replica(int i, int j) const { return at_[static_cast<size_t>(i * cols_ + j)]; }
  int row_of(int replica) const { return pos_[static_cast<size_t>(replica)] / cols_; }
  int col_of(int replica) const { return pos_[static_cast<size_t>(replica)] % cols_; }
  // The longest neighbour-to-neighbour distance, in links, of the row rings
  // and of the column rings (the wrap of a ring that spans only part of a
  // torus dimension crosses several links): the latency of one ring step.
  int row_hops() const { return row_hops_; }
  int col_hops() const { return col_hops_; }

 private:
  int rows_ = 0;
  int cols_ = 0;
  int row_hops_ = 0;
  int col_hops_ = 0;
  std::vector<int> at_;   // grid position -> replica
  std::vector<int> pos_;  // replica -> grid position
};

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_TORUS_H_
