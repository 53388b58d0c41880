// Hosts in teams (team_agreement.cc, host_key.h) and when a team that spans
// hosts is composed by host (host_hierarchy.h). Threads stand in for the
// processes, TeamSpec::host_key for their hosts. The host_aware plugin
// plays a shared-memory plugin (one_host: cheap, declines teams across
// hosts) and a network one (between_hosts: dearer, any team).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "process_world.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kHostLevelsCount = 64;

struct Outcome {
  HierarchyDecision decision;
  bool composed = false;
  std::vector<int32_t> result;
};

// Runs one i32 SUM all_reduce of kHostLevelsCount on every process (process p
// contributes p + 1 everywhere) and reports process 0's view.
Outcome all_reduce_on(const testing::ProcessWorld& world) {
  Outcome out;
  std::mutex mu;
  world.run([&](int p) {
    auto ops = world.team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    std::vector<int32_t> data(kHostLevelsCount, p + 1);
    const Buffer b{data.data(), DType::kI32, kHostLevelsCount, (*ops)->team().devices()[0]};
    const Buffer buffers[] = {b};
    Status s = (*ops)->all_reduce(buffers, buffers, ReduceOp::kSum);
    ASSERT_TRUE(s.ok()) << s;
    auto decision = (*ops)->explain_hierarchy(CollectiveKind::kAllReduce, DType::kI32, kHostLevelsCount);
    ASSERT_TRUE(decision.ok()) << decision.status();
    for (int32_t v : data) ASSERT_EQ(v, world.processes() * (world.processes() + 1) / 2);
    if (p != 0) return;
    std::lock_guard lock(mu);
    out.decision = *decision;
    out.composed = (*ops)->host_composition() != nullptr;
    out.result = data;
  });
  return out;
}

std::unique_ptr<testing::ProcessWorld> world_of(std::vector<int> hosts, Config config = {},
                                                bool host_aware = true) {
  std::vector<std::string> plugins;
  if (host_aware) plugins.push_back(STRATA_HOST_AWARE_PLUGIN_FILE);
  auto world = testing::ProcessWorld::create(static_cast<int>(hosts.size()), 1, config, plugins);
  if (world) world->set_hosts(std::move(hosts));
  return world;
}

TEST(HostLevels, TeamsKnowTheirHostsNumberedByLowestRank) {
  auto world = world_of({0, 1, 0, 1}, {}, false);
  ASSERT_NE(world, nullptr);
  world->run([&](int p) {
    auto ops = world->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    const Team& team = (*ops)->team();
    EXPECT_EQ(team.host_count(), 2);
    EXPECT_EQ(team.desc().host_count, 2);
    EXPECT_EQ(team.host_of(2), 0);
    EXPECT_EQ(team.host_of(3), 1);
    EXPECT_THAT(team.host_members(1), ElementsAre(1, 3));
    EXPECT_EQ(team.largest_host(), 2);
  });
  auto same_host = world_of({0, 0, 0}, {}, false);
  ASSERT_NE(same_host, nullptr);
  same_host->run([&](int p) {
    auto ops = same_host->team(p);
    ASSERT_TRUE(ops.ok()) << ops.status();
    EXPECT_EQ((*ops)->team().host_count(), 1);
  });
}

TEST(HostLevels, ATeamOfOneProcessIsOnOneHost) {
  auto runtime = testing::make_multi_process_runtime(2);
  ASSERT_NE(runtime, nullptr);
  TeamSpec spec;
  const uint32_t cpu = runtime->registry().find_device_type("cpu")->id;
  spec.local_devices = {{cpu, 0}, {cpu, 1}};
  auto ops = CollectiveOps::create(runtime, spec);
  ASSERT_TRUE(ops.ok()) << ops.status();
  EXPECT_EQ((*ops)->team().desc().host_count, 1);
}

TEST(HostLevels, AutoComposesWhenTheLevelsCostLess) {
  auto world = world_of({0, 0, 1, 1});
  ASSERT_NE(world, nullptr);
  Outcome out = all_reduce_on(*world);
  EXPECT_TRUE(out.composed);
  const HierarchyDecision& d = out.decision;
  EXPECT_TRUE(d.compose) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("composed by host"));
  ASSERT_TRUE(d.flat_seconds && d.composed_seconds);
  EXPECT_LT(*d.composed_seconds, *d.flat_seconds);
  ASSERT_EQ(d.steps.size(), 3u);
  EXPECT_EQ(d.steps[0].level, HostLevel::kIntraHost);
  EXPECT_EQ(d.steps[0].selection.chosen->id, "host_aware/reduce/one_host");
  EXPECT_EQ(d.steps[1].level, HostLevel::kInterHost);
  EXPECT_EQ(d.steps[1].selection.chosen->id, "host_aware/all_reduce/between_hosts");
  EXPECT_EQ(d.steps[2].selection.chosen->id, "host_aware/broadcast/one_host");
}

TEST(HostLevels, AutoStaysFlatWhenNothingCanBeCompared) {
  auto world = world_of({0, 0, 1, 1}, {}, false);  // store_exchange only: no estimates
  ASSERT_NE(world, nullptr);
  Outcome out = all_reduce_on(*world);
  EXPECT_FALSE(out.composed);
  EXPECT_FALSE(out.decision.compose);
  EXPECT_TRUE(out.decision.qualifies);
  EXPECT_THAT(out.decision.reason, HasSubstr("no time to compare"));
}

TEST(HostLevels, HierarchyFlatForbidsIt) {
  Config config;
  config.collectives.hierarchy = "flat";
  auto world = world_of({0, 0, 1, 1}, config);
  ASSERT_NE(world, nullptr);
  Outcome out = all_reduce_on(*world);
  EXPECT_FALSE(out.composed);
  EXPECT_THAT(out.decision.reason, HasSubstr("collectives.hierarchy: flat"));
  // explain still shows what the levels would have run.
  ASSERT_EQ(out.decision.steps.size(), 3u);
}

TEST(HostLevels, ARuleForTheWholeTeamKeepsItFlat) {
  Config config;
  CollectiveRule rule;
  rule.op = CollectiveKind::kAllReduce;
  rule.use = "host_aware/all_reduce/between_hosts";
  config.collectives.rules.push_back(rule);
  auto world = world_of({0, 0, 1, 1}, config);
  ASSERT_NE(world, nullptr);
  Outcome out = all_reduce_on(*world);
  EXPECT_FALSE(out.composed);
  EXPECT_THAT(out.decision.reason, HasSubstr("chosen by collectives.rules[0]"));
}

TEST(HostLevels, OneProcessPerHostHasNothingToCompose) {
  Config config;
  config.collectives.hierarchy = "host";
  auto world = world_of({0, 1, 2}, config);
  ASSERT_NE(world, nullptr);
  Outcome out = all_reduce_on(*world);
  EXPECT_FALSE(out.composed);
  EXPECT_FALSE(out.decision.qualifies);
  EXPECT_THAT(out.decision.reason, HasSubstr("one process per host"));
}

}  // namespace
}  // namespace strata
