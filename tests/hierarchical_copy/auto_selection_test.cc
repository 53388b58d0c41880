// AUTO (no forced algorithm) against the plugin: every op gives correct
// results on every team size, the cost model picks the single-stream
// algorithm for tiny calls and a parallel one for large calls, peer-only
// algorithms are declined without peer access, and the plugin registers
// exactly the algorithms this suite tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collective_case.h"
#include "hierarchical_copy_ids.h"
#include "test_runtime.h"

namespace strata::testing {
namespace {

constexpr CollectiveKind kDataOps[] = {CollectiveKind::kAllReduce, CollectiveKind::kBroadcast,
                                       CollectiveKind::kAllGather,
                                       CollectiveKind::kReduceScatter, CollectiveKind::kReduce};

class AutoSelectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = TestRuntime::create();
    ASSERT_NE(rt_, nullptr);
  }

  std::unique_ptr<CollectiveOps> team(Devices d, int n) {
    auto ops = rt_->team(d, n);
    EXPECT_TRUE(ops.ok()) << ops.status();
    return ops.ok() ? std::move(*ops) : nullptr;
  }

  // The id AUTO picks for one call shape.
  std::string chosen(CollectiveOps& ops, CollectiveKind kind, uint64_t count) {
    auto sel = ops.explain(kind, DType::kF32, count, ReduceOp::kSum, false, 0);
    EXPECT_TRUE(sel.ok()) << sel.status();
    return sel.ok() ? sel->chosen->id : "";
  }

  std::unique_ptr<TestRuntime> rt_;
};

TEST_F(AutoSelectionTest, EveryOpIsCorrectOnEveryTeam) {
  for (Devices d : {Devices::kCpu, Devices::kNoPeer}) {
    for (int n : {1, 2, 3, 4, 8}) {
      auto ops = team(d, n);
      ASSERT_NE(ops, nullptr);
      int seed = 0;
      for (CollectiveKind kind : kDataOps) {
        for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{1023}, uint64_t{65537}}) {
          const Case c{.kind = kind, .dtype = seed % 2 == 0 ? DType::kF32 : DType::kI32,
                       .op = seed % 3 == 0 ? ReduceOp::kMean : ReduceOp::kSum, .count = count,
                       .in_place = seed % 4 >= 2, .root = seed % n, .seed = seed};
          ++seed;
          SCOPED_TRACE(devices_name(d) + " n=" + std::to_string(n));
          ASSERT_TRUE(run_case(*ops, rt_->table(d), c, ""));
        }
      }
    }
  }
}

TEST_F(AutoSelectionTest, OneStreamForTinyCallsParallelForLargeOnes) {
  for (int n : {4, 8}) {
    auto ops = team(Devices::kCpu, n);
    ASSERT_NE(ops, nullptr);
    for (CollectiveKind kind : {CollectiveKind::kBroadcast, CollectiveKind::kAllGather,
                                CollectiveKind::kReduceScatter, CollectiveKind::kReduce}) {
      SCOPED_TRACE(std::string(collective_name(kind)) + " n=" + std::to_string(n));
      EXPECT_EQ(chosen(*ops, kind, 1),
                "hierarchical_copy/" + std::string(collective_name(kind)) + "/one_device");
      const std::string large = chosen(*ops, kind, uint64_t{4} << 20);  // 16 MiB of f32
      EXPECT_TRUE(large.ends_with("/peer_pull") || large.ends_with("/peer_slices")) << large;
    }
  }
}

TEST_F(AutoSelectionTest, PeerOnlyAlgorithmsDeclineWithoutPeerAccess) {
  auto ops = team(Devices::kNoPeer, 4);
  ASSERT_NE(ops, nullptr);
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                              CollectiveKind::kReduce}) {
    auto sel = ops->explain(kind, DType::kF32, uint64_t{4} << 20);
    ASSERT_TRUE(sel.ok()) << sel.status();
    EXPECT_FALSE(needs_peers(sel->chosen->id)) << sel->chosen->id;
    bool declined = false;
    for (const Candidate& c : sel->candidates) {
      if (!needs_peers(c.algorithm->id)) continue;
      declined = true;
      EXPECT_NE(c.verdict.find("declined"), std::string::npos) << c.algorithm->id << ": "
                                                               << c.verdict;
      EXPECT_NE(c.verdict.find("peer access"), std::string::npos) << c.verdict;
    }
    EXPECT_TRUE(declined) << "no peer-only candidate for " << collective_name(kind);
  }
}

TEST_F(AutoSelectionTest, RegistersExactlyTheTestedAlgorithms) {
  std::vector<std::string> registered;
  for (const AlgorithmEntry* a : rt_->runtime().registry().algorithms()) {
    if (a->plugin == "hierarchical_copy") registered.push_back(a->id);
  }
  std::vector<std::string> tested = data_algorithm_ids();
  tested.emplace_back(kBarrierId);
  std::sort(registered.begin(), registered.end());
  std::sort(tested.begin(), tested.end());
  EXPECT_EQ(registered, tested);
}

}  // namespace
}  // namespace strata::testing
