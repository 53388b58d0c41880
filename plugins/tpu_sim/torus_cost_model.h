// The interconnect model every tpu_sim algorithm prices itself with, and
// the one `strata explain` and AUTO rank by: alpha-beta-gamma per ring step.
// A ring step moves one chunk over one ring edge, every edge of every ring
// at once (each link carries one message per direction), so a step costs
//   alpha * hops  +  chunk_bytes * beta  (+ chunk_bytes * gamma if it reduces)
// where hops is the longest ring edge in links. docs/TPU.md derives the
// totals; with pace_links the simulated links take exactly these times.
#ifndef STRATA_PLUGINS_TPU_SIM_TORUS_COST_MODEL_H_
#define STRATA_PLUGINS_TPU_SIM_TORUS_COST_MODEL_H_

#include <cstdint>

#include "torus.h"
#include "tpu_sim_options.h"

namespace strata::tpu_sim {

struct TorusCostModel {
  double alpha = 2e-6;  // s per message per link
  double beta = 2e-11;  // s per byte on a link
  double gamma = 1e-11; // s per byte reduced

  static TorusCostModel of(const TpuSimOptions& options) {
    return {options.alpha, options.beta, options.gamma};
  }

  // One ring step over `hops` links moving `bytes`, reducing them or not.
  double step(int hops, double bytes, bool reduces) const {
    return alpha * hops + bytes * (beta + (reduces ? gamma : 0.0));
  }
  // Reduce-scatter along rows, then columns; all-gather back along columns,
  // then rows. 2(n-1)/n of the buffer crosses each core's links: optimal.
  double all_reduce(const TeamGrid& grid, uint64_t bytes) const;
  // Ring all-gather of the inputs along rows, then of whole rows along
  // columns. `bytes` is one replica's input.
  double all_gather(const TeamGrid& grid, uint64_t bytes) const;
  // A pipelined chain along the root's row, then down every column, in
  // `segments` pieces.
  double broadcast(const TeamGrid& grid, uint64_t bytes, int segments) const;
  // The segment count that minimises broadcast() (deterministic: selection
  // and scheduling must agree on every rank).
  int broadcast_segments(const TeamGrid& grid, uint64_t bytes, uint64_t elements) const;
};

}  // namespace strata::tpu_sim

#endif  // STRATA_PLUGINS_TPU_SIM_TORUS_COST_MODEL_H_
