// Hierarchical composition for teams of several processes with several
// local devices each, when no single algorithm covers that shape: a local
// step over this process's devices, a cross-process step over one buffer per
// process, and a local step back — TF's MultiWorkerMirrored recipe (local
// reduce → cross-process all-reduce → local broadcast), done for every op.
//
// Replicas are numbered process by process (global = process * L + local),
// so process p's block of an all-gather or reduce-scatter is contiguous.
// MEAN is composed as SUM followed by one division by the team size: a mean
// of means would truncate twice for integers.
#ifndef STRATA_CORE_COLLECTIVE_COMPOSED_COLLECTIVE_H_
#define STRATA_CORE_COLLECTIVE_COMPOSED_COLLECTIVE_H_

#include <chrono>
#include <memory>
#include <span>

#include "core/collective/buffer.h"
#include "core/collective/packing.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata {

class CollectiveOps;
class Team;
struct CollectivesConfig;

class ComposedCollective {
 public:
  // Builds the two sub-teams: this process's devices alone, and one device
  // per process (local device 0) across the job. The cross-process team
  // forms through the job store, so every rank must reach this together.
  static StatusOr<std::unique_ptr<ComposedCollective>> create(const Team& parent,
                                                              const CollectivesConfig& config);
  ~ComposedCollective();

  Status run(CollectiveKind kind, std::span<const Buffer> inputs,
             std::span<const Buffer> outputs, ReduceOp op, int root, uint64_t count,
             Deadline deadline);

  // The cross-process step's team: one device per process. It composes by
  // host itself where its hosts call for it (host_hierarchy.h).
  CollectiveOps& cross_process() const { return *cross_; }

 private:
  ComposedCollective(const Team& parent, std::unique_ptr<CollectiveOps> local,
                     std::unique_ptr<CollectiveOps> cross);

  Status all_reduce(std::span<const Buffer> in, std::span<const Buffer> out, ReduceOp op,
                    Deadline deadline);
  Status broadcast(std::span<const Buffer> in, std::span<const Buffer> out, int root,
                   Deadline deadline);
  Status all_gather(std::span<const Buffer> in, std::span<const Buffer> out, uint64_t count,
                    Deadline deadline);
  Status reduce_scatter(std::span<const Buffer> in, std::span<const Buffer> out, ReduceOp op,
                        uint64_t count, Deadline deadline);
  Status reduce(std::span<const Buffer> in, std::span<const Buffer> out, ReduceOp op, int root,
                Deadline deadline);
  Status barrier(Deadline deadline);

  // Per-device scratch of `count` elements like `like`, one per local device.
  StatusOr<std::vector<Buffer>> scratch(std::span<const Buffer> like, uint64_t count);

  const Team& parent_;
  std::unique_ptr<CollectiveOps> local_;
  std::unique_ptr<CollectiveOps> cross_;
  PackScratch scratch_;
};

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_COMPOSED_COLLECTIVE_H_
