// Ranks that make the same call but select different algorithms for it (their
// collectives.implementation, rules or tuning files differ) must fail that
// call on every rank with FAILED_PRECONDITION naming each choice, promptly,
// instead of running two algorithms against each other. store_exchange
// registers the same cross-process all-reduce twice (exchange and twin) so
// two ranks can choose differently and either choice would run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/collective/tuning_table.h"
#include "process_world.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kExchange = "store_exchange/all_reduce/exchange";
const std::string kTwin = "store_exchange/all_reduce/twin";

// A tuning table that measured only `twin`, for all_reduce f32 on teams of
// `processes` x 1 cpu device: AUTO then ranks twin ahead of exchange.
std::shared_ptr<const TuningTable> twin_is_measured(int processes) {
  const std::string text =
      "strata_tuning: 1\nentries:\n"
      "  - op: all_reduce\n    device_type: cpu\n    processes: " +
      std::to_string(processes) +
      "\n    local_devices: 1\n    dtype: f32\n    algorithm: " + kTwin +
      "\n    times_us: {4: 5, 1MiB: 900}\n";
  auto table = TuningTable::parse(text, "twin_tuning.yaml");
  if (!table.ok()) {
    ADD_FAILURE() << table.status();
    return nullptr;
  }
  return std::make_shared<const TuningTable>(std::move(*table));
}

// A "process" of its own, whose config carries `tuning`.
std::shared_ptr<Runtime> runtime_with_tuning(const testing::ProcessWorld& world,
                                             std::shared_ptr<const TuningTable> tuning) {
  Config config;
  config.collectives.tuning = std::move(tuning);
  return testing::make_multi_process_runtime(world.processes() * world.local(), config);
}

StatusOr<std::unique_ptr<CollectiveOps>> team_with_implementation(
    testing::ProcessWorld& world, int p, const std::string& implementation) {
  CommunicationOptions options;
  options.timeout = 20s;
  options.implementation = implementation;
  return CollectiveOps::create(world.runtime().shared_from_this(), world.spec(p), options);
}

// One all-reduce of 8 floats on a 1-device-per-process team, timed.
Status all_reduce_8(CollectiveOps& ops, std::chrono::steady_clock::duration* took = nullptr) {
  std::vector<float> data(8, 1.0f);
  const Buffer b[] = {Buffer{data.data(), DType::kF32, data.size(), ops.team().devices()[0]}};
  const auto start = std::chrono::steady_clock::now();
  Status s = ops.all_reduce(b, b, ReduceOp::kSum);
  if (took != nullptr) *took = std::chrono::steady_clock::now() - start;
  return s;
}

TEST(AlgorithmAgreementTest, DifferentImplementationsFailEveryRankNamingBothChoices) {
  auto world = testing::ProcessWorld::create(2, 1);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = team_with_implementation(*world, p, p == 0 ? kExchange : kTwin);
    ASSERT_TRUE(ops.ok()) << ops.status();
    std::chrono::steady_clock::duration took{};
    Status s = all_reduce_8(**ops, &took);
    EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
    const std::string& mine = p == 0 ? kExchange : kTwin;
    const std::string& theirs = p == 0 ? kTwin : kExchange;
    EXPECT_THAT(s.message(),
                AllOf(HasSubstr("ranks chose different algorithms for all_reduce f32 count=8 "
                                "op=sum at seq 0"),
                      HasSubstr("this process (worker " + std::to_string(p) + ") chose " + mine +
                                "; worker " + std::to_string(1 - p) + " chose " + theirs),
                      HasSubstr("every rank must select alike"), Not(HasSubstr("mismatched"))))
        << s;
    EXPECT_LT(took, 10s) << "the disagreement must be reported, not waited out";
    // The team cannot be trusted after that: later calls are refused.
    Status again = all_reduce_8(**ops);
    EXPECT_EQ(again.code(), Code::kFailedPrecondition) << again;
    EXPECT_THAT(again.message(), HasSubstr("unusable after an earlier failure"));
  });
}

TEST(AlgorithmAgreementTest, DifferentTuningFilesFailEveryRank) {
  auto world = testing::ProcessWorld::create(2, 1);
  ASSERT_NE(world, nullptr);
  // Worker 1 runs with a tuning file that measured twin; worker 0 has none,
  // so its AUTO falls back to the models and breaks the tie by id.
  auto tuned = runtime_with_tuning(*world, twin_is_measured(2));
  ASSERT_NE(tuned, nullptr);
  world->run([&](int p) {
    CommunicationOptions options;
    options.timeout = 20s;
    auto ops = CollectiveOps::create(p == 0 ? world->runtime().shared_from_this() : tuned,
                                     world->spec(p), options);
    ASSERT_TRUE(ops.ok()) << ops.status();
    const std::string& mine = p == 0 ? kExchange : kTwin;
    const std::string& theirs = p == 0 ? kTwin : kExchange;
    std::chrono::steady_clock::duration took{};
    Status s = all_reduce_8(**ops, &took);
    EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
    EXPECT_THAT(
        s.message(),
        AllOf(HasSubstr("ranks chose different algorithms for all_reduce f32 count=8"),
              HasSubstr("chose " + mine + "; worker " + std::to_string(1 - p) + " chose " + theirs),
              HasSubstr("collectives.tuning")))
        << s;
    EXPECT_LT(took, 10s);
  });
}

TEST(AlgorithmAgreementTest, TheSameTuningFileOnEveryRankAgreesAndRuns) {
  auto world = testing::ProcessWorld::create(2, 1);
  ASSERT_NE(world, nullptr);
  auto tuned = runtime_with_tuning(*world, twin_is_measured(2));
  ASSERT_NE(tuned, nullptr);
  world->run([&](int p) {
    CommunicationOptions options;
    options.timeout = 20s;
    auto ops = CollectiveOps::create(tuned, world->spec(p), options);
    ASSERT_TRUE(ops.ok()) << ops.status();
    // The measurement, not the id order, decides: both ranks take twin.
    auto sel =
        (*ops)->explain(CollectiveKind::kAllReduce, DType::kF32, 8, ReduceOp::kSum, false, 0);
    ASSERT_TRUE(sel.ok()) << sel.status();
    EXPECT_EQ(sel->chosen->id, kTwin);
    EXPECT_THAT(sel->reason, HasSubstr("fastest measured"));
    std::vector<float> data(8, static_cast<float>(p + 1));
    const Buffer b[] = {Buffer{data.data(), DType::kF32, data.size(), (*ops)->team().devices()[0]}};
    ASSERT_TRUE((*ops)->all_reduce(b, b, ReduceOp::kSum).ok());
    for (float x : data) EXPECT_EQ(x, 3.0f);
  });
}

TEST(AlgorithmAgreementTest, OneOddRankOutOfThreeIsNamedByEveryOther) {
  auto world = testing::ProcessWorld::create(3, 1);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = team_with_implementation(*world, p, p == 2 ? kTwin : kExchange);
    ASSERT_TRUE(ops.ok()) << ops.status();
    Status s = all_reduce_8(**ops);
    EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
    EXPECT_THAT(s.message(), HasSubstr("ranks chose different algorithms")) << s;
    if (p == 2) {
      EXPECT_THAT(s.message(),
                  HasSubstr("this process (worker 2) chose " + kTwin + "; worker 0 chose " +
                            kExchange + "; worker 1 chose " + kExchange))
          << s;
    } else {
      // Its agreeing peer is no difference worth naming.
      EXPECT_THAT(s.message(),
                  AllOf(HasSubstr("this process (worker " + std::to_string(p) + ") chose " +
                                  kExchange + "; worker 2 chose " + kTwin),
                        Not(HasSubstr("worker " + std::to_string(1 - p) + " chose"))))
          << s;
    }
  });
}

TEST(AlgorithmAgreementTest, ADifferentShapeIsReportedRatherThanTheChoiceItExplains) {
  auto world = testing::ProcessWorld::create(2, 1);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = team_with_implementation(*world, p, p == 0 ? kExchange : kTwin);
    ASSERT_TRUE(ops.ok()) << ops.status();
    std::vector<float> data(p == 0 ? 8 : 6, 1.0f);
    const Buffer b[] = {Buffer{data.data(), DType::kF32, data.size(), (*ops)->team().devices()[0]}};
    Status s = (*ops)->all_reduce(b, b, ReduceOp::kSum);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_THAT(s.message(), AllOf(HasSubstr("mismatched call across ranks at seq 0"),
                                   Not(HasSubstr("chose different"))))
        << s;
  });
}

TEST(AlgorithmAgreementTest, DifferentForcedAlgorithmsAreCaughtToo) {
  auto world = testing::ProcessWorld::create(2, 1);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    float x = 1.0f;
    const Buffer b[] = {Buffer{&x, DType::kF32, 1, (*ops)->team().devices()[0]}};
    CallOptions forced;
    forced.algorithm = p == 0 ? kTwin : kExchange;
    Status s = (*ops)->all_reduce(b, b, ReduceOp::kSum, forced);
    EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
    EXPECT_THAT(s.message(), HasSubstr("this process (worker " + std::to_string(p) + ") chose " +
                                       forced.algorithm))
        << s;
  });
}

TEST(AlgorithmAgreementTest, AgreeingRanksRunEveryLaterCallOfTheShape) {
  // The check is made on the first call of a shape; later calls of it, and
  // a forced algorithm both ranks name, go through.
  auto world = testing::ProcessWorld::create(2, 1);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = team_with_implementation(*world, p, kTwin);
    ASSERT_TRUE(ops.ok()) << ops.status();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(all_reduce_8(**ops).ok()) << i;
    std::vector<float> data(8, 2.0f);
    const Buffer b[] = {Buffer{data.data(), DType::kF32, data.size(), (*ops)->team().devices()[0]}};
    CallOptions forced;
    forced.algorithm = kExchange;
    ASSERT_TRUE((*ops)->all_reduce(b, b, ReduceOp::kSum, forced).ok());
    for (float x : data) EXPECT_EQ(x, 4.0f);
  });
}

}  // namespace
}  // namespace strata
