// Which stores a stage writes a slot with: ordinary (cached) ones, or
// non-temporal (streaming) ones that send the lines to memory.
//
// Neither wins everywhere, and which one wins changes while a job runs. On
// the VMs we measure, the ranks' cores are sometimes close (a shared cache:
// a peer reads a staged line from it at once) and sometimes far apart: then
// overwriting a line the peer still holds from the previous chunk costs an
// exchange with its core, and a stage of 128 KiB with ordinary stores took
// 24-33 µs against 6 µs streamed, while close the two took 11-13 µs and the
// streamed lines cost the reader twice as long (docs/performance/shm.md,
// "Staging stores").
//
// So `staging: auto` (the default) measures, per op and power-of-two size
// class of calls from kSmallest bytes: the first call (page faults, cold
// buffers) is not timed, the next two are cached and the three after
// streaming (each store's estimate starts from the lower of its two: one
// preempted call cannot decide), then every call takes the store the whole
// team found faster so far, and every kExploreEvery calls two in a row try
// the other so a change of placement is seen. A call is timed only when
// the previous call of its class (same op and size: in training, the same
// bucket, so the same buffers) took the same stores: what a store costs
// depends on what that call left in the caches (the lines cached stores
// keep, or streaming stores sent away), and a cached call right after
// streaming ones took 1.4-1.7x its cost in its own wake, enough to keep the
// slower store for a whole run (docs/performance/shm.md, "Timing a store
// in its own wake"). A call's time is what this rank spent inside post,
// test and wait (not the caller's own work in between). Every rank
// publishes its estimates in its segment (StagingEstimates) and decides on
// the sum over the ranks, and all ranks make the same calls in the same
// order: so they try, and keep, the same stores (but for a call or two
// after a change, when a rank that runs ahead decides before its peers
// have learned from the last call; stores change speed, never results).
// A sample counts for at most twice the estimate it updates: a call the
// scheduler preempted (tens of times its usual time on a loaded host) must
// not make its store look slower for dozens of calls, while a real change
// is still followed within a few.
//
// Mapped calls (mapped_operation.h) stage nothing, but their copies into
// outputs choose their stores the same way, timed apart from the staging
// calls of the same op. A broadcast's or all-gather's output no peer
// reads, and streaming stores win once a call writes more than the caches
// keep: they skip reading each destination line before overwriting it
// (docs/performance/shm.md, "Output stores"); the mapped all-reduce writes
// into every rank's output, lines their owners may hold, which streaming
// stores skip taking back. The size that flips it is the
// last-level cache's share, which VMs misreport (this one's sysconf says
// 320 MiB for a 32 MiB L3), so from kSmallestOutput up it is measured,
// not computed.
#ifndef STRATA_PLUGINS_SHM_STAGING_CHOICE_H_
#define STRATA_PLUGINS_SHM_STAGING_CHOICE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "strata/abi/types.h"

namespace strata::shm {

enum class Staging { kAuto, kCached, kStreaming };

// What a call's picked stores write: slots its peers read (the staging
// algorithms), or outputs (the mapped ones).
enum class StoresInto { kSlots, kOutput };
inline constexpr int kStoresIntoKinds = 2;

// Size classes 2^16 (64 KiB) to 2^40 bytes; larger calls stage cached.
inline constexpr int kStagingFirstClass = 16;
inline constexpr int kStagingClasses = 25;

// One rank's estimates, nanoseconds per byte by what the stores write
// (StoresInto), op, size class and store ([0] cached, [1] streaming); 0:
// not measured. Written by its rank only, read by every peer (through
// std::atomic_ref, as the segment's flags).
struct StagingEstimates {
  double ns_per_byte[kStoresIntoKinds][STRATA_OP_COUNT][kStagingClasses][2];
};

class StagingChoice {
 public:
  // `own` is where this rank publishes; `team` every rank's, its own included.
  StagingChoice(Staging option, StagingEstimates* own,
                std::vector<const StagingEstimates*> team);

  // Below this a call's stages are always cached: the reader of a small
  // chunk waits for it, and a line from memory arrives later than one from
  // a cache.
  static constexpr uint64_t kSmallest = uint64_t{1} << kStagingFirstClass;
  // Below this a mapped call's copies into its output are always cached:
  // the caches hold the whole output, which the next call (or the caller)
  // finds there, and streamed copies ran 1.7-3.5x slower up to 4 MiB and
  // no faster at 8 MiB; the tries would cost that much for nothing.
  static constexpr uint64_t kSmallestOutput = uint64_t{8} << 20;
  // Every kExploreEvery calls, two calls try the store not in favour (the
  // first only clears the way for the second's timing).
  static constexpr uint64_t kExploreEvery = 32;

  // Calls 1..kSeedingCalls take cached stores, then streaming ones, before
  // the team decides (the first of the streaming ones untimed).
  static constexpr uint64_t kSeedingCalls = 5;

  struct Pick {
    bool streaming = false;
    bool timed = false;    // report the call's time to learn()
    bool trial = false;    // a try of the store not in favour: weighs more
    bool seeding = false;  // one of the first samples: the lower one counts
  };
  // For the next call of `op` whose ranks each move `bytes` of their own
  // (the size class). `output_bytes`: what a kOutput call writes into the
  // rank's output (an all-gather's p blocks; 0: `bytes`), which decides
  // against kSmallestOutput.
  Pick pick(strata_op_t op, uint64_t bytes, StoresInto into = StoresInto::kSlots,
            uint64_t output_bytes = 0);
  // The picked call kept this rank busy `ns` (post, test and wait).
  void learn(strata_op_t op, uint64_t bytes, const Pick& pick, int64_t ns,
             StoresInto into = StoresInto::kSlots);

  // The team's nanoseconds per byte for `streaming` stores (the sum over
  // the ranks that measured both); 0: not measured (for tests).
  double team_estimate(strata_op_t op, uint64_t bytes, bool streaming,
                       StoresInto into = StoresInto::kSlots) const;

 private:
  static int class_of(uint64_t bytes);  // -1: outside the classes
  static double read(const StagingEstimates& e, int into, strata_op_t op, int c, int store);

  Staging option_;
  StagingEstimates* own_;
  std::vector<const StagingEstimates*> team_;
  uint64_t calls_[kStoresIntoKinds][STRATA_OP_COUNT][kStagingClasses] = {};
  // The stores the class's previous call took (whether it streamed).
  bool last_streamed_[kStoresIntoKinds][STRATA_OP_COUNT][kStagingClasses] = {};
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_STAGING_CHOICE_H_
