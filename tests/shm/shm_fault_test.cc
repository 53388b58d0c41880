// A rank that is killed (kill -9), stopped (SIGSTOP) or aborts its call at
// different moments:
// the survivors' call fails well within its deadline with an error naming
// the rank and its pid, a later call on the broken team is refused, nothing
// new is left in /dev/shm, and no process of the job is left behind.
// Parameterised by the collective, like gloo's tests, and by the buffers: the
// mapped algorithms' calls on shm_host memory (shared_heap.h) too.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <ostream>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "shared_heap.h"
#include "shm_harness.h"
#include "strata/sdk/types.h"

namespace strata::shm::testing {
namespace {

using std::chrono::milliseconds;

constexpr int kRanks = 3;
constexpr int kVictim = 2;
constexpr uint64_t kCount = 4000;  // f32: 16 chunks of the tests' 1 KiB
constexpr milliseconds kFormation{3000};
constexpr milliseconds kCallTimeout{8000};

// A collective and its element count: kCount takes the chunked path, and a
// broadcast of kBoxedCount the slot's box (Segment::Box).
struct FaultCase {
  strata_op_t op;
  uint64_t count;
  bool mapped = false;  // shm/<op>/mapped on shm_host buffers
};
constexpr uint64_t kBoxedCount = 4;  // f32: 16 bytes

void PrintTo(const FaultCase& c, std::ostream* os) {
  *os << sdk::op_name(c.op) << " of " << c.count << " f32" << (c.mapped ? ", mapped" : "");
}

class ShmFault : public ::testing::TestWithParam<FaultCase> {
 protected:
  void SetUp() override { before_ = dev_shm_entries(); }

  // One f32 call of the test's collective; the victim is the root.
  Outcome call(Rank& rank, sdk::Algorithm& algorithm) {
    return rank.call(algorithm, GetParam().op, STRATA_F32, STRATA_SUM, in(), out(),
                     GetParam().count, kVictim, kCallTimeout);
  }
  std::unique_ptr<sdk::Algorithm> algorithm() const {
    return GetParam().mapped ? make_mapped_algorithm(GetParam().op, test_options())
                             : make_algorithm(GetParam().op, test_options());
  }
  // The buffers, in the child that calls: shm_host memory is not inherited
  // across fork (MADV_DONTFORK), so a mapped case allocates its own there.
  float* in() { return buffers().first; }
  float* out() { return buffers().second; }
  std::pair<float*, float*> buffers() {
    if (!GetParam().mapped) return {in_.data(), out_.data()};
    if (shared_in_ == nullptr) {
      const uint64_t bytes = kCount * kRanks * sizeof(float);
      shared_in_ = static_cast<float*>(SharedHeap::instance().allocate(bytes));
      shared_out_ = static_cast<float*>(SharedHeap::instance().allocate(bytes));
      std::fill(shared_in_, shared_in_ + kCount * kRanks, 1.0f);
    }
    return {shared_in_, shared_out_};
  }

  // The victim's start: formation and one good call with the others.
  bool joined(Rank& rank, sdk::Algorithm& algorithm) {
    return rank.form(algorithm).code == STRATA_OK && call(rank, algorithm).code == STRATA_OK;
  }
  // The victim's next call, posted and left to the test.
  std::unique_ptr<sdk::Operation> post_next(Rank& rank, sdk::Algorithm& algorithm) {
    Outcome unused;
    return rank.post(algorithm, GetParam().op, STRATA_F32, STRATA_SUM, in(), out(),
                     GetParam().count, kVictim, kCallTimeout, &unused);
  }

  // Survivors: form, one good call, then (once `after` is signalled, if
  // named) calls until one fails; report it and whether a later call was
  // refused as on a broken team.
  int survivor(int r, FileStoreHost& host, Job& job, const char* after = nullptr) {
    auto algorithm = this->algorithm();
    Rank rank(host, r, kRanks, kFormation);
    if (Outcome o = rank.form(*algorithm); o.code != STRATA_OK) {
      job.report_from(r, "formation failed: " + o.message);
      return 1;
    }
    if (Outcome o = call(rank, *algorithm); o.code != STRATA_OK) {
      job.report_from(r, "first call failed: " + o.message);
      return 1;
    }
    if (after != nullptr && !job.wait_for(after, milliseconds(20000))) {
      job.report_from(r, std::string("the victim never signalled '") + after + "'");
      return 1;
    }
    // The victim may have finished its part of the call it was killed in
    // (a barrier's flag is raised at post): that call then succeeds, and
    // the next one must fail.
    Outcome failed;
    for (int i = 0; i < 2 && failed.code == STRATA_OK; ++i) failed = call(rank, *algorithm);
    if (failed.code == STRATA_OK) {
      job.report_from(r, "two calls after the victim went away succeeded");
      job.wait_released(milliseconds(20000));
      return 1;
    }
    const Outcome refused = call(rank, *algorithm);
    job.report_from(r, std::to_string(failed.code) + "|" + std::to_string(failed.seconds) + "|" +
                           failed.message + "|" + refused.message);
    job.wait_released(milliseconds(20000));
    return 0;
  }

  std::vector<int> survivors() const {
    std::vector<int> ranks;
    for (int r = 0; r < kRanks; ++r) {
      if (r != kVictim) ranks.push_back(r);
    }
    return ranks;
  }

  void prepare() {
    in_.assign(kCount * kRanks, 1.0f);
    out_.assign(kCount * kRanks, 0.0f);
  }

  // Every survivor failed with PEER_FAILED naming the victim as `what`,
  // well within the deadline; the broken team refused the next call.
  void expect_survivors_named_victim(Job& job, const std::string& what) {
    const std::string victim =
        "rank " + std::to_string(kVictim) + " (pid " + std::to_string(job.pid(kVictim)) + ") " +
        what;
    EXPECT_TRUE(job.release_after_reports(survivors(), milliseconds(20000)));
    for (int r = 0; r < kRanks; ++r) {
      if (r == kVictim) continue;
      EXPECT_EQ(job.reap(r, milliseconds(20000)), 0) << "rank " << r << ": " << job.report(r);
      const std::string report = job.report(r);
      std::vector<std::string> parts;
      size_t at = 0;
      for (size_t bar; (bar = report.find('|', at)) != std::string::npos; at = bar + 1) {
        parts.push_back(report.substr(at, bar - at));
      }
      parts.push_back(report.substr(at));
      ASSERT_EQ(parts.size(), 4u) << "rank " << r << ": " << report;
      EXPECT_EQ(parts[0], std::to_string(STRATA_PEER_FAILED)) << report;
      EXPECT_LT(std::stod(parts[1]), 3.0) << "detected too late: " << report;
      EXPECT_NE(parts[2].find(victim), std::string::npos) << "expected '" << victim << "' in: "
                                                          << parts[2];
      EXPECT_NE(parts[3].find("an earlier call on this team failed"), std::string::npos)
          << parts[3];
    }
  }

  void expect_nothing_left(Job& job) {
    EXPECT_TRUE(job.finish(milliseconds(20000))) << "a rank had to be killed";
    errno = 0;
    EXPECT_EQ(::kill(-job.pid(0), 0), -1) << "a process of the job is still there";
    EXPECT_EQ(errno, ESRCH);
    EXPECT_EQ(dev_shm_entries(), before_) << "the job left an entry in /dev/shm";
  }

  std::set<std::string> before_;
  std::vector<float> in_, out_;
  float* shared_in_ = nullptr;  // the children's, never freed: they exit
  float* shared_out_ = nullptr;
};

TEST_P(ShmFault, RankKilledBetweenCallsIsNamedDead) {
  prepare();
  Job job(kRanks);
  job.start([&](int r, FileStoreHost& host) {
    if (r != kVictim) return survivor(r, host, job);
    auto algorithm = this->algorithm();
    Rank rank(host, r, kRanks, kFormation);
    if (!joined(rank, *algorithm)) return 1;
    ::raise(SIGKILL);
    return 1;
  });
  expect_survivors_named_victim(job, "died");
  EXPECT_EQ(job.reap(kVictim, milliseconds(5000)), -SIGKILL);
  expect_nothing_left(job);
}

TEST_P(ShmFault, RankKilledMidCallIsNamedDead) {
  prepare();
  Job job(kRanks);
  job.start([&](int r, FileStoreHost& host) {
    if (r != kVictim) return survivor(r, host, job);
    auto algorithm = this->algorithm();
    Rank rank(host, r, kRanks, kFormation);
    if (!joined(rank, *algorithm)) return 1;
    auto op = post_next(rank, *algorithm);  // first chunks staged and flagged
    ::raise(SIGKILL);
    return 1;
  });
  expect_survivors_named_victim(job, "died");
  expect_nothing_left(job);
}

TEST_P(ShmFault, StoppedRankIsNamedStopped) {
  prepare();
  Job job(kRanks);
  job.start([&](int r, FileStoreHost& host) {
    if (r != kVictim) return survivor(r, host, job);
    auto algorithm = this->algorithm();
    Rank rank(host, r, kRanks, kFormation);
    if (!joined(rank, *algorithm)) return 1;
    ::raise(SIGSTOP);
    return 1;
  });
  expect_survivors_named_victim(job, "is stopped");
  ::kill(job.pid(kVictim), SIGKILL);
  expect_nothing_left(job);
}

// A rank whose call is aborted (core's deadline, or its caller gave up)
// lives on: the survivors learn why from its segment at once, not from
// their own deadline, and the message says it was aborted. Not for the
// boxed broadcast: its root is done at post, so there is nothing to abort.
class ShmAbort : public ShmFault {};

TEST_P(ShmAbort, RankThatAbortedItsCallIsNamedAtOnce) {
  prepare();
  Job job(kRanks);
  job.start([&](int r, FileStoreHost& host) {
    // The survivors post only after the abort: a call they had all joined
    // could be complete at the victim's post, with nothing left to abort.
    if (r != kVictim) return survivor(r, host, job, "victim_aborted");
    auto algorithm = this->algorithm();
    Rank rank(host, r, kRanks, kFormation);
    if (!joined(rank, *algorithm)) return 1;
    if (auto op = post_next(rank, *algorithm)) op->abort();
    job.signal("victim_aborted");
    job.wait_released(milliseconds(20000));
    return 0;
  });
  // Each survivor names the victim's notice, read from its flags or, for
  // the mapped ones, its withdrawal; or the other survivor's, which passes
  // the victim's on ("rank 1 (pid …) gave up after rank 2 (pid …) aborted").
  expect_survivors_named_victim(job, "aborted call 1 before it finished");
  EXPECT_EQ(job.reap(kVictim, milliseconds(5000)), 0);
  expect_nothing_left(job);
}

TEST_P(ShmFault, RankKilledDuringFormationIsNamed) {
  Job job(kRanks);
  job.start([&](int r, FileStoreHost& host) {
    auto algorithm = this->algorithm();
    Rank rank(host, r, kRanks, kFormation);
    // The survivors come once the victim, which had published its segment
    // and was waiting for them, is dead.
    if (r != kVictim) job.wait_for("victim_killed", milliseconds(20000));
    const Outcome o = rank.form(*algorithm);
    job.report_from(r, std::to_string(o.code) + "|" + std::to_string(o.seconds) + "|" + o.message);
    job.wait_released(milliseconds(20000));
    return 0;
  });
  const std::string published = job.dir() + "/store_shm_segment_" + std::to_string(kVictim);
  for (int i = 0; i < 2000 && ::access(published.c_str(), F_OK) != 0; ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_EQ(::access(published.c_str(), F_OK), 0) << "the victim never published its segment";
  ::kill(job.pid(kVictim), SIGKILL);
  job.signal("victim_killed");
  const std::string victim = "rank 2 (pid " + std::to_string(job.pid(kVictim)) + ") died";
  EXPECT_TRUE(job.release_after_reports(survivors(), milliseconds(20000)));
  for (int r = 0; r < kRanks; ++r) {
    if (r == kVictim) continue;
    EXPECT_EQ(job.reap(r, milliseconds(20000)), 0);
    const std::string report = job.report(r);
    EXPECT_EQ(report.rfind(std::to_string(STRATA_PEER_FAILED) + "|", 0), 0u) << report;
    EXPECT_NE(report.find(victim), std::string::npos) << report;
  }
  expect_nothing_left(job);
}

std::string case_name(const ::testing::TestParamInfo<FaultCase>& info) {
  return std::string(sdk::op_name(info.param.op)) +
         (info.param.count == kBoxedCount ? "_boxed" : "") + (info.param.mapped ? "_mapped" : "");
}

// Every collective on the chunked path and the mapped ones; `boxed` adds
// the broadcast through the slot's box.
std::vector<FaultCase> fault_cases(bool boxed) {
  std::vector<FaultCase> cases = {
      {STRATA_ALL_REDUCE, kCount},       {STRATA_BROADCAST, kCount},
      {STRATA_ALL_GATHER, kCount},       {STRATA_REDUCE_SCATTER, kCount},
      {STRATA_REDUCE, kCount},           {STRATA_BARRIER, kCount},
      {STRATA_ALL_REDUCE, kCount, true}, {STRATA_BROADCAST, kCount, true},
      {STRATA_ALL_GATHER, kCount, true}};
  if (boxed) cases.push_back({STRATA_BROADCAST, kBoxedCount});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Collectives, ShmFault, ::testing::ValuesIn(fault_cases(true)), case_name);
INSTANTIATE_TEST_SUITE_P(Collectives, ShmAbort, ::testing::ValuesIn(fault_cases(false)),
                         case_name);

}  // namespace
}  // namespace strata::shm::testing
