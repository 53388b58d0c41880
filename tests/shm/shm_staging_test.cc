// How `staging: auto` picks a call's stores (staging_choice.h): fixed
// options and small calls never measure; auto tries both stores per size
// class, keeps the faster, tries the other every kExploreEvery calls, and
// follows when the one in use slows down (the host moved the ranks' cores).
#include "staging_choice.h"

#include <gtest/gtest.h>

namespace strata::shm {
namespace {

constexpr uint64_t kBytes = 1 << 20;

// Plays `calls` calls of kBytes in which cached stores take `cached_ns` and
// streaming ones `streaming_ns`; returns how many streamed.
int play(StagingChoice& choice, int calls, int64_t cached_ns, int64_t streaming_ns) {
  int streamed = 0;
  for (int i = 0; i < calls; ++i) {
    const StagingChoice::Pick pick = choice.pick(kBytes);
    EXPECT_TRUE(pick.timed);
    streamed += pick.streaming ? 1 : 0;
    choice.learn(kBytes, pick.streaming, pick.streaming ? streaming_ns : cached_ns);
  }
  return streamed;
}

TEST(StagingChoiceTest, FixedOptionsAndSmallCallsAreNotMeasured) {
  StagingChoice cached(Staging::kCached), streaming(Staging::kStreaming), automatic(Staging::kAuto);
  for (int i = 0; i < 40; ++i) {
    EXPECT_FALSE(cached.pick(kBytes).streaming);
    EXPECT_FALSE(cached.pick(kBytes).timed);
    EXPECT_TRUE(streaming.pick(kBytes).streaming);
    EXPECT_FALSE(streaming.pick(kBytes).timed);
    const StagingChoice::Pick small = automatic.pick(StagingChoice::kSmallest - 1);
    EXPECT_FALSE(small.streaming) << "a small chunk's reader would wait for memory";
    EXPECT_FALSE(small.timed);
  }
}

TEST(StagingChoiceTest, AutoTriesBothThenKeepsTheFasterAndTriesTheOtherNowAndThen) {
  StagingChoice choice(Staging::kAuto);
  EXPECT_FALSE(choice.pick(kBytes).streaming) << "the first call stages cached";
  choice.learn(kBytes, false, 1000);
  EXPECT_TRUE(choice.pick(kBytes).streaming) << "the second streams";
  choice.learn(kBytes, true, 3000);
  // Cached is faster: of the next 62 calls (2..63) only the tries at 16, 32
  // and 48 stream.
  EXPECT_EQ(play(choice, 62, 1000, 3000), 3);
  EXPECT_GT(choice.estimate(kBytes, true), choice.estimate(kBytes, false));
}

TEST(StagingChoiceTest, AutoFollowsWhenTheStoresInUseSlowDown) {
  StagingChoice choice(Staging::kAuto);
  play(choice, 40, 1000, 3000);
  // The cores moved apart: cached now takes 5x as long, streaming is as
  // before. Within a few calls auto streams, and stays there.
  const int streamed = play(choice, 40, 5000, 3000);
  EXPECT_GE(streamed, 34);
  EXPECT_LT(choice.estimate(kBytes, true), choice.estimate(kBytes, false));
}

TEST(StagingChoiceTest, SizeClassesLearnApart) {
  StagingChoice choice(Staging::kAuto);
  play(choice, 20, 1000, 3000);  // 1 MiB: cached wins
  for (int i = 0; i < 20; ++i) {
    const StagingChoice::Pick pick = choice.pick(8 * kBytes);
    choice.learn(8 * kBytes, pick.streaming, pick.streaming ? 1000 : 3000);
  }
  EXPECT_FALSE(choice.pick(kBytes + 1).streaming) << "1 MiB + 1 is in 1 MiB's class";
  EXPECT_TRUE(choice.pick(8 * kBytes).streaming);
}

}  // namespace
}  // namespace strata::shm
