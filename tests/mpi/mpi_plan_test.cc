// The point-to-point plans behind mpi/all_reduce/native, run by a simulator
// instead of MPI: every rank's steps in order, sends delivered in FIFO order
// per (sender, receiver) as MPI guarantees, each receive checked for its
// size. Every team size from 2 to 9, counts around the team size, every
// operator, in place and out of place: the outputs must equal the reference
// and be bitwise equal on every rank.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <numeric>
#include <vector>

#include "mpi_algorithm.h"
#include "mpi_team.h"
#include "mpi_transport.h"
#include "p2p_schedule.h"
#include "strata/sdk/host_kernels.h"

namespace strata::mpi {
namespace {

struct Rank {
  std::vector<int32_t> in, out, tmp;
  std::vector<Step> steps;
  size_t next = 0;
  bool sent = false;      // the current step's send is delivered
  bool received = false;  // the current step's receive has landed
};

using Wire = std::map<std::pair<int, int>, std::deque<std::vector<std::byte>>>;

void send(Wire& wire, int from_rank, const Step& s) {
  const auto* from = static_cast<const std::byte*>(s.send_buf);
  wire[{from_rank, s.send_to}].emplace_back(from, from + s.send_bytes);
}

// Lands the step's message if one is queued; false when none is (yet).
bool receive(Wire& wire, int r, size_t index, const Step& s, std::string& why) {
  auto& queue = wire[{s.recv_from, r}];
  if (queue.empty()) return false;
  if (static_cast<int>(queue.front().size()) != s.recv_bytes) {
    why = "rank " + std::to_string(r) + " step " + std::to_string(index) + " expects " +
          std::to_string(s.recv_bytes) + " bytes, got " + std::to_string(queue.front().size());
    return false;
  }
  std::memcpy(s.recv_buf, queue.front().data(), queue.front().size());
  queue.pop_front();
  return true;
}

// Runs every rank's plan to the end; false on a deadlock or size mismatch.
// Like ScheduleOperation, a rank posts the next step before reducing when
// can_post_early() allows it, and the simulator takes the harshest timing
// for that: the early send reads its buffer at once, and an early receive
// lands before the reduction whenever its message is already there.
bool simulate(std::vector<Rank>& ranks, std::string& why) {
  const int p = static_cast<int>(ranks.size());
  Wire wire;
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < p; ++r) {
      Rank& me = ranks[static_cast<size_t>(r)];
      if (me.next == me.steps.size()) continue;
      const Step& s = me.steps[me.next];
      if (s.send_to >= 0 && !me.sent) {
        send(wire, r, s);
        me.sent = true;
        progress = true;
      }
      if (s.recv_from >= 0 && !me.received) {
        if (!receive(wire, r, me.next, s, why)) {
          if (!why.empty()) return false;
          continue;
        }
      }
      bool next_sent = false, next_received = false;
      if (me.next + 1 < me.steps.size() && can_post_early(me.steps[me.next + 1], s, 4)) {
        const Step& n = me.steps[me.next + 1];
        if (n.send_to >= 0) {
          send(wire, r, n);
          next_sent = true;
        }
        if (n.recv_from >= 0) {
          next_received = receive(wire, r, me.next + 1, n, why);
          if (!why.empty()) return false;
        }
      }
      if (s.dst != nullptr) {
        const void* const srcs[2] = {s.a, s.b};
        sdk::reduce_host(STRATA_I32, s.op, s.dst, srcs, 2, s.count, static_cast<uint32_t>(p));
      }
      ++me.next;
      me.sent = next_sent;
      me.received = next_received;
      progress = true;
    }
  }
  for (int r = 0; r < p; ++r) {
    if (ranks[static_cast<size_t>(r)].next != ranks[static_cast<size_t>(r)].steps.size()) {
      why = "deadlock: rank " + std::to_string(r) + " stuck at step " +
            std::to_string(ranks[static_cast<size_t>(r)].next);
      return false;
    }
  }
  return true;
}

int32_t reference(strata_redop_t op, const std::vector<int32_t>& column) {
  bool first = true;
  int64_t acc = 0;
  for (const int32_t x : column) {
    const int64_t v = x;
    if (first) {
      acc = v;
      first = false;
      continue;
    }
    if (op == STRATA_PROD) acc *= v;
    else if (op == STRATA_MIN) acc = std::min(acc, v);
    else if (op == STRATA_MAX) acc = std::max(acc, v);
    else acc += v;
  }
  if (op == STRATA_MEAN) acc /= static_cast<int64_t>(column.size());  // truncates toward zero
  return static_cast<int32_t>(acc);
}

using Kind = ScheduleOperation::Kind;

std::string kind_name(Kind kind) {
  switch (kind) {
    case Kind::kRing: return "Ring";
    case Kind::kHalvingDoubling: return "HalvingDoubling";
    default: return "RecursiveDoubling";
  }
}

void check_plan(Kind kind, uint64_t chunk, int p, uint64_t count, strata_redop_t op,
                bool in_place) {
  const bool ring = kind == Kind::kRing;
  SCOPED_TRACE(kind_name(kind) + ", chunk " + std::to_string(chunk) +
               std::string(" p=") + std::to_string(p) +
               " count=" + std::to_string(count) + " op=" + std::to_string(op) +
               (in_place ? " in place" : " out of place"));
  std::vector<Rank> ranks(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    Rank& me = ranks[static_cast<size_t>(r)];
    me.in.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      // Small values: PROD of nine ranks stays far inside int32.
      me.in[i] = static_cast<int32_t>((static_cast<int>(i) * 7 + r * 3) % 5) - 2;
    }
    me.out.assign(count, 1000);
    me.tmp.assign(ring ? ring_scratch_bytes(count, 4, p, chunk) / 4 : count, -77);
    PlanInput plan{.rank = r, .size = p, .in = me.in.data(),
                   .out = in_place ? me.in.data() : me.out.data(), .tmp = me.tmp.data(),
                   .count = count, .elem = 4, .op = op, .chunk_elements = chunk};
    if (ring) plan_ring(plan, me.steps);
    else if (kind == Kind::kHalvingDoubling) plan_halving_doubling(plan, me.steps);
    else plan_recursive_doubling(plan, me.steps);
  }
  std::vector<std::vector<int32_t>> inputs;
  for (const Rank& me : ranks) inputs.push_back(me.in);
  std::string why;
  ASSERT_TRUE(simulate(ranks, why)) << why;
  for (uint64_t i = 0; i < count; ++i) {
    std::vector<int32_t> column;
    for (const auto& in : inputs) column.push_back(in[i]);
    const int32_t want = reference(op, column);
    for (int r = 0; r < p; ++r) {
      const Rank& me = ranks[static_cast<size_t>(r)];
      const int32_t got = in_place ? me.in[i] : me.out[i];
      ASSERT_EQ(got, want) << "rank " << r << " element " << i;
    }
  }
}

// (plan, chunk elements): recursive doubling, the ring whole, the ring in
// chunks of 3 (blocks of 1000/p elements end in a short chunk, and
// neighbouring blocks may have different chunk counts), halving-doubling
// (folded teams of 3, 5, 6, 7, 9; blocks empty where count < p).
class PlanTest : public ::testing::TestWithParam<std::pair<Kind, uint64_t>> {};

TEST_P(PlanTest, EveryTeamSizeCountAndOperator) {
  const auto [kind, chunk] = GetParam();
  for (int p = 2; p <= 9; ++p) {
    for (const uint64_t count : {uint64_t{1}, uint64_t(p - 1), uint64_t(p), uint64_t(2 * p + 1),
                                 uint64_t(3 * p + 1), uint64_t{1000}}) {
      for (strata_redop_t op = 0; op < STRATA_REDOP_COUNT; ++op) {
        for (const bool in_place : {false, true}) check_plan(kind, chunk, p, count, op, in_place);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Schedules, PlanTest,
                         ::testing::Values(std::pair{Kind::kRecursiveDoubling, uint64_t{0}},
                                           std::pair{Kind::kRing, uint64_t{0}},
                                           std::pair{Kind::kRing, uint64_t{3}},
                                           std::pair{Kind::kHalvingDoubling, uint64_t{0}}),
                         [](const auto& param_info) {
                           return kind_name(param_info.param.first) +
                                  (param_info.param.second == 0 ? "" : "InChunks");
                         });

// Four ranks: two halvings and two doublings, each moving half of what the
// step before did, nearest partner first; the ring takes six steps for the
// same bytes.
TEST(PlanShape, FourRanksHalvingDoublingIsFourStepsOfShrinkingThenGrowingHalves) {
  std::vector<int32_t> in(8, 1), tmp(8, 0);
  std::vector<Step> steps;
  plan_halving_doubling({.rank = 1, .size = 4, .in = in.data(), .out = in.data(),
                         .tmp = tmp.data(), .count = 8, .elem = 4, .op = STRATA_MEAN}, steps);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].send_to, 0);
  EXPECT_EQ(steps[0].send_bytes, 16);
  EXPECT_EQ(steps[0].op, STRATA_SUM);  // a partial sum: MEAN divides once, at the end
  EXPECT_EQ(steps[1].send_to, 3);
  EXPECT_EQ(steps[1].send_bytes, 8);
  EXPECT_EQ(steps[1].op, STRATA_MEAN);  // the last halving finishes this rank's block
  EXPECT_EQ(steps[2].send_to, 3);
  EXPECT_EQ(steps[2].send_bytes, 8);
  EXPECT_EQ(steps[2].dst, nullptr);  // all-gather steps only move bytes
  EXPECT_EQ(steps[3].send_to, 0);
  EXPECT_EQ(steps[3].send_bytes, 16);
}

TEST(PlanShape, TwoRanksRecursiveDoublingIsOneExchange) {
  int32_t in = 1, out = 0, tmp = 0;
  std::vector<Step> steps;
  plan_recursive_doubling({.rank = 0, .size = 2, .in = &in, .out = &out, .tmp = &tmp,
                           .count = 1, .elem = 4},
                          steps);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].send_to, 1);
  EXPECT_EQ(steps[0].recv_from, 1);
}

TEST(PlanShape, RingHasTwoPMinusOneSteps) {
  std::vector<int32_t> in(100), out(100), tmp(25);
  std::vector<Step> steps(9);  // replaced, not appended to
  plan_ring({.rank = 2, .size = 4, .in = in.data(), .out = out.data(), .tmp = tmp.data(),
             .count = 100, .elem = 4},
            steps);
  EXPECT_EQ(steps.size(), 6u);
  EXPECT_EQ(ring_scratch_bytes(100, 4, 4, 0), 100u);
  EXPECT_EQ(ring_scratch_bytes(101, 4, 4, 0), 104u);
  EXPECT_EQ(ring_scratch_bytes(101, 4, 4, 10), 80u);  // two slots: blocks of 26 in chunks
  EXPECT_EQ(ring_scratch_bytes(101, 4, 4, 26), 104u);  // one chunk per block: one slot
}

TEST(PlanShape, AChunkIsPostedEarlyOnlyWhenItDoesNotTouchTheReduction) {
  std::vector<int32_t> in(1000), tmp(2 * 50);
  std::vector<Step> steps;
  plan_ring({.rank = 0, .size = 2, .in = in.data(), .out = in.data(), .tmp = tmp.data(),
             .count = 1000, .elem = 4, .chunk_elements = 50},
            steps);
  // Reduce-scatter: 10 chunks of block 1, then the all-gather of block 0.
  ASSERT_EQ(steps.size(), 11u);
  for (size_t i = 0; i + 2 < steps.size(); ++i) {
    EXPECT_NE(steps[i].b, steps[i + 1].b) << "chunks alternate scratch slots";
    EXPECT_TRUE(can_post_early(steps[i + 1], steps[i], 4)) << "chunk " << i + 1;
  }
  // The all-gather sends the block the last chunk completes.
  EXPECT_FALSE(can_post_early(steps[10], steps[9], 4));
  // Recursive doubling sends what the previous exchange computed.
  plan_recursive_doubling({.rank = 0, .size = 4, .in = in.data(), .out = in.data(),
                           .tmp = tmp.data(), .count = 10, .elem = 4},
                          steps);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_FALSE(can_post_early(steps[1], steps[0], 4));
}

// 2 ranks, vader's default eager limit (the team's 4096 - 64): a payload
// that just misses it goes round the ring, whose 2 KiB halves travel
// eagerly, instead of one recursive-doubling exchange that waits for a
// handshake. Larger teams keep recursive doubling (the ring's extra steps
// cost more there).
TEST(ScheduleChoice, PairsTakeTheRingWhereOnlyItsHalvesAreEager) {
  using S = AllReduceSchedule;
  const MpiOptions o;  // eager_bytes unset: the team's; ring_bytes 64 KiB
  const uint64_t team = 4032;
  EXPECT_EQ(all_reduce_schedule(o, 8, 2, team), S::kRecursiveDoubling);
  EXPECT_EQ(all_reduce_schedule(o, 4032, 2, team), S::kRecursiveDoubling);
  EXPECT_EQ(all_reduce_schedule(o, 4096, 2, team), S::kRing);
  EXPECT_EQ(all_reduce_schedule(o, 8064, 2, team), S::kRing);
  EXPECT_EQ(all_reduce_schedule(o, 8065, 2, team), S::kRecursiveDoubling);  // 4033-byte blocks
  EXPECT_EQ(all_reduce_schedule(o, 4096, 3, team), S::kRecursiveDoubling);
  EXPECT_EQ(all_reduce_schedule(o, 4096, 4, team), S::kRecursiveDoubling);
  EXPECT_EQ(all_reduce_schedule(o, 64 * 1024, 2, team), S::kRing);
  // A team whose limit is unknown (across hosts, other MPIs) has no rule.
  EXPECT_EQ(all_reduce_schedule(o, 4096, 2, 0), S::kRecursiveDoubling);
  // A raised limit moves the band: 8 KiB is eager, 16 KiB's halves are.
  EXPECT_EQ(all_reduce_schedule(o, 8192, 2, 16320), S::kRecursiveDoubling);
  EXPECT_EQ(all_reduce_schedule(o, 16384, 2, 16320), S::kRing);
  MpiOptions no_eager;
  no_eager.eager_bytes = 0;  // the option wins: the rule off, only ring_bytes decides
  EXPECT_EQ(all_reduce_schedule(no_eager, 4096, 2, team), S::kRecursiveDoubling);
  MpiOptions set;
  set.eager_bytes = 8000;  // the option wins over the team's limit
  EXPECT_EQ(all_reduce_schedule(set, 4096, 2, team), S::kRecursiveDoubling);
  EXPECT_EQ(all_reduce_schedule(set, 8192, 2, team), S::kRing);
  // Teams of 4, 8, ...: halving-doubling from ring_bytes to 2 MiB, then the
  // ring; other sizes the ring (folding costs whole buffers).
  EXPECT_EQ(all_reduce_schedule(o, 64 * 1024, 4, team), S::kHalvingDoubling);
  EXPECT_EQ(all_reduce_schedule(o, (2 << 20) - 4, 8, team), S::kHalvingDoubling);
  EXPECT_EQ(all_reduce_schedule(o, 2 << 20, 4, team), S::kRing);
  EXPECT_EQ(all_reduce_schedule(o, 1 << 20, 3, team), S::kRing);
  EXPECT_EQ(all_reduce_schedule(o, 1 << 20, 6, team), S::kRing);
  MpiOptions no_hd;
  no_hd.halving_doubling_bytes = 0;
  EXPECT_EQ(all_reduce_schedule(no_hd, 1 << 20, 4, team), S::kRing);
  MpiOptions forced;
  forced.all_reduce = S::kRecursiveDoubling;
  EXPECT_EQ(all_reduce_schedule(forced, 4096, 2, team), S::kRecursiveDoubling);
  EXPECT_EQ(all_reduce_schedule(forced, 1 << 20, 2, team), S::kRecursiveDoubling);
}

// Every rank decides the team's limit from the same announcements.
TEST(TeamEagerBytes, OneHostTakesTheSmallestLimitLessHeadersOtherwiseNone) {
  auto at = [](const char* host, uint64_t limit) {
    Announcement a;
    a.host = host;
    a.shm_eager_limit = limit;
    return a;
  };
  EXPECT_EQ(team_eager_bytes({at("a", 4096), at("a", 4096)}), 4096 - kEagerHeaderBytes);
  EXPECT_EQ(team_eager_bytes({at("a", 4096), at("a", 8192), at("a", 16384)}),
            4096 - kEagerHeaderBytes);
  EXPECT_EQ(team_eager_bytes({at("a", 4096), at("b", 4096)}), 0u);  // a network between
  EXPECT_EQ(team_eager_bytes({at("a", 4096), at("a", 0)}), 0u);     // one could not read it
  EXPECT_EQ(team_eager_bytes({}), 0u);
}

// Ranks yield early only where the team's processes on this host outnumber
// this process's CPUs.
TEST(TeamSharesCores, CountsOnlyThisHostsProcessesAgainstTheCpus) {
  auto at = [](const char* host) {
    Announcement a;
    a.host = host;
    return a;
  };
  const std::vector<Announcement> four_here = {at("a"), at("a"), at("a"), at("a")};
  EXPECT_TRUE(team_shares_cores(four_here, "a", 2));
  EXPECT_FALSE(team_shares_cores(four_here, "a", 4));
  const std::vector<Announcement> two_hosts = {at("a"), at("a"), at("b"), at("b")};
  EXPECT_FALSE(team_shares_cores(two_hosts, "a", 2));
  EXPECT_TRUE(team_shares_cores(two_hosts, "b", 1));
}

// The announcement carries the limit to the peers, and an older peer's
// (four lines, no limit) reads as unknown.
TEST(TeamEagerBytes, AnnouncementsCarryTheLimit) {
  Announcement a;
  a.world_rank = 3;
  a.job = "job";
  a.host = "host";
  a.pid = 42;
  a.shm_eager_limit = 4096;
  EXPECT_EQ(Announcement::decode(a.encode()).shm_eager_limit, 4096u);
  EXPECT_EQ(Announcement::decode("3\njob\nhost\n42").shm_eager_limit, 0u);
}

}  // namespace
}  // namespace strata::mpi
