// The busbw "ceiling" strata-mpi-bench prints beside the memory bound: the
// rate at which every rank at once can copy data another rank has just
// written with ordinary stores, measured in the same run at each size.
//
// Why it is a yardstick for busbw: per call each rank must take in, from
// other ranks' writes, busbw x time bytes — 2(p-1)/p S for an all-reduce,
// S for each receiver of a broadcast, (p-1)/p S for an all-gather (nccl-
// tests' bus factors), and taking bytes in is at least one copy of them.
// It is not a bound: a broadcast has fewer readers than ranks, and a
// writer's streaming stores (the shm plugin's staging_choice.h) can hand
// data over faster than a peer's cache does when the two cores are far
// apart; runs have passed it both ways (docs/performance/shm.md, "The copy
// ceiling").
#ifndef STRATA_TOOLS_MPI_BENCH_PEER_COPY_H_
#define STRATA_TOOLS_MPI_BENCH_PEER_COPY_H_

#include <mpi.h>

#include <sys/types.h>

#include <cstdint>
#include <string>

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
  // The same for the kernel's single copy (CMA, process_vm_readv), which is
  // what Open MPI's vader uses for large messages: every rank at once reads
  // `bytes` its neighbour has just written in its private memory straight
  // into its own. Not a bound (a transport may stage through shared memory
  // faster): it says what vader's mechanism moves at this size in this run.
  // 0 where the kernel refuses it (cma_refusal() says why).
  double measure_cma(uint64_t bytes, int repeats);
  const std::string& cma_refusal() const { return cma_refusal_; }
  static constexpr uint64_t kSmallest = 64 * 1024;

 private:
  PeerCopyProbe() = default;
  // Times `copy` run by every rank at once after `prepare` and a barrier:
  // bytes over first start to last end, best of `repeats`.
  template <class Prepare, class Copy>
  double timed(uint64_t bytes, int repeats, Prepare prepare, Copy copy);

  MPI_Win window_ = MPI_WIN_NULL;
  MPI_Comm host_ = MPI_COMM_NULL;
  char* own_ = nullptr;        // this rank's part of the window
  char* neighbour_ = nullptr;  // rank + 1's part, mapped here
  char* private_ = nullptr;
  char* landing_ = nullptr;    // where CMA reads land
  pid_t neighbour_pid_ = 0;
  void* neighbour_private_ = nullptr;  // its private_, in its address space
  std::string cma_refusal_;
  uint64_t max_bytes_ = 0;
  int ranks_ = 1;
};

}  // namespace strata

#endif  // STRATA_TOOLS_MPI_BENCH_PEER_COPY_H_
