// The mapped algorithms' failures across ranks (forked processes, as
// shm_fault_test): ranks whose calls differ get a clear error and no read
// past a peer's buffer; a rank whose buffer is not shm_host memory fails
// at create and breaks its team, and its peers fail by their deadline
// rather than pairing with its next call; a peer that died after
// publishing a buffer nobody had mapped yet is named dead; a rank that gave
// up its call is not written into by a peer that joins it late.
#include <signal.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shared_heap.h"
#include "shm_harness.h"
#include "strata/sdk/types.h"

namespace strata::shm::testing {
namespace {

using std::chrono::milliseconds;

// Teams of two: each test's calls differ on one rank.
constexpr int kPair = 2;
constexpr uint64_t kPairCount = 1000;
constexpr milliseconds kPairFormation{3000};
constexpr int kPairVictim = 1;

float* shared_floats(uint64_t count, float value) {
  auto* p = static_cast<float*>(SharedHeap::instance().allocate(count * sizeof(float)));
  std::fill(p, p + count, value);
  return p;
}

// `op`'s mapped algorithm with the pair's team formed on it, or nullptr
// once the failure is reported.
std::unique_ptr<sdk::Algorithm> form_pair(Rank& rank, strata_op_t op, Job& job, int r) {
  auto algorithm = make_mapped_algorithm(op, test_options());
  if (Outcome o = rank.form(*algorithm); o.code != STRATA_OK) {
    job.report_from(r, "formation: " + o.message);
    return nullptr;
  }
  return algorithm;
}

TEST(ShmMappedTeam, RanksWithDifferentCountsAreToldNotCrashed) {
  Job job(kPair);
  job.start([&](int r, FileStoreHost& host) {
    Rank rank(host, r, kPair, kPairFormation);
    auto algorithm = form_pair(rank, STRATA_ALL_GATHER, job, r);
    if (!algorithm) return 1;
    // Rank 1 passes 256 times rank 0's count: read as rank 0's, it would
    // run far past rank 0's allocation.
    const uint64_t count = r == 0 ? 1024 : 256 * 1024;
    float* in = shared_floats(count, 1.0f);
    float* out = shared_floats(count * kPair, 0.0f);
    const Outcome o = rank.call(*algorithm, STRATA_ALL_GATHER, STRATA_F32, STRATA_SUM, in, out,
                                count, 0, milliseconds(5000));
    job.report_from(r, std::to_string(o.code) + "|" + o.message);
    return 0;
  });
  for (int r = 0; r < kPair; ++r) {
    ASSERT_EQ(job.reap(r, milliseconds(20000)), 0) << "rank " << r << ": " << job.report(r);
    const std::string report = job.report(r);
    EXPECT_EQ(report.rfind(std::to_string(STRATA_INVALID_ARGUMENT) + "|", 0), 0u) << report;
    EXPECT_NE(report.find("every rank must make the same calls"), std::string::npos) << report;
    EXPECT_NE(report.find("all_gather of 1024 f32"), std::string::npos) << report;
    EXPECT_NE(report.find("all_gather of 262144 f32"), std::string::npos) << report;
  }
}

TEST(ShmMappedTeam, ABufferFromElsewhereFailsItsRankAndBreaksTheTeam) {
  Job job(kPair);
  job.start([&](int r, FileStoreHost& host) {
    Rank rank(host, r, kPair, kPairFormation);
    auto algorithm = form_pair(rank, STRATA_ALL_REDUCE, job, r);
    if (!algorithm) return 1;
    std::vector<float> ordinary(kPairCount, 1.0f);
    float* shared = shared_floats(kPairCount, 1.0f);
    // Rank 1's first buffer is ordinary memory; its second is right.
    float* first = r == 1 ? ordinary.data() : shared;
    // A deadline far beyond the test's: rank 0 must learn of rank 1's
    // failure from rank 1, not from the clock.
    const Outcome failed = rank.call(*algorithm, STRATA_ALL_REDUCE, STRATA_F32, STRATA_SUM, first,
                                     first, kPairCount, 0, milliseconds(60000));
    const Outcome next = rank.call(*algorithm, STRATA_ALL_REDUCE, STRATA_F32, STRATA_SUM, shared,
                                   shared, kPairCount, 0, milliseconds(1500));
    job.report_from(r, std::to_string(failed.code) + "|" + failed.message + "|" +
                           std::to_string(next.code) + "|" + next.message + "|" +
                           std::to_string(failed.seconds));
    // Alive until both reported: rank 0 is to see a peer that runs on.
    job.wait_released(milliseconds(20000));
    return 0;
  });
  EXPECT_TRUE(job.release_after_reports({0, 1}, milliseconds(20000)));
  for (int r = 0; r < kPair; ++r) {
    ASSERT_EQ(job.reap(r, milliseconds(20000)), 0) << "rank " << r << ": " << job.report(r);
  }
  const std::string own = job.report(1);
  EXPECT_EQ(own.rfind(std::to_string(STRATA_INVALID_ARGUMENT) + "|", 0), 0u) << own;
  EXPECT_NE(own.find("the input at 0x"), std::string::npos) << own;
  EXPECT_NE(own.find("is not shm_host memory"), std::string::npos) << own;
  EXPECT_NE(own.find("an earlier call on this team failed"), std::string::npos)
      << "rank 1's next call was not refused: " << own;
  // Rank 0 waited for a rank that never joined its call: told at once by
  // rank 1's segment, with rank 1's reason, and its next call refused;
  // never a result mixed from two calls.
  const std::string peer = job.report(0);
  EXPECT_EQ(peer.rfind(std::to_string(STRATA_PEER_FAILED) + "|", 0), 0u) << peer;
  EXPECT_NE(peer.find("rank 1 (pid " + std::to_string(job.pid(1)) + ") failed call 0: the input "
                      "at 0x"),
            std::string::npos)
      << peer;
  EXPECT_NE(peer.find("is not shm_host memory"), std::string::npos) << peer;
  EXPECT_LT(std::stod(peer.substr(peer.rfind('|') + 1)), 3.0) << "told too late: " << peer;
  EXPECT_NE(peer.find("an earlier call on this team failed"), std::string::npos) << peer;
}

TEST(ShmMappedTeam, APeerThatDiedBeforeItsBufferWasMappedIsNamedDead) {
  Job job(kPair);
  job.start([&](int r, FileStoreHost& host) {
    Rank rank(host, r, kPair, kPairFormation);
    auto algorithm = form_pair(rank, STRATA_ALL_GATHER, job, r);
    if (!algorithm) return 1;
    float* in = shared_floats(kPairCount, 1.0f);
    float* out = shared_floats(kPairCount * kPair, 0.0f);
    if (Outcome o = rank.call(*algorithm, STRATA_ALL_GATHER, STRATA_F32, STRATA_SUM, in, out,
                              kPairCount, 0, milliseconds(5000));
        o.code != STRATA_OK) {
      job.report_from(r, "first call: " + o.message);
      return 1;
    }
    if (r == kPairVictim) {
      // New buffers, published by the post, then gone before anyone mapped them.
      float* fresh_in = shared_floats(kPairCount, 2.0f);
      float* fresh_out = shared_floats(kPairCount * kPair, 0.0f);
      Outcome unused;
      auto op = rank.post(*algorithm, STRATA_ALL_GATHER, STRATA_F32, STRATA_SUM, fresh_in,
                          fresh_out, kPairCount, 0, milliseconds(5000), &unused);
      ::raise(SIGKILL);
      return 1;
    }
    job.wait_for("victim_reaped", milliseconds(20000));
    const Outcome o = rank.call(*algorithm, STRATA_ALL_GATHER, STRATA_F32, STRATA_SUM, in, out,
                                kPairCount, 0, milliseconds(5000));
    job.report_from(r, std::to_string(o.code) + "|" + o.message);
    return 0;
  });
  EXPECT_EQ(job.reap(kPairVictim, milliseconds(20000)), -SIGKILL);
  job.signal("victim_reaped");
  ASSERT_EQ(job.reap(0, milliseconds(20000)), 0) << job.report(0);
  const std::string report = job.report(0);
  EXPECT_EQ(report.rfind(std::to_string(STRATA_PEER_FAILED) + "|", 0), 0u) << report;
  EXPECT_NE(report.find("rank 1 (pid " + std::to_string(job.pid(kPairVictim)) + ") died before this "
                        "rank could map the buffer it published"),
            std::string::npos)
      << report;
}

// The mapped all-reduce writes into its peers' outputs: a rank that gave
// up its call (here by its deadline) must find its buffer as it left it
// once its peer joins late, and the peer is told why it stopped.
TEST(ShmMappedTeam, APeerThatGaveUpIsNotWrittenInto) {
  Job job(kPair);
  job.start([&](int r, FileStoreHost& host) {
    Rank rank(host, r, kPair, kPairFormation);
    auto algorithm = form_pair(rank, STRATA_ALL_REDUCE, job, r);
    if (!algorithm) return 1;
    float* mine = shared_floats(kPairCount, 1.0f);
    if (r == 0) {
      const Outcome o = rank.call(*algorithm, STRATA_ALL_REDUCE, STRATA_F32, STRATA_SUM, mine, mine,
                                  kPairCount, 0, milliseconds(400));
      std::fill(mine, mine + kPairCount, 42.0f);  // the caller reuses its buffer
      job.signal("gave_up");
      job.wait_for("peer_done", milliseconds(20000));
      const auto changed = std::find_if(mine, mine + kPairCount, [](float v) { return v != 42.0f; });
      job.report_from(r, std::to_string(o.code) + "|" +
                             (changed == mine + kPairCount
                                  ? std::string("intact")
                                  : "overwritten at " + std::to_string(changed - mine)));
      return 0;
    }
    job.wait_for("gave_up", milliseconds(20000));
    const Outcome o = rank.call(*algorithm, STRATA_ALL_REDUCE, STRATA_F32, STRATA_SUM, mine, mine,
                                kPairCount, 0, milliseconds(3000));
    job.report_from(r, std::to_string(o.code) + "|" + o.message);
    job.signal("peer_done");
    return 0;
  });
  for (int r = 0; r < kPair; ++r) {
    ASSERT_EQ(job.reap(r, milliseconds(20000)), 0) << "rank " << r << ": " << job.report(r);
  }
  EXPECT_EQ(job.report(0), std::to_string(STRATA_TIMED_OUT) + "|intact");
  const std::string late = job.report(1);
  EXPECT_EQ(late.rfind(std::to_string(STRATA_PEER_FAILED) + "|", 0), 0u) << late;
  EXPECT_NE(late.find("rank 0 (pid " + std::to_string(job.pid(0)) + ") failed call 0"),
            std::string::npos)
      << late;
}

}  // namespace
}  // namespace strata::shm::testing
