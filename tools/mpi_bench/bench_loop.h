// How strata-mpi-bench times one size: both sides' loops in interleaved
// rounds whose order alternates, each loop's time the slowest rank's.
#ifndef STRATA_TOOLS_MPI_BENCH_BENCH_LOOP_H_
#define STRATA_TOOLS_MPI_BENCH_BENCH_LOOP_H_

#include "core/collective/collective_ops.h"
#include "core/common/status.h"
#include "tools/mpi_bench/bench_collective.h"

namespace strata {

// One side: the best round's time per call (slowest rank's mean), and the
// ranks' mean processor time per call averaged over the rounds.
struct LoopCost {
  double seconds = 0;
  double user_us = 0;
  double system_us = 0;
};

struct SizeTiming {
  int iterations = 0;
  LoopCost reference, side;
  double median_ratio = 0;  // median over rounds of side / reference time
  // With a null loop: the reference timed again in the same rounds, and
  // the median over rounds of that time / the reference's: the noise the
  // side's ratio is read against, measured in the same launch and size.
  LoopCost again;
  double null_median_ratio = 0;  // 0: no null loop
};

// ~256 MiB moved per round and side, 4 to 20000 calls.
int iterations_for(uint64_t bytes);

// The side is `collective` through `ops` with `call`, or, under
// null_comparison, the reference once more; `iterations` calls per round
// and side. with_null adds a third loop per round, the reference again
// (SizeTiming::again). Collective over MPI_COMM_WORLD.
StatusOr<SizeTiming> time_both_sides(BenchCollective& collective, CollectiveOps& ops,
                                     const CallOptions& call, int rounds, int iterations,
                                     bool null_comparison, bool with_null);

}  // namespace strata

#endif  // STRATA_TOOLS_MPI_BENCH_BENCH_LOOP_H_
