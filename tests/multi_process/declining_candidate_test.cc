// A candidate that cannot serve a team, and says so only in team_create,
// passes the call on to the next candidate: on every rank alike, whether it
// declined on every rank or on one, with the declining rank and its reason
// in explain(), and without being asked again. A team_create that fails
// (not a decline) fails the call on every rank instead. The declining test
// plugin is first in AUTO and refuses teams as its options say.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "process_world.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kDecliningFirst = "declining/all_reduce/first";
const std::string kStoreExchange = "store_exchange/all_reduce/exchange";

// A world whose Runtime also loads the declining plugin with `options`.
std::unique_ptr<testing::ProcessWorld> declining_world(
    int processes, int local, std::map<std::string, std::string> options) {
  Config config;
  config.plugins.options["declining"] = std::move(options);
  return testing::ProcessWorld::create(processes, local, config, {STRATA_DECLINING_PLUGIN});
}

// All-reduces (SUM) one buffer of `count` floats per local device, each
// holding process rank + 1; returns the call's status and checks the sum.
Status sum_all_reduce(CollectiveOps& ops, int p, int processes, uint64_t count) {
  const int local = ops.team().local_count();
  std::vector<std::vector<float>> data(static_cast<size_t>(local),
                                       std::vector<float>(count, static_cast<float>(p + 1)));
  std::vector<Buffer> buffers;
  for (int i = 0; i < local; ++i) {
    buffers.push_back(Buffer{data[static_cast<size_t>(i)].data(), DType::kF32, count,
                             ops.team().devices()[static_cast<size_t>(i)]});
  }
  Status s = ops.all_reduce(buffers, buffers, ReduceOp::kSum);
  if (!s.ok()) return s;
  const float want = static_cast<float>(local * processes * (processes + 1) / 2);
  for (const auto& d : data) {
    for (float x : d) EXPECT_EQ(x, want) << "process " << p;
  }
  return s;
}

// explain()'s verdict for `id`, or "" when it is not a candidate.
std::string declining_verdict(const Selection& s, const std::string& id) {
  for (const Candidate& c : s.candidates) {
    if (c.algorithm->id == id) return c.verdict;
  }
  return "";
}

// The shape sum_all_reduce() calls: in place.
StatusOr<Selection> explain_in_place_sum(CollectiveOps& ops, uint64_t count) {
  return ops.explain(CollectiveKind::kAllReduce, DType::kF32, count, ReduceOp::kSum, true, 0);
}

TEST(DecliningCandidateTest, OneProcessMovesOnToTheNextCandidate) {
  auto world = declining_world(1, 2, {{"decline_ranks", "all"}});
  ASSERT_NE(world, nullptr);
  auto ops = world->team(0);
  ASSERT_TRUE(ops.ok()) << ops.status();
  ASSERT_TRUE(sum_all_reduce(**ops, 0, 1, 16).ok());
  auto sel = explain_in_place_sum(**ops, 16);
  ASSERT_TRUE(sel.ok()) << sel.status();
  ASSERT_FALSE(sel->candidates.empty());
  EXPECT_EQ(sel->candidates.front().algorithm->id, kDecliningFirst) << "AUTO must try it first";
  EXPECT_EQ(sel->candidates.front().verdict,
            "declined at team_create: this backend cannot reach its peers (team_create call 1 "
            "on rank 0)");
  EXPECT_THAT(sel->chosen->id, HasSubstr("hierarchical_copy/all_reduce/"));
  // Another shape: the decline is remembered, team_create is not asked again.
  ASSERT_TRUE(sum_all_reduce(**ops, 0, 1, 1000).ok());
  auto other = explain_in_place_sum(**ops, 1000);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_THAT(declining_verdict(*other, kDecliningFirst), HasSubstr("(team_create call 1 on rank 0)"));
}

TEST(DecliningCandidateTest, ExplainBeforeAnyCallShowsTheDeclineOnOneProcess) {
  // `strata explain` never calls: on one process it tries team_create too,
  // so the winner it names is the one the call will use.
  auto world = declining_world(1, 2, {{"decline_ranks", "all"}});
  ASSERT_NE(world, nullptr);
  auto ops = world->team(0);
  ASSERT_TRUE(ops.ok()) << ops.status();
  auto sel = explain_in_place_sum(**ops, 64);
  ASSERT_TRUE(sel.ok()) << sel.status();
  EXPECT_THAT(declining_verdict(*sel, kDecliningFirst), HasSubstr("declined at team_create: this backend"));
  EXPECT_THAT(sel->chosen->id, HasSubstr("hierarchical_copy/all_reduce/"));
  ASSERT_TRUE(sum_all_reduce(**ops, 0, 1, 64).ok());
}

TEST(DecliningCandidateTest, EveryRankDeclinesAndTheNextCandidateServesEveryCall) {
  auto world = declining_world(2, 1, {{"decline_ranks", "all"}});
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    // The chief's initial broadcast, as MultiWorkerMirrored makes it.
    std::vector<float> weights(8, p == 0 ? 7.0f : 0.0f);
    const Buffer w[] = {Buffer{weights.data(), DType::kF32, weights.size(),
                               (*ops)->team().devices()[0]}};
    Status b = (*ops)->broadcast(w, w, 0);
    ASSERT_TRUE(b.ok()) << b;
    for (float x : weights) EXPECT_EQ(x, 7.0f);
    Status s = sum_all_reduce(**ops, p, 2, 8);
    ASSERT_TRUE(s.ok()) << s;
    auto sel = explain_in_place_sum(**ops, 8);
    ASSERT_TRUE(sel.ok()) << sel.status();
    EXPECT_EQ(sel->chosen->id, kStoreExchange);
    EXPECT_THAT(declining_verdict(*sel, kDecliningFirst),
                AllOf(HasSubstr("declined at team_create on worker 0: this backend cannot "
                                "reach its peers (team_create call 1 on rank 0)"),
                      HasSubstr("; on worker 1: this backend cannot reach its peers "
                                "(team_create call 1 on rank 1)")));
    // Later shapes neither ask it again nor disagree about it.
    ASSERT_TRUE(sum_all_reduce(**ops, p, 2, 3).ok());
    auto later = explain_in_place_sum(**ops, 3);
    ASSERT_TRUE(later.ok()) << later.status();
    EXPECT_EQ(later->chosen->id, kStoreExchange);
    EXPECT_THAT(declining_verdict(*later, kDecliningFirst), Not(HasSubstr("call 2")));
  });
}

TEST(DecliningCandidateTest, OneRankOfThreeDeclinesAndEveryRankSkipsIt) {
  auto world = declining_world(3, 1, {{"decline_ranks", "1"}});
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    std::chrono::steady_clock::duration took{};
    const auto start = std::chrono::steady_clock::now();
    Status s = sum_all_reduce(**ops, p, 3, 8);
    took = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_LT(took, 10s) << "the ranks must agree, not wait out a deadline";
    auto sel = explain_in_place_sum(**ops, 8);
    ASSERT_TRUE(sel.ok()) << sel.status();
    EXPECT_EQ(sel->chosen->id, kStoreExchange) << "process " << p;
    // Ranks 0 and 2 made a state; they name worker 1, which declined.
    EXPECT_EQ(declining_verdict(*sel, kDecliningFirst),
              "declined at team_create on worker 1: this backend cannot reach its peers "
              "(team_create call 1 on rank 1)")
        << "process " << p;
  });
}

TEST(DecliningCandidateTest, AFailedTeamCreateFailsTheCallOnEveryRankNamingIt) {
  auto world = declining_world(2, 1, {{"fail_ranks", "1"}});
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    const auto start = std::chrono::steady_clock::now();
    Status s = sum_all_reduce(**ops, p, 2, 8);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
    EXPECT_EQ(s.code(), Code::kUnavailable) << s;
    EXPECT_THAT(s.message(), HasSubstr("injected team_create failure (team_create call 1 on "
                                       "rank 1)"))
        << s;
    if (p == 0) {
      EXPECT_THAT(s.message(), HasSubstr(kDecliningFirst + "'s team_create failed on worker 1")) << s;
    }
    // Not skipped in silence: the team is unusable afterwards.
    Status again = sum_all_reduce(**ops, p, 2, 8);
    EXPECT_THAT(again.message(), HasSubstr("unusable after an earlier failure")) << again;
  });
}

TEST(DecliningCandidateTest, ASupportsDeclineOnOneRankIsSkippedByAll) {
  // A plugin breaking rule 5: supports() differs by rank. Every rank still
  // picks the same algorithm, and explain says which rank declined.
  auto world = declining_world(2, 1, {{"supports_decline_ranks", "1"}});
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    Status s = sum_all_reduce(**ops, p, 2, 8);
    ASSERT_TRUE(s.ok()) << s;
    auto sel = explain_in_place_sum(**ops, 8);
    ASSERT_TRUE(sel.ok()) << sel.status();
    EXPECT_EQ(sel->chosen->id, kStoreExchange);
    EXPECT_EQ(declining_verdict(*sel, kDecliningFirst),
              "declined at supports() on worker 1: declining's supports() refuses process "
              "rank 1");
  });
}

TEST(DecliningCandidateTest, AForcedAlgorithmThatDeclinesIsNotReplaced) {
  auto world = declining_world(2, 1, {{"decline_ranks", "all"}});
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    float x = 1.0f;
    const Buffer b[] = {Buffer{&x, DType::kF32, 1, (*ops)->team().devices()[0]}};
    CallOptions forced;
    forced.algorithm = kDecliningFirst;
    Status s = (*ops)->all_reduce(b, b, ReduceOp::kSum, forced);
    EXPECT_EQ(s.code(), Code::kNotSupported) << s;
    EXPECT_THAT(s.message(), AllOf(HasSubstr(kDecliningFirst + ": declined at team_create on worker 0"),
                                   HasSubstr("cannot reach its peers")))
        << s;
    // A decline breaks nothing: the next call, unforced, runs.
    ASSERT_TRUE(sum_all_reduce(**ops, p, 2, 8).ok());
  });
}

TEST(DecliningCandidateTest, ComposedCallsSkipItInTheLocalAndCrossProcessParts) {
  // Two devices per process: no single algorithm covers the team, so the
  // call is composed, and both sub-teams meet the declining candidate.
  auto world = declining_world(2, 2, {{"decline_ranks", "all"}});
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    Status s = sum_all_reduce(**ops, p, 2, 8);
    ASSERT_TRUE(s.ok()) << s;
  });
}

}  // namespace
}  // namespace strata
