// What goes wrong inside a distributed step must come back as a Status that
// names the replica and the call, quickly, with no replica left waiting.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/strategy/strategy.h"
#include "strategy_test_util.h"

namespace strata::testing {
namespace {

using namespace std::chrono_literals;

class StrategyErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = make_runtime(8);
    ASSERT_NE(runtime_, nullptr);
    CommunicationOptions fast;
    // The deadline of every cross-replica call: short, so the test that
    // waits for it is quick, yet long enough for a sanitized all-reduce.
    fast.timeout = 1s;
    strategy_ = make_test_strategy(runtime_, {"mirrored", 4}, fast);
    ASSERT_NE(strategy_, nullptr);
  }
  std::shared_ptr<Runtime> runtime_;
  std::unique_ptr<Strategy> strategy_;
};

TEST_F(StrategyErrorsTest, MismatchedShapesAcrossReplicasAreNamed) {
  auto out = strategy_->run([](ReplicaContext& ctx) {
    const int64_t size = ctx.replica_id_in_sync_group() == 2 ? 5 : 4;
    return ctx.all_reduce(ReduceOp::kSum, Tensor(Shape{size}));
  });
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("f32[5] on replica 2 but f32[4] on replica 0"),
            std::string::npos)
      << out.status();
}

TEST_F(StrategyErrorsTest, ReplicasMakingDifferentCallsFailTogether) {
  auto out = strategy_->run([](ReplicaContext& ctx) -> Status {
    if (ctx.replica_id_in_sync_group() == 1) return ctx.all_gather(Tensor(Shape{2}), 0).status();
    return ctx.all_reduce(ReduceOp::kSum, Tensor(Shape{2})).status();
  });
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("replicas disagree"), std::string::npos) << out;
  EXPECT_NE(out.message().find("all_gather"), std::string::npos) << out;
}

TEST_F(StrategyErrorsTest, AReplicaThatSkipsACallTimesOutNamingIt) {
  const auto start = std::chrono::steady_clock::now();
  auto out = strategy_->run([](ReplicaContext& ctx) -> Status {
    if (ctx.replica_id_in_sync_group() == 3) return Status();  // skips the all_reduce
    return ctx.all_reduce(ReduceOp::kSum, Tensor::scalar(1)).status();
  });
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.code(), Code::kTimedOut) << out;
  EXPECT_NE(out.message().find("replica(s) 3 did not reach all_reduce"), std::string::npos)
      << out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  // The strategy stays usable.
  auto again = strategy_->run([](ReplicaContext& ctx) {
    return ctx.all_reduce(ReduceOp::kSum, Tensor::scalar(1));
  });
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FLOAT_EQ((*again)[0].item(), 4.0f);
}

TEST_F(StrategyErrorsTest, AFailingReplicaReleasesTheOthersAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  CommunicationOptions slow;
  slow.timeout = 60s;  // if the others waited for the deadline, the test would notice
  auto strategy = make_test_strategy(runtime_, {"mirrored", 4}, slow);
  ASSERT_NE(strategy, nullptr);
  auto out = strategy->run([](ReplicaContext& ctx) -> Status {
    if (ctx.replica_id_in_sync_group() == 2) return DataLossError("bad batch");
    return ctx.all_reduce(ReduceOp::kSum, Tensor::scalar(1)).status();
  });
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.code(), Code::kDataLoss) << out;
  EXPECT_NE(out.message().find("replica 2 of mirrored"), std::string::npos) << out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

TEST_F(StrategyErrorsTest, AStepSlowerThanTheDeadlineKeepsEveryReplicaUntilItEnds) {
  // Every replica arrived in time; the step (here a slow merge function)
  // uses their buffers, so none may leave at its deadline and free them.
  CommunicationOptions quick;
  quick.timeout = 50ms;
  auto strategy = make_test_strategy(runtime_, {"mirrored", 4}, quick);
  ASSERT_NE(strategy, nullptr);
  auto out = strategy->run([](ReplicaContext& ctx) {
    const Tensor mine(Shape{1024}, static_cast<float>(ctx.replica_id_in_sync_group()));
    return ctx.merge_call(
        [](Strategy&, const PerReplica<Tensor>& all) {
          std::this_thread::sleep_for(200ms);
          return all[3][1023];
        },
        mine);
  });
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 4; ++r) EXPECT_FLOAT_EQ((*out)[r], 3.0f);
}

TEST_F(StrategyErrorsTest, AThrowingReplicaBecomesAnInternalError) {
  auto out = strategy_->run([](ReplicaContext& ctx) -> Status {
    if (ctx.replica_id_in_sync_group() == 1) throw std::runtime_error("boom");
    return ctx.all_reduce(ReduceOp::kSum, Tensor::scalar(1)).status();
  });
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.code(), Code::kInternal);
  EXPECT_NE(out.message().find("replica 1"), std::string::npos) << out;
  EXPECT_NE(out.message().find("boom"), std::string::npos) << out;
}

TEST_F(StrategyErrorsTest, PerReplicaArgumentsMustMatchTheReplicaCount) {
  PerReplica<int> three(std::vector<int>{1, 2, 3});
  auto out = strategy_->run([](ReplicaContext&, int x) { return x; }, three);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("holds 3 value(s)"), std::string::npos) << out.status();
}

TEST_F(StrategyErrorsTest, SumOfANonDistributedValueIsRefused) {
  auto out = strategy_->reduce(ReduceOp::kSum, Tensor::scalar(2));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("not a PerReplica"), std::string::npos);
  auto mean = strategy_->reduce(ReduceOp::kMean, Tensor::scalar(2));
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_FLOAT_EQ(mean->item(), 2.0f);
}

TEST_F(StrategyErrorsTest, NestedRunIsRefused) {
  auto out = strategy_->run([&](ReplicaContext&) -> Status {
    return strategy_->run([](ReplicaContext&) {});
  });
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.code(), Code::kFailedPrecondition) << out;
}

StrategyOptions devices_options(std::vector<std::string> devices) {
  StrategyOptions options;
  options.devices = std::move(devices);
  return options;
}

TEST(StrategyFactoryTest, BadKindsAndDevicesGetClearErrors) {
  auto runtime = make_runtime(4);
  ASSERT_NE(runtime, nullptr);
  auto kind = make_strategy(runtime, "mirror");
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("expected one of: default, one_device"),
            std::string::npos);
  auto missing = make_strategy(runtime, "mirrored", devices_options({"cpu:0", "cpu:9"}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'cpu:9' does not exist"), std::string::npos)
      << missing.status();
  auto twice = make_strategy(runtime, "mirrored", devices_options({"cpu:1", "cpu:1"}));
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("listed twice"), std::string::npos);
  StrategyOptions central = devices_options({"cpu:0", "cpu:1"});
  central.parameter_device = "cpu:3";
  auto param = make_strategy(runtime, "central_storage", central);
  ASSERT_FALSE(param.ok());
  EXPECT_NE(param.status().message().find("not one of the strategy's devices"),
            std::string::npos);
}

}  // namespace
}  // namespace strata::testing
