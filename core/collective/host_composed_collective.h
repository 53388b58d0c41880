// Host composition of a team with one buffer per process whose processes
// span several hosts, several of them on some host: an intra-host step among
// the processes of each host, an inter-host step among one leader per host
// (the host's lowest process rank), and an intra-host step back — the
// hierarchical recipe of NCCL and Horovod, done for every op. Each level is
// a Team of its own, formed through the job store, and selects its own
// algorithms (AUTO or config): a shared-memory plugin serves a host's
// processes, a network one the leaders. host_hierarchy.h decides when.
//
// Results are exactly those of one flat collective: ranks keep their order
// (all_gather's blocks, reduce_scatter's slices), and MEAN is SUM then one
// division by the process count, at the leader. Hosts may hold different
// numbers of processes, and a host's ranks need not be contiguous: the
// inter-host step then moves blocks padded to the largest host, and core
// puts them in rank order.
#ifndef STRATA_CORE_COLLECTIVE_HOST_COMPOSED_COLLECTIVE_H_
#define STRATA_CORE_COLLECTIVE_HOST_COMPOSED_COLLECTIVE_H_

#include <memory>
#include <vector>

#include "core/collective/buffer.h"
#include "core/collective/packing.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

class CollectiveOps;
class Team;
struct CollectivesConfig;

class HostComposedCollective {
 public:
  // Forms this host's team (when the host has more than this process) and,
  // on a host's leader, the leaders' team. Every process of `parent` must
  // reach this together: the teams form through the job store.
  static StatusOr<std::unique_ptr<HostComposedCollective>> create(
      const Team& parent, const CollectivesConfig& config);
  ~HostComposedCollective();

  // `in` and `out` are this process's one buffer; `root` a process rank;
  // `count` the call's count (CollectiveOps' meaning).
  Status run(CollectiveKind kind, const Buffer& in, const Buffer& out, ReduceOp op, int root,
             uint64_t count, Deadline deadline);

  // The levels' own CollectiveOps, for explain: null where this process
  // has no part (alone on its host; not a leader).
  CollectiveOps* intra_host() const { return intra_.get(); }
  CollectiveOps* inter_host() const { return inter_.get(); }

 private:
  HostComposedCollective(const Team& parent, std::unique_ptr<CollectiveOps> intra,
                         std::unique_ptr<CollectiveOps> inter);

  Status all_reduce(const Buffer& in, const Buffer& out, ReduceOp op, Deadline deadline);
  Status broadcast(const Buffer& in, const Buffer& out, int root, Deadline deadline);
  Status all_gather(const Buffer& in, const Buffer& out, uint64_t count, Deadline deadline);
  Status reduce_scatter(const Buffer& in, const Buffer& out, ReduceOp op, uint64_t count,
                        Deadline deadline);
  Status reduce(const Buffer& in, const Buffer& out, ReduceOp op, int root, Deadline deadline);
  Status barrier(Deadline deadline);

  // The intra-host steps; a process alone on its host copies instead.
  Status intra_reduce(const Buffer& in, const Buffer& out, ReduceOp op, Deadline deadline);
  Status intra_broadcast(const Buffer& in, const Buffer& out, int root, Deadline deadline);
  Status intra_all_gather(const Buffer& in, const Buffer& out, Deadline deadline);
  Status copy(const Buffer& dst, const Buffer& src, Deadline deadline);
  Status divide(const Buffer& b, Deadline deadline);
  // `count` elements like `like`, on its device; one block, carved by callers.
  StatusOr<Buffer> scratch(const Buffer& like, uint64_t count);
  // Where process `rank`'s block sits in the padded host-major layout.
  uint64_t slot(int rank) const;

  const Team& parent_;
  std::unique_ptr<CollectiveOps> intra_;  // null: alone on this host
  std::unique_ptr<CollectiveOps> inter_;  // null: not this host's leader
  int host_ = 0;
  int local_index_ = 0;                  // this process within its host
  std::vector<int> local_index_of_;      // of every process rank
  int largest_ = 1;                      // processes on the largest host
  // Hosts hold `largest_` processes each, host i ranks i*largest_ ...: the
  // padded layout is rank order, so no reordering is needed.
  bool blocked_ = false;
  PackScratch scratch_;
};

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_HOST_COMPOSED_COLLECTIVE_H_
