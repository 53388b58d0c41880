// How `staging: auto` picks a call's stores (staging_choice.h), for a team
// of ranks whose estimates live in plain memory here (in segments in a
// job): fixed options and small calls are not timed; the first call of a
// class is not timed; the team tries both stores, keeps the faster by the
// sum of its ranks' times, tries the other two calls in a row every
// kExploreEvery (only the second timed), and follows a change either way; a store is timed only after a call that
// took it too; every rank picks the same; ops, size classes and what the
// stores write (slots or outputs) learn apart.
#include "staging_choice.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

namespace strata::shm {
namespace {

constexpr uint64_t kBytes = 1 << 20;
constexpr uint64_t kOutputBytes = StagingChoice::kSmallestOutput;

// Nanoseconds a call keeps `rank` busy with `streaming` stores, after a
// call that took `streamed_before` stores.
using Cost = std::function<int64_t(int rank, bool streaming, bool streamed_before)>;

class Team {
 public:
  explicit Team(int ranks, Staging option = Staging::kAuto)
      : estimates_(static_cast<size_t>(ranks)) {
    std::vector<const StagingEstimates*> all;
    for (auto& e : estimates_) all.push_back(&e);
    for (auto& e : estimates_) choices_.emplace_back(option, &e, all);
  }

  // Plays `calls` calls of `op` and `bytes`; every rank must pick alike.
  // Returns how many streamed.
  int play(int calls, const Cost& cost, strata_op_t op = STRATA_ALL_GATHER,
           uint64_t bytes = kBytes, StoresInto into = StoresInto::kSlots) {
    int streamed = 0;
    for (int i = 0; i < calls; ++i) {
      const bool before = streamed_before_;
      std::vector<StagingChoice::Pick> picks;
      picks.reserve(choices_.size());
      for (auto& c : choices_) picks.push_back(c.pick(op, bytes, into));
      const StagingChoice::Pick first = picks.front();
      int r = 0;
      for (const StagingChoice::Pick& p : picks) {
        EXPECT_EQ(p.streaming, first.streaming) << "rank " << r << ", call " << i;
        EXPECT_EQ(p.trial, first.trial) << "rank " << r << ", call " << i;
        choices_[static_cast<size_t>(r)].learn(op, bytes, p, cost(r, p.streaming, before), into);
        ++r;
      }
      streamed += first.streaming ? 1 : 0;
      streamed_before_ = first.streaming;
    }
    return streamed;
  }

  StagingChoice& rank(int r) { return choices_[static_cast<size_t>(r)]; }

 private:
  std::vector<StagingEstimates> estimates_;
  std::vector<StagingChoice> choices_;
  bool streamed_before_ = false;
};

Cost costs(int64_t cached, int64_t streaming) {
  return [=](int, bool s, bool) { return s ? streaming : cached; };
}

TEST(StagingChoiceTest, FixedOptionsAndSmallCallsAreNotTimed) {
  Team cached(1, Staging::kCached), streaming(1, Staging::kStreaming), automatic(1);
  for (int i = 0; i < 40; ++i) {
    EXPECT_FALSE(cached.rank(0).pick(STRATA_ALL_REDUCE, kBytes).streaming);
    EXPECT_FALSE(cached.rank(0).pick(STRATA_ALL_REDUCE, kBytes).timed);
    EXPECT_TRUE(streaming.rank(0).pick(STRATA_ALL_REDUCE, kBytes).streaming);
    EXPECT_FALSE(streaming.rank(0).pick(STRATA_ALL_REDUCE, kBytes).timed);
    const auto small = automatic.rank(0).pick(STRATA_ALL_REDUCE, StagingChoice::kSmallest - 1);
    EXPECT_FALSE(small.streaming) << "a small chunk's reader would wait for memory";
    EXPECT_FALSE(small.timed);
  }
}

TEST(StagingChoiceTest, TheFirstCallIsNotTimedThenBothAreTriedThenTheFasterKept) {
  Team team(2);
  const auto first = team.rank(0).pick(STRATA_BROADCAST, kBytes);
  EXPECT_FALSE(first.timed) << "page faults and cold buffers are not what stores cost";
  team.rank(1).pick(STRATA_BROADCAST, kBytes);
  // Calls 1-2 are cached, 3-5 streaming; cached is faster: of the 62 calls
  // 1..62, only calls 3-5 and the two tries at 32 and 33 stream.
  EXPECT_EQ(team.play(62, costs(1000, 3000), STRATA_BROADCAST), 5);
}

TEST(StagingChoiceTest, AWarmUpOutlierOnTheFirstCallDoesNotDecide) {
  Team team(2);
  // Were call 0 timed, its 10x would make cached look slower for long.
  team.play(1, costs(10000, 1200));
  EXPECT_EQ(team.play(40, costs(1000, 1200)), 5) << "streamed: calls 3-5 and the tries at 32-33";
}

TEST(StagingChoiceTest, APreemptedFirstSampleDoesNotDecide) {
  Team team(2);
  team.play(1, costs(1000, 3000));  // call 0: not timed
  // Call 1, cached, 100x its usual time; call 2's sample, the lower,
  // seeds cached's estimate.
  team.play(1, costs(100000, 3000));
  EXPECT_EQ(team.play(40, costs(1000, 3000)), 5) << "streamed: calls 3-5 and the tries at 32-33";
}

TEST(StagingChoiceTest, TheTeamFollowsAChangeEitherWay) {
  Team team(2);
  team.play(40, costs(1000, 3000));
  // The cores moved apart: cached now takes 5x as long. The store in use is
  // timed every call and its estimate grows by up to a quarter a call (a
  // sample counts for at most twice it), so the team streams within six.
  EXPECT_GE(team.play(40, costs(5000, 3000)), 33);
  // They moved back: streaming, now in use, slows to 3000 while cached is
  // 1000 again, which only the tries show; after the try at 96-97 the team
  // stages cached.
  team.play(48, costs(1000, 3000));
  EXPECT_LE(team.play(32, costs(1000, 3000)), 2) << "only the tries stream";
}

TEST(StagingChoiceTest, OnePreemptedCallDoesNotFlipTheChoice) {
  Team team(2);
  team.play(20, costs(1000, 3000));
  // One call 100x its usual time (the scheduler took the core): counted
  // as 2x, it leaves cached ahead, so only the tries at 32-33 stream.
  team.play(1, costs(100000, 3000));
  EXPECT_EQ(team.play(19, costs(1000, 3000)), 2);
}

TEST(StagingChoiceTest, EachStoreIsTimedAfterACallThatTookItToo) {
  // Streaming is the faster store in a row of its own calls (1000 against
  // cached's 2000), but a streaming call right after a cached one takes
  // 4000 (it writes back the lines the cached call left dirty). Timed
  // after the other store's calls, as alternating tries would, streaming
  // looks slower and cached is kept for good.
  Team team(2);
  const Cost in_its_own_wake = [](int, bool streaming, bool streamed_before) -> int64_t {
    if (streaming) return streamed_before ? 1000 : 4000;
    return streamed_before ? 2500 : 2000;
  };
  team.play(6, in_its_own_wake);  // calls 0-5: the seeding
  EXPECT_GE(team.play(64, in_its_own_wake), 60) << "cached only on the tries at 32-33 and 64-65";
  EXPECT_LT(team.rank(0).team_estimate(STRATA_ALL_GATHER, kBytes, true),
            team.rank(0).team_estimate(STRATA_ALL_GATHER, kBytes, false) / 1.5);
}

TEST(StagingChoiceTest, AStoreNeverLearnedIsMeasuredNext) {
  // Every streaming call of the seeding failed (a failed call is never
  // learned from): with no figure for it, the rank streams until it has one.
  Team team(1);
  for (int call = 0; call <= 5; ++call) {
    const auto p = team.rank(0).pick(STRATA_ALL_GATHER, kBytes);
    if (!p.streaming) team.rank(0).learn(STRATA_ALL_GATHER, kBytes, p, 1000);
  }
  // Call 6 streams, timed: call 5 streamed too.
  const auto next = team.rank(0).pick(STRATA_ALL_GATHER, kBytes);
  EXPECT_TRUE(next.streaming && next.timed);
  team.rank(0).learn(STRATA_ALL_GATHER, kBytes, next, 3000);
  EXPECT_GT(team.rank(0).team_estimate(STRATA_ALL_GATHER, kBytes, true), 0);
  EXPECT_FALSE(team.rank(0).pick(STRATA_ALL_GATHER, kBytes).streaming) << "cached is faster";
}

TEST(StagingChoiceTest, SmallOutputsAreAlwaysCachedAndNotTimed) {
  Team team(1);
  for (int i = 0; i < 40; ++i) {
    const auto small =
        team.rank(0).pick(STRATA_ALL_GATHER, StagingChoice::kSmallestOutput - 1, StoresInto::kOutput);
    EXPECT_FALSE(small.streaming) << "call " << i;
    EXPECT_FALSE(small.timed) << "call " << i;
  }
  // A mapped all-gather's block under the cut, whose output of 4 blocks
  // reaches it, is timed (from the class's second call).
  const uint64_t block = StagingChoice::kSmallestOutput / 4;
  team.rank(0).pick(STRATA_ALL_GATHER, block, StoresInto::kOutput, 4 * block);
  EXPECT_TRUE(team.rank(0).pick(STRATA_ALL_GATHER, block, StoresInto::kOutput, 4 * block).timed);
  // The same size staged into slots is timed and tried both ways (calls
  // 1-2 cached, 3-4 streaming).
  EXPECT_EQ(team.play(5, costs(1000, 3000), STRATA_ALL_GATHER, StagingChoice::kSmallestOutput - 1,
                      StoresInto::kSlots),
            2);
}

TEST(StagingChoiceTest, RanksDecideOnTheTeamsSumAndPickAlike) {
  Team team(2);
  // Rank 0 alone would stream (cached 1100 > 1000), rank 1 would not
  // (cached 1000 < 3000): the sum says cached, for both.
  const Cost mixed = [](int rank, bool streaming, bool) -> int64_t {
    if (rank == 0) return streaming ? 1000 : 1100;
    return streaming ? 3000 : 1000;
  };
  EXPECT_EQ(team.play(40, mixed), 5);
  EXPECT_LT(team.rank(0).team_estimate(STRATA_ALL_GATHER, kBytes, false),
            team.rank(0).team_estimate(STRATA_ALL_GATHER, kBytes, true));
}

TEST(StagingChoiceTest, OpsAndSizeClassesLearnApart) {
  Team team(2);
  team.play(20, costs(1000, 3000), STRATA_ALL_REDUCE);            // cached wins
  team.play(20, costs(3000, 1000), STRATA_ALL_GATHER);            // streaming wins
  team.play(20, costs(3000, 1000), STRATA_ALL_REDUCE, 8 * kBytes);  // streaming wins
  for (int r = 0; r < 2; ++r) {
    EXPECT_FALSE(team.rank(r).pick(STRATA_ALL_REDUCE, kBytes + 1).streaming)
        << "1 MiB + 1 is in 1 MiB's class";
    EXPECT_TRUE(team.rank(r).pick(STRATA_ALL_GATHER, kBytes).streaming);
    EXPECT_TRUE(team.rank(r).pick(STRATA_ALL_REDUCE, 8 * kBytes).streaming);
  }
}

TEST(StagingChoiceTest, SlotsAndOutputsOfOneOpLearnApart) {
  // A job may run the staging and the mapped broadcast (ordinary and
  // shm_host buffers): what suits a slot its peers read says nothing about
  // a copy into the rank's own output.
  Team team(2);
  team.play(20, costs(1000, 3000), STRATA_BROADCAST, kOutputBytes, StoresInto::kSlots);
  team.play(20, costs(3000, 1000), STRATA_BROADCAST, kOutputBytes, StoresInto::kOutput);
  for (int r = 0; r < 2; ++r) {
    EXPECT_FALSE(team.rank(r).pick(STRATA_BROADCAST, kOutputBytes, StoresInto::kSlots).streaming);
    EXPECT_TRUE(team.rank(r).pick(STRATA_BROADCAST, kOutputBytes, StoresInto::kOutput).streaming);
  }
  EXPECT_LT(team.rank(0).team_estimate(STRATA_BROADCAST, kOutputBytes, true, StoresInto::kOutput),
            team.rank(0).team_estimate(STRATA_BROADCAST, kOutputBytes, false, StoresInto::kOutput));
}

}  // namespace
}  // namespace strata::shm
