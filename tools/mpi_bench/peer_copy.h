// The busbw ceiling strata-mpi-bench prints beside the memory bound: the
// rate at which every rank at once can copy data another rank has just
// written, measured in the same run at each size.
//
// Why it bounds busbw for any transport through shared memory, one copy or
// more: per call each rank must take in, from other ranks' writes, at
// least busbw x time bytes — 2(p-1)/p S for an all-reduce (Patarasuk and
// Yuan's bound; reading every peer's whole input instead is (p-1) S, no
// less), S for each receiver of a broadcast, (p-1)/p S for an all-gather:
// nccl-tests' bus factors are those volumes. Taking bytes in is at best
// one copy of them from the writer's cache or memory, which is what this
// times. Open MPI's vader with CMA makes exactly that one copy, so where
// twice its busbw is above the ceiling no transport of this host can be
// twice as fast (docs/performance/shm.md, "The copy ceiling").
#ifndef STRATA_TOOLS_MPI_BENCH_PEER_COPY_H_
#define STRATA_TOOLS_MPI_BENCH_PEER_COPY_H_

#include <mpi.h>

#include <cstdint>

#include "core/common/status.h"

namespace strata {

class PeerCopyProbe {
 public:
  // A shared window of `max_bytes` per rank (MPI_Win_allocate_shared over
  // the ranks of this host; collective over MPI_COMM_WORLD, which must be
  // one host) and a private buffer as large.
  static StatusOr<PeerCopyProbe> create(uint64_t max_bytes);
  PeerCopyProbe(PeerCopyProbe&& other) noexcept;
  PeerCopyProbe& operator=(PeerCopyProbe&&) = delete;
  PeerCopyProbe(const PeerCopyProbe&) = delete;
  ~PeerCopyProbe();

  // Bytes per second one rank takes in while every rank copies `bytes`
  // its neighbour (rank + 1) has just written, best of `repeats` passes
  // (from the first rank's start to the last one's end). Collective; every
  // rank gets the same figure. 0 below kSmallest, where the barrier's skew
  // would be most of what is timed.
  double measure(uint64_t bytes, int repeats);
  static constexpr uint64_t kSmallest = 64 * 1024;

 private:
  PeerCopyProbe() = default;

  MPI_Win window_ = MPI_WIN_NULL;
  MPI_Comm host_ = MPI_COMM_NULL;
  char* own_ = nullptr;        // this rank's part of the window
  char* neighbour_ = nullptr;  // rank + 1's part, mapped here
  char* private_ = nullptr;
  uint64_t max_bytes_ = 0;
  int ranks_ = 1;
};

}  // namespace strata

#endif  // STRATA_TOOLS_MPI_BENCH_PEER_COPY_H_
