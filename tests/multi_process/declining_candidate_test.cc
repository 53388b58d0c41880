// A candidate that cannot serve a team, and says so only in team_create,
// passes the call on to the next candidate: on every rank alike, whether it
// declined on every rank or on one, with the declining rank and its reason
// in explain(), and without being asked again. A team_create that fails
// (not a decline) fails the call on every rank instead. The declining test
// plugin is first in AUTO and refuses teams as its options say.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
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

// Runs body(p, team of p) on a thread for each of `processes` "processes"
// of `local` devices, in one Runtime that also loads the declining plugin
// with `options` (its decline_ranks, fail_ranks, supports_decline_ranks).
void on_each_declining_process(int processes, int local,
                               std::map<std::string, std::string> options,
                               const std::function<void(int, CollectiveOps&)>& body) {
  Config config;
  config.plugins.options["declining"] = std::move(options);
  auto world = testing::ProcessWorld::create(processes, local, config, {STRATA_DECLINING_PLUGIN});
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    body(p, **ops);
  });
}

// All-reduces (SUM, in place) one buffer of `count` floats per local
// device, each holding process rank + 1; checks the sums when it is OK.
Status declining_sum(CollectiveOps& ops, int p, uint64_t count) {
  const int local = ops.team().local_count();
  const int processes = ops.team().replica_count() / local;
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

// What explain() says about the shape declining_sum() calls.
struct DecliningExplained {
  std::string chosen;   // the winner's id
  std::string first;    // the first candidate tried
  std::string verdict;  // the verdict on kDecliningFirst; "" when it is no candidate
};

// explain() of declining_sum(ops, p, count)'s shape, after that call, which
// must succeed; empty fields (and a test failure) when either fails.
DecliningExplained sum_then_explain(CollectiveOps& ops, int p, uint64_t count) {
  DecliningExplained out;
  const Status s = declining_sum(ops, p, count);
  EXPECT_TRUE(s.ok()) << "process " << p << ": " << s;
  if (!s.ok()) return out;
  auto sel = ops.explain(CollectiveKind::kAllReduce, DType::kF32, count, ReduceOp::kSum,
                         /*in_place=*/true, 0);
  EXPECT_TRUE(sel.ok()) << "process " << p << ": " << sel.status();
  if (!sel.ok()) return out;
  if (sel->chosen != nullptr) out.chosen = sel->chosen->id;
  if (!sel->candidates.empty()) out.first = sel->candidates.front().algorithm->id;
  for (const Candidate& c : sel->candidates) {
    if (c.algorithm->id == kDecliningFirst) out.verdict = c.verdict;
  }
  return out;
}

TEST(DecliningCandidateTest, OneProcessMovesOnToTheNextCandidate) {
  on_each_declining_process(1, 2, {{"decline_ranks", "all"}}, [](int p, CollectiveOps& ops) {
    const DecliningExplained e = sum_then_explain(ops, p, 16);
    EXPECT_EQ(e.first, kDecliningFirst) << "AUTO must try it first";
    EXPECT_EQ(e.verdict,
              "declined at team_create: this backend cannot reach its peers (team_create call 1 "
              "on rank 0)");
    EXPECT_THAT(e.chosen, HasSubstr("hierarchical_copy/all_reduce/"));
    // Another shape: the decline is remembered, team_create is not asked again.
    EXPECT_THAT(sum_then_explain(ops, p, 1000).verdict,
                HasSubstr("(team_create call 1 on rank 0)"));
  });
}

TEST(DecliningCandidateTest, ExplainBeforeAnyCallShowsTheDeclineOnOneProcess) {
  // `strata explain` never calls: on one process it tries team_create too,
  // so the winner it names is the one the call will use.
  on_each_declining_process(1, 2, {{"decline_ranks", "all"}}, [](int p, CollectiveOps& ops) {
    auto sel = ops.explain(CollectiveKind::kAllReduce, DType::kF32, 64, ReduceOp::kSum,
                           /*in_place=*/true, 0);
    ASSERT_TRUE(sel.ok()) << sel.status();
    ASSERT_FALSE(sel->candidates.empty());
    EXPECT_EQ(sel->candidates.front().algorithm->id, kDecliningFirst);
    EXPECT_THAT(sel->candidates.front().verdict,
                HasSubstr("declined at team_create: this backend"));
    EXPECT_THAT(sel->chosen->id, HasSubstr("hierarchical_copy/all_reduce/"));
    EXPECT_TRUE(declining_sum(ops, p, 64).ok());
  });
}

TEST(DecliningCandidateTest, EveryRankDeclinesAndTheNextCandidateServesEveryCall) {
  on_each_declining_process(2, 1, {{"decline_ranks", "all"}}, [](int p, CollectiveOps& ops) {
    // The chief's initial broadcast, as MultiWorkerMirrored makes it.
    std::vector<float> weights(8, p == 0 ? 7.0f : 0.0f);
    const Buffer w[] = {
        Buffer{weights.data(), DType::kF32, weights.size(), ops.team().devices()[0]}};
    Status b = ops.broadcast(w, w, 0);
    ASSERT_TRUE(b.ok()) << b;
    for (float x : weights) EXPECT_EQ(x, 7.0f);
    const DecliningExplained e = sum_then_explain(ops, p, 8);
    EXPECT_EQ(e.chosen, kStoreExchange);
    EXPECT_THAT(e.verdict, AllOf(HasSubstr("declined at team_create on worker 0: this backend "
                                           "cannot reach its peers (team_create call 1 on rank 0)"),
                                 HasSubstr("; on worker 1: this backend cannot reach its peers "
                                           "(team_create call 1 on rank 1)")));
    // Later shapes neither ask it again nor disagree about it.
    const DecliningExplained later = sum_then_explain(ops, p, 3);
    EXPECT_EQ(later.chosen, kStoreExchange);
    EXPECT_THAT(later.verdict, Not(HasSubstr("call 2")));
  });
}

TEST(DecliningCandidateTest, OneRankOfThreeDeclinesAndEveryRankSkipsIt) {
  on_each_declining_process(3, 1, {{"decline_ranks", "1"}}, [](int p, CollectiveOps& ops) {
    const auto start = std::chrono::steady_clock::now();
    const DecliningExplained e = sum_then_explain(ops, p, 8);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s)
        << "the ranks must agree, not wait out a deadline";
    EXPECT_EQ(e.chosen, kStoreExchange) << "process " << p;
    // Ranks 0 and 2 made a state; they name worker 1, which declined.
    EXPECT_EQ(e.verdict,
              "declined at team_create on worker 1: this backend cannot reach its peers "
              "(team_create call 1 on rank 1)")
        << "process " << p;
  });
}

TEST(DecliningCandidateTest, AFailedTeamCreateFailsTheCallOnEveryRankNamingIt) {
  on_each_declining_process(2, 1, {{"fail_ranks", "1"}}, [](int p, CollectiveOps& ops) {
    const auto start = std::chrono::steady_clock::now();
    Status s = declining_sum(ops, p, 8);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
    EXPECT_EQ(s.code(), Code::kUnavailable) << s;
    EXPECT_THAT(s.message(), HasSubstr("injected team_create failure (team_create call 1 on "
                                       "rank 1)"))
        << s;
    if (p == 0) {
      EXPECT_THAT(s.message(), HasSubstr(kDecliningFirst + "'s team_create failed on worker 1"))
          << s;
    }
    // Not skipped in silence: the team is unusable afterwards.
    Status again = declining_sum(ops, p, 8);
    EXPECT_THAT(again.message(), HasSubstr("unusable after an earlier failure")) << again;
  });
}

TEST(DecliningCandidateTest, ASupportsDeclineOnOneRankIsSkippedByAll) {
  // A plugin breaking rule 5: supports() differs by rank. Every rank still
  // picks the same algorithm, and explain says which rank declined.
  const std::map<std::string, std::string> options = {{"supports_decline_ranks", "1"}};
  on_each_declining_process(2, 1, options, [](int p, CollectiveOps& ops) {
    const DecliningExplained e = sum_then_explain(ops, p, 8);
    EXPECT_EQ(e.chosen, kStoreExchange);
    EXPECT_EQ(e.verdict,
              "declined at supports() on worker 1: declining's supports() refuses process rank 1");
  });
}

TEST(DecliningCandidateTest, AForcedAlgorithmThatDeclinesIsNotReplaced) {
  on_each_declining_process(2, 1, {{"decline_ranks", "all"}}, [](int p, CollectiveOps& ops) {
    float x = 1.0f;
    const Buffer b[] = {Buffer{&x, DType::kF32, 1, ops.team().devices()[0]}};
    CallOptions forced;
    forced.algorithm = kDecliningFirst;
    Status s = ops.all_reduce(b, b, ReduceOp::kSum, forced);
    EXPECT_EQ(s.code(), Code::kNotSupported) << s;
    EXPECT_THAT(s.message(),
                AllOf(HasSubstr(kDecliningFirst + ": declined at team_create on worker 0"),
                      HasSubstr("cannot reach its peers")))
        << s;
    // A decline breaks nothing: the next call, unforced, runs.
    EXPECT_TRUE(declining_sum(ops, p, 8).ok());
  });
}

TEST(DecliningCandidateTest, ComposedCallsSkipItInTheLocalAndCrossProcessParts) {
  // Two devices per process: no single algorithm covers the team, so the
  // call is composed, and both sub-teams meet the declining candidate.
  on_each_declining_process(2, 2, {{"decline_ranks", "all"}}, [](int p, CollectiveOps& ops) {
    const Status s = declining_sum(ops, p, 8);
    EXPECT_TRUE(s.ok()) << s;
  });
}

}  // namespace
}  // namespace strata
