// A sleeper on a segment's flag is woken by the raise it waits for: two
// processes hand a flag back and forth thousands of times, each pausing a
// random microsecond or two after the hand-off, so the raise often lands
// while the sleeper is on its way to sleep. That is the window in which a
// raise whose store is not ordered before its read of `sleepers`
// (segment.cc) loses the wake-up: with a release store there, this test
// lost some in every run. A lost wake-up shows as a sleep that lasts its
// whole timeout although the raise came long before it ended (the raiser
// notes when it raised: a raiser the scheduler held back is no lost
// wake-up).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "segment.h"
#include "shm_harness.h"
#include "strata/sdk/host.h"

namespace strata::shm::testing {
namespace {

constexpr uint64_t kRounds = 20000;
constexpr auto kSleep = std::chrono::milliseconds(200);
// A sleep this close to its timeout, over a raise at least kRaisedBefore
// old when it ended, missed its wake-up.
constexpr auto kWholeSleep = std::chrono::milliseconds(190);
constexpr auto kRaisedBefore = std::chrono::milliseconds(150);
constexpr int kPauseNs = 3000;
// Within the test's 60 s (tests/shm/CMakeLists.txt), with room to reap.
constexpr auto kJobDeadline = std::chrono::seconds(35);

using Clock = std::chrono::steady_clock;

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
          .count());
}

void pause_for(std::chrono::nanoseconds ns) {
  const auto resume = Clock::now() + ns;
  while (Clock::now() < resume) {
  }
}

// Spins until `flag` of `segment` reaches `value` or `until` passes.
bool spin_until(const Segment& segment, Flag flag, uint64_t value, Clock::time_point until) {
  for (int spins = 0; segment.load(flag) < value; ++spins) {
    if ((spins & 1023) == 1023) {
      if (Clock::now() >= until) return false;
      std::this_thread::yield();  // oversubscribed (sanitizers): let the peer run
    }
  }
  return true;
}

// Rank 0 owns the segment and raises `staged` to 1, 2, ...; rank 1 sleeps
// until each value, then acks in the segment's `done`.
int raiser(FileStoreHost& host) {
  Segment own = Segment::create("strata-shm-wake-test", 2, 4096);
  sdk::Host::store_set(host.store(), "segment",
                       std::to_string(::getpid()) + " " + std::to_string(own.fd()));
  std::mt19937 random(7);
  std::uniform_int_distribution<int> pause_ns(0, kPauseNs);
  const auto until = Clock::now() + kJobDeadline;
  for (uint64_t i = 1; i <= kRounds; ++i) {
    if (!spin_until(own, Flag::kDone, i - 1, until)) return 3;
    pause_for(std::chrono::nanoseconds(pause_ns(random)));
    // When it raised, in a flag this test has no other use for.
    own.store(Flag::kReduced, now_ns());
    own.raise(Flag::kStaged, i);
  }
  // Keeps the segment mapped until the sleeper is through.
  return spin_until(own, Flag::kDone, kRounds, until) ? 0 : 3;
}

int sleeper(Job& job, FileStoreHost& host) {
  const std::string entry =
      sdk::Host::store_get(host.store(), "segment", sdk::Host::now_ns() + 20'000'000'000);
  const auto space = entry.find(' ');
  const Segment peer = Segment::open(std::stoi(entry.substr(0, space)),
                                     std::stoi(entry.substr(space + 1)), 2, 4096);
  std::mt19937 random(11);
  std::uniform_int_distribution<int> pause_ns(0, kPauseNs);
  const auto until = Clock::now() + kJobDeadline;
  int lost = 0;
  for (uint64_t i = 1; i <= kRounds; ++i) {
    pause_for(std::chrono::nanoseconds(pause_ns(random)));
    while (peer.load(Flag::kStaged) < i) {
      if (Clock::now() >= until) {
        job.report_from(1, "out of time at round " + std::to_string(i) + ", lost " +
                               std::to_string(lost));
        return 3;
      }
      const uint64_t slept = now_ns();
      peer.sleep_until(Flag::kStaged, i, kSleep);
      const uint64_t woke = now_ns();
      if (peer.load(Flag::kStaged) < i) continue;
      const uint64_t raised = peer.load(Flag::kReduced);
      const auto ns = [](auto d) {
        return static_cast<uint64_t>(std::chrono::nanoseconds(d).count());
      };
      if (woke - slept >= ns(kWholeSleep) && raised < woke && woke - raised >= ns(kRaisedBefore)) {
        ++lost;
      }
    }
    peer.store(Flag::kDone, i);
  }
  job.report_from(1, "lost " + std::to_string(lost));
  return lost == 0 ? 0 : 2;
}

TEST(ShmWake, EveryRaiseWakesItsSleeper) {
  Job job(2);
  job.start([&](int rank, FileStoreHost& host) {
    return rank == 0 ? raiser(host) : sleeper(job, host);
  });
  EXPECT_EQ(job.reap(1, kJobDeadline + std::chrono::seconds(5)), 0) << job.report(1);
  EXPECT_EQ(job.reap(0, std::chrono::seconds(5)), 0);
  EXPECT_EQ(job.report(1), "lost 0");
}

}  // namespace
}  // namespace strata::shm::testing
