#include "shm_operation.h"

#include <sched.h>

#include <algorithm>

#include "peer_liveness.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/host_copy.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"

namespace strata::shm {
namespace {

using Clock = std::chrono::steady_clock;

// The first look at the peers after this much waiting, then this often:
// a call whose peers keep up never makes a system call.
constexpr auto kFirstCheck = std::chrono::milliseconds(2);
constexpr auto kCheckEvery = std::chrono::milliseconds(5);

// The longest sleep: the peer waited for is looked at (/proc) in between.
constexpr auto kLongestSleep = std::chrono::milliseconds(2);
constexpr int kLooksPerClockRead = 16;

const char* flag_verb(Flag flag) {
  switch (flag) {
    case Flag::kStaged: return "stage its input for";
    case Flag::kReduced: return "reduce its slice of";
    case Flag::kDone: return "finish its part of";
    case Flag::kAttached: return "attach for";
  }
  return "reach";
}

}  // namespace

Slice slice_of(uint64_t n, size_t elem, int parts, int j) {
  const uint64_t unit = std::max<uint64_t>(1, 64 / elem);
  const uint64_t units = (n + unit - 1) / unit;
  const auto p = static_cast<uint64_t>(parts);
  const auto at = [&](uint64_t k) { return std::min(n, unit * (units * k / p)); };
  return {at(static_cast<uint64_t>(j)), at(static_cast<uint64_t>(j) + 1)};
}

ShmOperation::ShmOperation(ShmTeam& team, const strata_call_t& call, uint64_t chunks,
                           uint64_t per_chunk)
    : team_(team), desc_(*call.desc), sequence_(call.sequence), deadline_ns_(call.deadline_ns),
      elem_(sdk::dtype_size(call.desc->dtype)),
      in_(static_cast<std::byte*>(call.inputs[0].data)),
      out_(static_cast<std::byte*>(call.outputs[0].data)), chunks_(chunks),
      per_chunk_(per_chunk) {}

void ShmOperation::post() {
  posted_ = true;
  try {
    team_.check_usable();
  } catch (const sdk::Error& e) {
    failed_code_ = e.code();
    failed_ = e.what();
    throw;
  }
  base_ = team_.chunks_run();
  staging_ = team_.staging().pick(desc_.op, desc_.count * elem_, stores_into(), output_bytes());
  // No clock read yet unless the call is timed (64 KiB or more): a small
  // call whose peers keep up ends without one (each costs 25-30 ns here,
  // a tenth of such a call).
  const int64_t entered_ns = entered();
  publish();
  published_ = true;
  advance();
  account(entered_ns);
}

void ShmOperation::account(int64_t entered_ns) {
  if (!staging_.timed || learned_) return;
  busy_ns_ += sdk::Host::now_ns() - entered_ns;
  if (!done_) return;
  learned_ = true;
  team_.staging().learn(desc_.op, desc_.count * elem_, staging_, busy_ns_, stores_into());
}

void ShmOperation::start_clock(std::chrono::steady_clock::time_point now) {
  if (clock_started_) return;
  clock_started_ = true;
  // The host clock and steady_clock need not share an epoch: carry over the
  // time left, not the absolute value.
  deadline_ = now + std::chrono::nanoseconds(std::max<int64_t>(0, deadline_ns_ - sdk::Host::now_ns()));
  next_check_ = now + kFirstCheck;
}

bool ShmOperation::look_a_while() {
  // A look at the flags is a few loads; a clock read (a vDSO call, slow
  // on a VM's clock source) costs more than a small call's hand-off:
  // look several times per clock read.
  for (int look = 0; look < kLooksPerClockRead; ++look) {
    if (advance()) return true;
    if (team_.oversubscribed()) {
      // The peer waited for may be queued behind this rank on its core.
      ::sched_yield();
    } else {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
  return false;
}

bool ShmOperation::test() {
  if (!posted_) throw sdk::Error(STRATA_FAILED_PRECONDITION, "test() before post()");
  if (failed_code_ != STRATA_OK) throw sdk::Error(failed_code_, failed_);
  const int64_t entered_ns = entered();
  const bool done = advance();
  account(entered_ns);
  if (done) return true;
  const auto now = Clock::now();
  start_clock(now);
  check_waiting(now);
  return false;
}

bool ShmOperation::wait(std::chrono::nanoseconds timeout) {
  if (!posted_) throw sdk::Error(STRATA_FAILED_PRECONDITION, "wait() before post()");
  if (failed_code_ != STRATA_OK) throw sdk::Error(failed_code_, failed_);
  const int64_t entered_ns = entered();
  const bool done = wait_until_done(timeout);
  account(entered_ns);
  return done;
}

bool ShmOperation::wait_until_done(std::chrono::nanoseconds timeout) {
  if (look_a_while()) return true;
  auto now = Clock::now();
  start_clock(now);
  const auto until = now + timeout;
  // A peer on another core raises its flag within microseconds of finishing
  // its part, and one that shares this core cannot run while this one spins:
  // spin for team().spin() (ShmOptions::spin_us), then sleep.
  auto spin_until = now + team_.spin();
  for (;;) {
    const uint64_t chunk = chunk_;
    const Phase phase = phase_;
    if (look_a_while()) return true;
    now = Clock::now();
    check_waiting(now);
    if (now >= until) return false;
    // Each wait spins afresh, then sleeps until the peer raises a flag.
    if (chunk != chunk_ || phase != phase_) spin_until = now + team_.spin();
    if (now < spin_until) continue;
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(until - now);
    const auto nap = std::min<std::chrono::nanoseconds>(left, kLongestSleep);
    const Segment& waited = team_.segment(waiting_rank_);
    if (waiting_box_) {
      waited.sleep_until_box(base_ + chunk_, waiting_value_, nap);
    } else {
      waited.sleep_until(waiting_flag_, waiting_value_, nap);
    }
  }
}

void ShmOperation::abort() {
  if (posted_ && !done_) {
    // The notice first: a peer that sees the withdrawal reads it.
    team_.mark_broken("call " + std::to_string(sequence_) + " was aborted before it finished",
                      notice_for("aborted call " + std::to_string(sequence_) +
                                 " before it finished"));
    // Not published (its post failed first): nothing to withdraw, and a
    // withdrawal of this sequence would hide the failed call's.
    if (published_) withdraw();
  }
}

bool ShmOperation::advance() {
  if (done_) return true;
  const Segment& own = team_.own();
  const uint64_t ahead = stage_ahead();
  try {
    while (chunk_ < chunks_) {
      const uint64_t count = base_ + chunk_ + 1;  // every flag's value once this chunk passes it
      if (phase_ == Phase::kStage) {
        if (stages()) {
          // What this chunk writes last held chunk count-1-ahead: every peer
          // must be done with it.
          if (count > ahead && !reached(Peers::kAll, Flag::kDone, count - ahead)) return false;
          stage(chunk_, slot(rank(), chunk_));
        }
        own.raise(Flag::kStaged, count);
        phase_ = Phase::kReduce;
      }
      if (phase_ == Phase::kReduce) {
        if (!reached(before_reduce(), Flag::kStaged, count)) return false;
        reduce(chunk_);
        own.raise(Flag::kReduced, count);
        phase_ = Phase::kGather;
      }
      if (!reached(before_gather(), Flag::kReduced, count)) return false;
      gather(chunk_);
      own.raise(Flag::kDone, count);
      phase_ = Phase::kStage;
      ++chunk_;
    }
    if (!reached(after_last(), Flag::kDone, base_ + chunks_)) return false;
  } catch (const sdk::Error& e) {
    fail(e.code(), e.what());
  }
  team_.add_chunks(chunks_);
  done_ = true;
  return true;
}

void ShmOperation::copy_with_picked_stores(std::byte* to, const std::byte* from,
                                           uint64_t bytes) const {
  if (staging_.streaming) {
    sdk::copy_host_streaming(to, from, bytes);
  } else {
    sdk::copy_host(to, from, bytes);
  }
}

bool ShmOperation::reached(Peers who, Flag flag, uint64_t value) {
  switch (who) {
    case Peers::kNone:
      return true;
    case Peers::kRoot:
    case Peers::kRootBox: {
      const int root = desc_.root;
      if (root == rank()) return true;
      const Segment& segment = team_.segment(root);
      const bool box = who == Peers::kRootBox;
      if ((box ? segment.box_count(base_ + chunk_) : segment.load(flag)) >= value) return true;
      waiting_rank_ = root;
      waiting_flag_ = flag;
      waiting_box_ = box;
      waiting_value_ = value;
      return false;
    }
    case Peers::kAll: {
      // Whether what a stage overwrites is free again (kDone, chunks back)
      // is often known from an earlier read: each read of a peer's flag
      // line is a transfer from the core that writes it.
      const bool done = flag == Flag::kDone;
      if (done && team_.peers_done_floor() >= value) return true;
      uint64_t lowest = UINT64_MAX;
      for (int peer = 0; peer < size(); ++peer) {
        if (peer == rank()) continue;
        const uint64_t seen = team_.segment(peer).load(flag);
        if (seen < value) {
          waiting_rank_ = peer;
          waiting_flag_ = flag;
          waiting_box_ = false;
          waiting_value_ = value;
          return false;
        }
        lowest = std::min(lowest, seen);
      }
      if (done) team_.set_peers_done_floor(lowest);
      return true;
    }
  }
  return true;
}

uint64_t ShmOperation::waited_for() const {
  const Segment& waited = team_.segment(waiting_rank_);
  return waiting_box_ ? waited.box_count(base_ + chunk_) : waited.load(waiting_flag_);
}

void ShmOperation::check_waiting(std::chrono::steady_clock::time_point now) {
  if (now < next_check_ || waiting_rank_ < 0) return;
  next_check_ = now + kCheckEvery;
  // "rank r", not "this rank": the text also travels in this rank's notice.
  const std::string waited = " while rank " + std::to_string(rank()) + " waited for it to " +
                             flag_verb(waiting_flag_) + " chunk " +
                             std::to_string(std::min(chunk_ + 1, chunks_)) +
                             " of " + std::to_string(chunks_);
  // A peer that left the team (a call of its failed or was aborted) says
  // why; it will raise no more flags. One that finished its part first and
  // then gave up raised them all, so only a flag still missing counts.
  const pid_t pid = team_.pid(waiting_rank_);
  // Fails naming where the failure began, and passes that on (notice_for).
  auto fail_because = [&](LeftTeam notice) {
    const std::string told = notice.describe(waiting_rank_, pid);
    blame(std::move(notice));
    fail(STRATA_PEER_FAILED, told + waited);
  };
  if (LeftTeam left = team_.segment(waiting_rank_).gave_up();
      !left.empty() && waited_for() < waiting_value_) {
    fail_because(std::move(left));
  }
  if (std::string state = peer_state(pid); !state.empty()) {
    // A rank may finish its part and exit (a broadcast's root, the last
    // call of a job) while this one still reads its segment, which stays
    // mapped here: only a flag it never raised is a failure. Its flags are
    // final now, so one more look settles it.
    if (waited_for() < waiting_value_) fail_because({waiting_rank_, pid, state});
    return;
  }
  if (now >= deadline_) {
    fail(STRATA_TIMED_OUT, rank_and_pid(waiting_rank_, pid) +
                               " is running but did not keep up by the call's deadline" + waited);
  }
}

void ShmOperation::reduce_into(std::byte* const* dsts, uint32_t num_dsts,
                               const std::byte* const* srcs, uint32_t num_srcs, uint64_t count,
                               strata_redop_t redop) const {
  if (count == 0) return;
  if (!sdk::reduce_host_multi(desc_.dtype, redop, reinterpret_cast<void* const*>(dsts), num_dsts,
                              reinterpret_cast<const void* const*>(srcs), num_srcs, count,
                              static_cast<uint32_t>(size()))) {
    throw sdk::Error(STRATA_INVALID_ARGUMENT,
                     std::string("the SDK's host kernels do not know dtype ") +
                         sdk::dtype_name(desc_.dtype) + " with operator " +
                         std::to_string(redop));
  }
}

LeftTeam ShmOperation::notice_for(const std::string& what) const {
  if (!cause_.empty()) return cause_;
  return {rank(), team_.pid(rank()), what};
}

void ShmOperation::fail(strata_status_t code, const std::string& why) {
  // Before the withdrawal, as in abort().
  team_.mark_broken(why, notice_for("failed call " + std::to_string(sequence_) + ": " + why));
  if (published_) withdraw();
  failed_code_ = code;
  failed_ = "shm " + std::string(sdk::op_name(desc_.op)) + " (" + team_.where() + ", call " +
            std::to_string(sequence_) + "): " + why;
  throw sdk::Error(failed_code_, failed_);
}

}  // namespace strata::shm
