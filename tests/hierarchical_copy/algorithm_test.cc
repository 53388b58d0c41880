// Every hierarchical_copy algorithm, forced by id, on teams of 1, 2, 3, 4
// and 8 devices: every count that stresses slicing (0, 1, 7, 1023, 65537),
// in place and out of place, sum / max / mean on f32 and i32, with the call's
// root rotating. One CollectiveOps serves all calls of a team size, so
// repeated calls with changing shapes reuse the team's state. Each algorithm
// runs on the virtual CPU devices (full peer access) and on the no_peer test
// type, where it must stage through scratch or decline.
//
// World sizes are a loop, not a parameter: CTest runs every test in its own
// process, and one process per algorithm and device type keeps the suite fast.
//
// Under ThreadSanitizer the largest count is 16411 instead of 65537: still
// prime and several 8 KiB kernel blocks, and the races TSan looks for need
// threads and shared state, not elements. With 65537 these tests took 498 s
// of the TSan stage, the largest share of it; Release and ASan keep 65537.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <tuple>
#include <vector>

#include "collective_case.h"
#include "hierarchical_copy_ids.h"
#include "test_runtime.h"

namespace strata::testing {
namespace {

#if defined(__SANITIZE_THREAD__)
constexpr uint64_t kLargeCount = 16411;
#else
constexpr uint64_t kLargeCount = 65537;
#endif
constexpr uint64_t kCounts[] = {0, 1, 7, 1023, kLargeCount};
constexpr int kWorldSizes[] = {1, 2, 3, 4, 8};

class AlgorithmTest : public ::testing::TestWithParam<std::tuple<std::string, Devices>> {
 protected:
  void SetUp() override {
    rt_ = TestRuntime::create();
    ASSERT_NE(rt_, nullptr);
  }

  void TearDown() override {
    ops_.reset();
    if (rt_ != nullptr) {
      EXPECT_EQ(rt_->no_peer().violations(), 0)
          << "an algorithm reduced across devices without peer access";
    }
  }

  const std::string& id() const { return std::get<0>(GetParam()); }
  Devices devices() const { return std::get<1>(GetParam()); }
  CollectiveKind kind() const { return kind_of(id()); }
  bool reduces() const {
    return kind() != CollectiveKind::kBroadcast && kind() != CollectiveKind::kAllGather;
  }

  // A fresh team of n devices for the calls that follow.
  void use_team(int n) {
    ops_.reset();
    auto ops = rt_->team(devices(), n);
    ASSERT_TRUE(ops.ok()) << ops.status();
    ops_ = std::move(*ops);
    n_ = n;
  }

  // Peer-only algorithms must decline teams whose devices cannot reach
  // each other (a team of one is trivially fine).
  bool declines() const {
    return devices() == Devices::kNoPeer && n_ > 1 && needs_peers(id());
  }

  void run(const Case& c) {
    SCOPED_TRACE("n=" + std::to_string(n_) + " " + c.describe());
    const ::testing::AssertionResult result = run_case(*ops_, rt_->table(devices()), c, id());
    if (!declines()) {
      ASSERT_TRUE(result);
      return;
    }
    ASSERT_FALSE(result) << id() << " should decline devices without peer access";
    const std::string why = result.message();
    EXPECT_NE(why.find("NOT_SUPPORTED"), std::string::npos) << why;
    EXPECT_NE(why.find("peer access"), std::string::npos) << why;
  }

  std::unique_ptr<TestRuntime> rt_;
  std::unique_ptr<CollectiveOps> ops_;
  int n_ = 0;
};

TEST_P(AlgorithmTest, MatchesHostReference) {
  struct Op {
    DType dtype;
    ReduceOp op;
  };
  std::vector<Op> ops{{DType::kF32, ReduceOp::kSum}, {DType::kI32, ReduceOp::kSum}};
  if (reduces()) {
    for (DType d : {DType::kF32, DType::kI32}) {
      ops.push_back({d, ReduceOp::kMax});
      ops.push_back({d, ReduceOp::kMean});
    }
  }
  for (int n : kWorldSizes) {
    ASSERT_NO_FATAL_FAILURE(use_team(n));
    int seed = 0;
    for (uint64_t count : kCounts) {
      for (bool in_place : {false, true}) {
        for (const Op& o : ops) {
          const Case c{.kind = kind(), .dtype = o.dtype, .op = o.op, .count = count,
                       .in_place = in_place, .root = seed % n, .seed = seed};
          ++seed;
          ASSERT_NO_FATAL_FAILURE(run(c));
          if (declines()) break;  // checked once per team size
        }
        if (declines()) break;
      }
      if (declines()) break;
    }
  }
}

TEST_P(AlgorithmTest, RepeatedCallsWithRotatingRoots) {
  // Shapes alternate so scratch grows and is reused, and the roots of the
  // call (broadcast, reduce) and of the groups (hierarchical) rotate.
  const uint64_t counts[] = {kLargeCount, 7, 1023};
  for (int n : {3, 8}) {
    ASSERT_NO_FATAL_FAILURE(use_team(n));
    if (declines()) continue;
    for (int i = 0; i < 2 * n + 1; ++i) {
      const Case c{.kind = kind(), .dtype = i % 2 == 0 ? DType::kF32 : DType::kI32,
                   .op = reduces() ? ReduceOp::kMean : ReduceOp::kSum, .count = counts[i % 3],
                   .in_place = i % 4 >= 2, .root = n - 1 - i % n, .seed = 100 + i};
      ASSERT_NO_FATAL_FAILURE(run(c));
    }
  }
}

std::string name(const ::testing::TestParamInfo<AlgorithmTest::ParamType>& info) {
  std::string id = std::get<0>(info.param);
  id = id.substr(id.find('/') + 1);
  for (char& ch : id) {
    if (ch == '/') ch = '_';
  }
  return id + "_" + devices_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Collectives, AlgorithmTest,
                         ::testing::Combine(::testing::ValuesIn(data_algorithm_ids()),
                                            ::testing::Values(Devices::kCpu, Devices::kNoPeer)),
                         name);

TEST(BarrierTest, CompletesRepeatedlyOnEveryTeam) {
  auto rt = TestRuntime::create();
  ASSERT_NE(rt, nullptr);
  for (int n : kWorldSizes) {
    auto ops = rt->team(Devices::kCpu, n);
    ASSERT_TRUE(ops.ok()) << ops.status();
    for (int i = 0; i < 3; ++i) {
      const Status s = (*ops)->barrier(
          CallOptions{.timeout = std::chrono::seconds(20), .algorithm = std::string(kBarrierId)});
      ASSERT_TRUE(s.ok()) << "n=" << n << ": " << s;
    }
  }
}

}  // namespace
}  // namespace strata::testing
