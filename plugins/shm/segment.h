// One rank's shared segment: an anonymous memfd (nothing is named in
// /dev/shm, so nothing can outlive the job), mapped MAP_SHARED by its owner
// and by every peer, which open it through /proc/<owner pid>/fd/<fd> — the
// kernel allows that between processes of one user. The memory is freed
// when the last process that maps it exits, however it exits.
//
// Layout: a header of 64-byte lines (one flag per line, so a peer spinning
// on one flag never shares a cache line with a flag being written; then a
// box per slot), then `slots` page-aligned slots of `slot_bytes` each.
#ifndef STRATA_PLUGINS_SHM_SEGMENT_H_
#define STRATA_PLUGINS_SHM_SEGMENT_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "placement.h"
#include "staging_choice.h"

namespace strata::shm {

// "STRATAS" and the header layout's version (2: the gave-up notice), so
// ranks of builds whose headers differ refuse each other's segments.
inline constexpr uint64_t kSegmentMagic = 0x5354524154415302ull;
inline constexpr uint64_t kMaxSlots = 64;
inline constexpr size_t kBoxBytes = 56;
inline constexpr size_t kGaveUpWhyBytes = 1024;

// A chunk of at most kBoxBytes staged beside its count on one line, in a
// ring of kMaxSlots boxes (a boxed broadcast's root may run that far
// ahead of its slowest reader, as an eager sender does): a reader that polls the box finds the data on the line it was
// waiting for, one transfer from the writer's core where a flag and then a
// slot take two, one after the other.
struct alignas(64) Box {
  uint64_t count;  // the chunk count (flag value) whose data `payload` holds
  std::byte payload[kBoxBytes];
};

// Where a rank's buffers of the current mapped call lie, how many
// allocations its heap had freed then (peer_buffers.h), and the call they
// are for: a peer reads them only for the same call and shape.
struct PublishedBuffers {
  uint64_t heap_frees;
  uint64_t sequence;
  uint64_t count;
  int32_t op;
  int32_t dtype;
  Placement input;
  Placement output;
  // 1 + the sequence of the last call this rank gave up (failed or
  // aborted), 0 for none: peers write nothing more into its buffers.
  uint64_t withdrawn;
};

// The header every segment starts with. Flags are counters that only grow
// (chunks since the team formed), read and written through std::atomic_ref
// so they work across processes (lock-free 8-byte atomics are address-free).
struct SegmentHeader {
  alignas(64) uint64_t magic;  // written last by the owner, before it publishes
  uint64_t owner_pid;
  uint64_t team_id;
  uint64_t rank;
  uint64_t slots;
  uint64_t slot_bytes;
  alignas(64) uint64_t staged;   // chunks whose input this rank staged
  alignas(64) uint64_t reduced;  // chunks whose slice this rank reduced (or copied)
  alignas(64) uint64_t done;     // chunks this rank read everything it needed of
  alignas(64) uint64_t attached; // 1 once this rank mapped every peer
  // The futex peers sleep on once they have spun long enough waiting for one
  // of this rank's flags, and how many sleep: raising a flag makes a system
  // call only when someone sleeps. A woken sleeper is scheduled at once;
  // a spinner on a busy machine waits out other processes' time slices.
  alignas(64) uint32_t wake;
  uint32_t sleepers;
  Box boxes[kMaxSlots];
  // This rank's timings of its stores, for the team's choice of them.
  alignas(64) StagingEstimates staging;
  // A mapped call's buffers (mapped_operation.h), written before the
  // call's first `staged` and read by peers after it; rewritten only once
  // every peer is done with the call (but `withdrawn`, when it gives up).
  alignas(64) PublishedBuffers buffers;
  // Why this rank stopped taking part in the team (ShmTeam::mark_broken),
  // once: the rest first, then `gave_up` = 1. A peer waiting on one of its
  // flags fails at once with the reason, not at its own deadline. The
  // rank it names is where the failure began: this one, or a peer whose
  // notice made this one give up (LeftTeam).
  alignas(64) uint64_t gave_up;
  int64_t gave_up_rank;
  int64_t gave_up_pid;
  char gave_up_why[kGaveUpWhyBytes];  // NUL-terminated, cut to fit
};

// A notice of SegmentHeader::gave_up: rank `rank` (pid `pid`) `why`, a
// phrase such as "aborted call 3 before it finished" or "died".
struct LeftTeam {
  int rank = -1;  // -1: no notice
  int64_t pid = 0;
  std::string why;
  bool empty() const { return rank < 0; }
  // "rank 2 (pid 7) aborted call 3 ...", or, read through rank `via` that
  // gave up because of it, "rank 1 (pid 6) gave up after rank 2 (pid 7) ...".
  std::string describe(int via, int64_t via_pid) const;
};

enum class Flag { kStaged, kReduced, kDone, kAttached };

class Segment {
 public:
  // A new zero-filled segment for `slots` slots of `slot_bytes` (a multiple
  // of the page size). Throws sdk::Error.
  static Segment create(const std::string& name, uint64_t slots, uint64_t slot_bytes);
  // Maps the segment `fd` of process `pid`, `bytes` long, laid out as
  // `slots` x `slot_bytes` (what the owner published). Throws sdk::Error
  // carrying errno's text; the caller names the rank.
  static Segment open(pid_t pid, int fd, uint64_t slots, uint64_t slot_bytes);

  Segment() = default;
  ~Segment();
  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  static uint64_t bytes_for(uint64_t slots, uint64_t slot_bytes);

  SegmentHeader& header() const { return *reinterpret_cast<SegmentHeader*>(base_); }
  std::byte* slot(uint64_t index) const;
  uint64_t bytes() const { return bytes_; }
  int fd() const { return fd_; }
  // Every peer has its own mapping: the descriptor is no longer needed.
  void close_fd();

  uint64_t load(Flag flag) const;
  void store(Flag flag, uint64_t value) const;
  // store(), then wakes whoever sleeps on this segment.
  void raise(Flag flag, uint64_t value) const;
  // Sleeps until `flag` may have reached `value` (this segment's owner
  // raised a flag) or `timeout` passed; returns at once if it already has.
  void sleep_until(Flag flag, uint64_t value, std::chrono::nanoseconds timeout) const;

  // Chunk `index`'s box: write the payload, then fill_box() publishes it.
  std::byte* box_payload(uint64_t index) const;
  void fill_box(uint64_t index, uint64_t count) const;
  uint64_t box_count(uint64_t index) const;
  // Asks for box `index`'s line for writing now (a prefetch for
  // ownership), so that the store filling it later finds it here and does
  // not wait for the readers' copies of it to be given up.
  void claim_box(uint64_t index) const;
  // The owner's one notice that it left the team (SegmentHeader::gave_up),
  // and a peer's read of it: empty until the owner gave up.
  void give_up(const LeftTeam& notice) const;
  LeftTeam gave_up() const;
  // sleep_until() for a box's count.
  void sleep_until_box(uint64_t index, uint64_t count, std::chrono::nanoseconds timeout) const;

 private:
  uint64_t* flag(Flag f) const;
  Box& box(uint64_t index) const { return header().boxes[index % kMaxSlots]; }
  void sleep_until(uint64_t* counter, uint64_t value, std::chrono::nanoseconds timeout) const;

  std::byte* base_ = nullptr;
  uint64_t bytes_ = 0;
  uint64_t slots_ = 1;
  uint64_t slot_bytes_ = 0;
  int fd_ = -1;
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SEGMENT_H_
