// The size sweep that strata-ring-bench and strata-gloo-anchor share, so the
// two time and report a side the same way: a side's time at a size is the
// slowest rank's mean per call, its busbw (nccl-tests: algbw·2(n−1)/n) comes
// from its best round, and a ratio is the median of the rounds' own time
// ratios (each round times every side back to back, the figure that
// survives a machine whose speed drifts).
#ifndef STRATA_TOOLS_RING_BENCH_SWEEP_H_
#define STRATA_TOOLS_RING_BENCH_SWEEP_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/status.h"

namespace strata {

// Calls per round: ~128 MiB per side (long enough to average out scheduler
// noise), capped at ~0.2 s of `seconds_per_call` so a side that is far slower
// at this size cannot stretch a sweep to hours.
int iterations_for(uint64_t bytes, double seconds_per_call);

struct SweepRow {
  SweepRow(uint64_t bytes, int iterations, size_t sides);
  // One round's seconds per call, one per side.
  void add_round(const std::vector<double>& seconds);
  double busbw(size_t side, int world) const;
  // Median over rounds of time(of) / time(side): side's busbw as a multiple of of's.
  double ratio(size_t side, size_t of) const;

  uint64_t bytes;
  int iterations;
  std::vector<double> best;                 // per side, seconds per call
  std::vector<std::vector<double>> rounds;  // per round, per side
};

// Prints rows on rank 0 and writes them as CSV (written whole at the end,
// atomically): bytes, world, iterations, then per side <name>_us and
// <name>_busbw_gbs, then <a>_over_<b> for each ratio pair (busbw ratios).
class SweepTable {
 public:
  SweepTable(std::string csv_path, int world, std::vector<std::string> sides,
             std::vector<std::pair<size_t, size_t>> ratios, bool printing);
  void print_header() const;
  void add(const SweepRow& row);
  Status finish() const;

 private:
  std::string csv_path_;
  int world_;
  std::vector<std::string> sides_;
  std::vector<std::pair<size_t, size_t>> ratios_;
  bool printing_;
  std::string csv_;
};

}  // namespace strata

#endif  // STRATA_TOOLS_RING_BENCH_SWEEP_H_
