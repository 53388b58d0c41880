// The memory bound strata-mpi-bench prints as %bound: the least time a
// collective between processes of one host can take, given the bytes it
// must move through memory and the copy bandwidth the host gives all ranks
// at once, measured in the same run. Derivation and assumptions:
// docs/performance/shm.md, "The memory bound".
#ifndef STRATA_TOOLS_MPI_BENCH_MEMORY_BOUND_H_
#define STRATA_TOOLS_MPI_BENCH_MEMORY_BOUND_H_

#include <cstdint>

#include "tools/mpi_bench/bench_collective.h"

namespace strata {

// Bytes read plus bytes written in memory by all ranks together, at least,
// for one call of `bytes` (nccl-tests' size) through a shared segment:
//   all_reduce (5p - 2) S;  broadcast and all_gather 2p S in place,
//   (2p + 1) S out of place.  0 for one rank (nothing to bound).
double bound_traffic_bytes(BenchOp op, uint64_t bytes, int world, bool in_place);
// That formula as text, for the run's header: "(5p - 2) S".
const char* bound_formula(BenchOp op, bool in_place);

// The least any transport moves: every byte a rank takes in read once
// where it lies and written once where it goes (vader's kernel copy, shm's
// mapped algorithms), nothing staged:
//   all_reduce 2p S;  broadcast and all_gather 2(p - 1) S in place,
//   2p S out of place.  0 for one rank.
double single_copy_traffic_bytes(BenchOp op, uint64_t bytes, int world, bool in_place);
const char* single_copy_formula(BenchOp op, bool in_place);

// Every rank copies its own `bytes_per_rank` buffer at the same time
// (memcpy, like STREAM's copy), `repeats` times: the best pass's bytes read
// plus written by all ranks together per second of the pass (first start
// to last end on the host's monotonic clock). Collective over
// MPI_COMM_WORLD; every rank gets the same figure.
struct CopyBandwidth {
  double bytes_per_second = 0;  // all ranks together, reads + writes
  uint64_t bytes_per_rank = 0;
  int ranks = 0;
};
CopyBandwidth measure_copy_bandwidth(uint64_t bytes_per_rank, int repeats);

// The bound's time for one call, in seconds; 0 where there is none.
double bound_seconds(double traffic_bytes, const CopyBandwidth& copy);

}  // namespace strata

#endif  // STRATA_TOOLS_MPI_BENCH_MEMORY_BOUND_H_
