// One collective call through the segments, as a sequence of chunks, each in
// three phases every rank runs in the same order:
//
//   stage   write this rank's input for the chunk into its own slot (after
//           every peer is done with what that slot held `slots` chunks ago),
//           then raise `staged`;
//   reduce  once the peers it needs have staged: read their slots (reduce a
//           slice, or copy), then raise `reduced`;
//   gather  once the peers it needs have reduced: copy their results out,
//           then raise `done`.
//
// Every flag is raised for every chunk, data or not, so each counts the
// team's chunks and a wait is "flag >= chunk + 1". An algorithm is a
// subclass saying what each phase does and whom it waits for. Nothing here
// makes a system call while the peers keep up: a small call is one flag
// hand-off. Waits spin, then back off; while they do, the rank waited for is
// checked (/proc) so a dead or stopped peer fails the call, named, well
// within its deadline.
#ifndef STRATA_PLUGINS_SHM_SHM_OPERATION_H_
#define STRATA_PLUGINS_SHM_SHM_OPERATION_H_

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "segment.h"
#include "shm_team.h"
#include "staging_choice.h"
#include "strata/sdk/algorithm.h"
#include "strata/sdk/host.h"

namespace strata::shm {

// Whose flag a phase waits for: kRootBox waits for the root's box of the
// chunk (Segment::Box) instead of its `staged` flag.
enum class Peers { kNone, kRoot, kRootBox, kAll };

// Elements [begin, end) of slice `j` when `n` elements are cut into `parts`
// slices whose boundaries fall on 64-byte lines where they can.
struct Slice {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
};
Slice slice_of(uint64_t n, size_t elem, int parts, int j);

class ShmOperation : public sdk::Operation {
 public:
  // `chunks` chunks of `per_chunk` elements each (the last may be shorter);
  // 0 for an operation that moves no elements (barrier).
  ShmOperation(ShmTeam& team, const strata_call_t& call, uint64_t chunks, uint64_t per_chunk = 0);
  // How many chunks of `per_chunk` elements `count` elements take.
  static uint64_t chunks_of(uint64_t count, uint64_t per_chunk) {
    return (count + per_chunk - 1) / per_chunk;
  }

  void post() override;
  bool test() override;
  bool wait(std::chrono::nanoseconds timeout) override;
  void abort() override;

 protected:
  // Whether this rank writes its slot (in stage or reduce).
  virtual bool stages() const = 0;
  virtual void stage(uint64_t chunk, std::byte* slot) = 0;
  virtual Peers before_reduce() const = 0;
  virtual void reduce(uint64_t chunk) = 0;
  virtual Peers before_gather() const = 0;
  virtual void gather(uint64_t chunk) = 0;
  // Whose `done` for the last chunk the call waits for before it ends:
  // nobody, unless peers use this rank's own buffers (mapped algorithms).
  virtual Peers after_last() const { return Peers::kNone; }
  // Runs in post() before the first stage: a mapped call writes where its
  // buffers lie into its segment's header. Must not throw.
  virtual void publish() {}
  // Runs when this rank's call fails or is aborted before it is done: a
  // mapped call tells its peers to stop writing into its output. Must not
  // throw.
  virtual void withdraw() {}
  // What the call's copies with the team's choice of stores
  // (copy_with_picked_stores) write: each kind is timed apart
  // (staging_choice.h).
  virtual StoresInto stores_into() const { return StoresInto::kSlots; }
  // What a kOutput call writes into this rank's output, for staging_
  // choice.h's kSmallestOutput: its count's bytes, unless the algorithm
  // writes more (the mapped all-gather: p blocks).
  virtual uint64_t output_bytes() const { return desc_.count * elem_; }

  // How many chunks a stage may run ahead of the slowest peer: the slots,
  // or more for an algorithm that stages elsewhere (the boxes).
  virtual uint64_t stage_ahead() const { return team_.options().slots; }
  // Rank `rank`'s slot for this call's chunk `chunk`.
  std::byte* slot(int rank, uint64_t chunk) const {
    return team_.segment(rank).slot(base_ + chunk);
  }
  // Rank `rank`'s box for chunk `chunk` (at most kBoxBytes), and the
  // publication of this rank's own once written.
  std::byte* box(int rank, uint64_t chunk) const {
    return team_.segment(rank).box_payload(base_ + chunk);
  }
  void fill_box(uint64_t chunk) const { team_.own().fill_box(base_ + chunk, base_ + chunk + 1); }
  void claim_box(uint64_t chunk) const { team_.own().claim_box(base_ + chunk); }
  // Copies `bytes` into this rank's slot (or, mapped, an output) with the
  // stores this call's staging choice picked (staging_choice.h).
  void copy_with_picked_stores(std::byte* to, const std::byte* from, uint64_t bytes) const;
  bool streaming() const { return staging_.streaming; }
  const strata_call_desc_t& desc() const { return desc_; }
  uint64_t sequence() const { return sequence_; }
  // The call's elements [first(c), first(c) + length(c)) are chunk c.
  uint64_t first(uint64_t chunk) const { return chunk * per_chunk_; }
  uint64_t length(uint64_t chunk) const {
    return std::min(per_chunk_, desc_.count - first(chunk));
  }
  const ShmTeam& team() const { return team_; }
  ShmTeam& team() { return team_; }
  int rank() const { return team_.rank(); }
  int size() const { return team_.size(); }
  size_t elem() const { return elem_; }
  // What this rank tells its peers when it leaves the team because of
  // `what` ("failed call 3: ..."), unless blame() named a peer first.
  LeftTeam notice_for(const std::string& what) const;
  // The call is failing because of `notice`, a peer's (the next fail()
  // passes it on rather than a notice of this rank's own).
  void blame(LeftTeam notice) { cause_ = std::move(notice); }
  std::byte* in() const { return in_; }
  std::byte* out() const { return out_; }
  // Reduces `num_srcs` sources of `count` elements into each of the dsts
  // (MEAN divides by the team size); throws on a dtype or operator the SDK's
  // kernels do not know.
  void reduce_into(std::byte* const* dsts, uint32_t num_dsts, const std::byte* const* srcs,
                   uint32_t num_srcs, uint64_t count, strata_redop_t redop) const;

 private:
  enum class Phase { kStage, kReduce, kGather };
  bool advance();
  bool wait_until_done(std::chrono::nanoseconds timeout);
  // Adds the time since `entered_ns` (an entry: post, test or wait) to a
  // timed call's busy time, and reports it once the call is done.
  void account(int64_t entered_ns);
  int64_t entered() const { return staging_.timed ? sdk::Host::now_ns() : 0; }
  bool reached(Peers who, Flag flag, uint64_t value);
  void check_waiting(std::chrono::steady_clock::time_point now);
  // Sets deadline_ and next_check_ at the first clock read of the call.
  void start_clock(std::chrono::steady_clock::time_point now);
  // Looks at the flags kLooksPerClockRead times, pausing (or yielding the
  // core when oversubscribed) in between; true once the call is done.
  bool look_a_while();
  // The value of what this rank waits for now (waiting_rank_'s flag or box).
  uint64_t waited_for() const;
  [[noreturn]] void fail(strata_status_t code, const std::string& why);

  ShmTeam& team_;
  // The peer notice this call is failing because of, if any: passed on
  // as this rank's own notice, so every rank names where it began.
  LeftTeam cause_;
  strata_call_desc_t desc_;
  uint64_t sequence_;
  int64_t deadline_ns_;
  size_t elem_;
  std::byte* in_;
  std::byte* out_;
  uint64_t chunks_;
  uint64_t per_chunk_;
  uint64_t base_ = 0;
  uint64_t chunk_ = 0;
  Phase phase_ = Phase::kStage;
  bool posted_ = false;
  bool published_ = false;  // publish() ran: withdraw() has something to take back
  bool done_ = false;
  // What the last unmet wait was for, so a failure can say.
  int waiting_rank_ = -1;
  Flag waiting_flag_ = Flag::kStaged;
  bool waiting_box_ = false;  // for the box of the current chunk, not the flag
  uint64_t waiting_value_ = 0;
  bool clock_started_ = false;  // deadline_ and next_check_ are set
  StagingChoice::Pick staging_;  // how this call stages, and whether it is timed
  int64_t busy_ns_ = 0;          // a timed call's time inside post, test and wait
  bool learned_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point next_check_;
  strata_status_t failed_code_ = STRATA_OK;  // a failure is final: test() repeats it
  std::string failed_;
};

}  // namespace strata::shm

#endif  // STRATA_PLUGINS_SHM_SHM_OPERATION_H_
