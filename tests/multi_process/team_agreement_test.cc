// What a multi-process team refuses or reports instead of hanging: a rank
// that never arrives, ranks that disagree on devices per process, a call
// whose count or dtype differs between ranks, and a peer that dies while a
// call waits on it (the health check ends the call long before its timeout).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "process_world.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(TeamAgreementTest, ARankThatNeverArrivesIsNamed) {
  auto world = testing::ProcessWorld::create(3, 1);
  ASSERT_NE(world, nullptr);
  world->run(
      [&](int p) {
        TeamSpec spec = world->spec(p);
        spec.formation_timeout = 300ms;
        auto ops = CollectiveOps::create(world->runtime().shared_from_this(), spec);
        ASSERT_FALSE(ops.ok());
        EXPECT_EQ(ops.status().code(), Code::kTimedOut);
        EXPECT_THAT(ops.status().message(), HasSubstr("worker 2 never arrived"));
      },
      /*threads=*/2);
}

TEST(TeamAgreementTest, DifferentDevicesPerProcessAreRefused) {
  auto world = testing::ProcessWorld::create(2, 2);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    TeamSpec spec = world->spec(p);
    if (p == 1) spec.local_devices.pop_back();
    auto ops = CollectiveOps::create(world->runtime().shared_from_this(), spec);
    ASSERT_FALSE(ops.ok());
    EXPECT_EQ(ops.status().code(), Code::kFailedPrecondition);
    EXPECT_THAT(ops.status().message(), HasSubstr(p == 0 ? "worker 1 drives 1 x cpu devices"
                                                         : "worker 0 drives 2 x cpu devices"));
  });
}

TEST(TeamAgreementTest, MismatchedCountsAreReportedByEveryRank) {
  auto world = testing::ProcessWorld::create(2, 1);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    std::vector<float> data(p == 0 ? 8 : 6, 1.0f);
    const Buffer b[] = {Buffer{data.data(), DType::kF32, data.size(),
                               (*ops)->team().devices()[0]}};
    Status s = (*ops)->all_reduce(b, b, ReduceOp::kSum);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_THAT(s.message(),
                AllOf(HasSubstr("mismatched call across ranks at seq 0"),
                      HasSubstr(p == 0 ? "called all_reduce f32 count=8 op=sum; worker 1 called "
                                         "all_reduce f32 count=6 op=sum"
                                       : "called all_reduce f32 count=6 op=sum; worker 0 called "
                                         "all_reduce f32 count=8 op=sum")));
  });
}

TEST(TeamAgreementTest, MismatchedDtypesAreReported) {
  auto world = testing::ProcessWorld::create(2, 2);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    std::vector<int32_t> data(8, 1);
    std::vector<Buffer> b;
    for (const auto& d : (*ops)->team().devices()) {
      b.push_back(Buffer{data.data(), p == 0 ? DType::kI32 : DType::kF32, 4, d});
      b.back().data = data.data() + 4 * (b.size() - 1);
    }
    Status s = (*ops)->all_reduce(b, b, ReduceOp::kSum);
    EXPECT_NE(s.code(), Code::kOk);
    EXPECT_THAT(s.message(), HasSubstr("mismatched call across ranks"));
    EXPECT_THAT(s.message(), AllOf(HasSubstr("i32"), HasSubstr("f32")));
  });
}

TEST(TeamAgreementTest, HealthCheckEndsACallOnADeadPeerBeforeTheTimeout) {
  auto world = testing::ProcessWorld::create(2, 1);
  ASSERT_NE(world, nullptr);
  std::atomic<bool> peer_dead{false};
  world->run([&](int p) {
    TeamSpec spec = world->spec(p);
    spec.health_check = [&]() -> Status {
      if (peer_dead) return PeerFailedError("worker 1 (rank 1 of 2) has not been heard from");
      return Status::Ok();
    };
    CommunicationOptions options;
    options.timeout = 60s;
    auto ops = CollectiveOps::create(world->runtime().shared_from_this(), spec, options);
    ASSERT_TRUE(ops.ok()) << ops.status();
    float x = 1.0f;
    const Buffer b[] = {Buffer{&x, DType::kF32, 1, (*ops)->team().devices()[0]}};
    ASSERT_TRUE((*ops)->all_reduce(b, b, ReduceOp::kSum).ok());
    if (p == 1) {  // "dies": makes no further calls
      peer_dead = true;
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    Status s = (*ops)->all_reduce(b, b, ReduceOp::kSum);
    EXPECT_EQ(s.code(), Code::kPeerFailed) << s;
    EXPECT_THAT(s.message(), HasSubstr("worker 1 (rank 1 of 2)"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
    // A broken team refuses further calls instead of trying again.
    EXPECT_EQ((*ops)->all_reduce(b, b, ReduceOp::kSum).code(), Code::kFailedPrecondition);
  });
}

}  // namespace
}  // namespace strata
