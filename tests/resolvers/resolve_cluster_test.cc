// resolve_cluster: one resolver by name or "auto"'s search, every resolver
// (core's and plugins') run through the same C sink, the sink's checks on
// what a resolver says, and STRATA_DEVICES_PER_WORKER.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/cluster/resolve.h"
#include "core/device/cpu_device_type.h"
#include "resolver_test_util.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using testing::error_of;
using testing::ResolverRegistry;
using ::testing::StartsWith;
using testing::Variables;

constexpr const char* kTfConfig =
    R"({"cluster": {"worker": ["tf0:1", "tf1:1"]}, "task": {"type": "worker", "index": 1}})";
const Variables kSlurm = {{"SLURM_PROCID", "0"},
                          {"SLURM_STEP_NUM_TASKS", "1"},
                          {"SLURM_STEP_NODELIST", "n1"},
                          {"SLURM_STEP_TASKS_PER_NODE", "1"}};

// Core's three resolvers reading `variables`, plus plugin "test_plugin"'s
// "mpi", "aaa" and "zzz", each answering only when its flag is set.
struct Job {
  Variables variables;
  bool mpi = false, aaa = false, zzz = false;
};

std::unique_ptr<ResolverRegistry> registry_for(const Job& job) {
  auto r = std::make_unique<ResolverRegistry>();
  EXPECT_TRUE(r->add_builtins(job.variables).ok());
  for (auto [name, answers] : {std::pair{"mpi", job.mpi}, {"aaa", job.aaa}, {"zzz", job.zzz}}) {
    EXPECT_TRUE(
        r->add("test_plugin", answers ? testing::answering(name, 2, 1) : testing::declining(name))
            .ok());
  }
  return r;
}

StatusOr<ClusterSpec> resolve_auto(const Job& job) {
  auto r = registry_for(job);
  return resolve_cluster(r->registry(), "auto", MapEnvironment(job.variables));
}

TEST(ResolveCluster, AutoOrderIsSchedulersThenPluginsByNameThenSimple) {
  auto r = registry_for({});
  EXPECT_THAT(auto_resolver_order(r->registry()),
              ElementsAre("tf_config", "slurm", "mpi", "aaa", "zzz", "simple"));
  ResolverRegistry no_mpi;
  ASSERT_TRUE(no_mpi.add_builtins({}).ok());
  ASSERT_TRUE(no_mpi.add("other", testing::declining("kube")).ok());
  EXPECT_THAT(auto_resolver_order(no_mpi.registry()),
              ElementsAre("tf_config", "slurm", "kube", "simple"));
}

TEST(ResolveCluster, AutoTakesTheFirstResolverThatAnswers) {
  Variables both = kSlurm;
  both["TF_CONFIG"] = kTfConfig;
  const std::vector<std::pair<Job, std::string>> cases = {
      {{both, true, true, true}, "tf_config"}, {{kSlurm, true, true, true}, "slurm"},
      {{{}, true, true, true}, "mpi"},         {{{}, false, true, true}, "aaa"},
      {{{}, false, false, true}, "zzz"},       {{{}, false, false, false}, "simple"},
  };
  for (const auto& [job, expected] : cases) {
    auto spec = resolve_auto(job);
    ASSERT_TRUE(spec.ok()) << expected << ": " << spec.status();
    EXPECT_EQ(spec->resolver, expected);
  }
}

TEST(ResolveCluster, WhatAPluginResolverSaysReachesTheSpec) {
  auto spec = resolve_auto({{}, false, true, false});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->jobs.at("worker"), ElementsAre("aaa-host0:7000", "aaa-host1:7000"));
  EXPECT_EQ(spec->rank(), 1);
  EXPECT_EQ(spec->source, "cluster resolver 'aaa' of plugin 'test_plugin'");
}

TEST(ResolveCluster, CoreResolversGoThroughTheSinkWithTheirSource) {
  auto r = registry_for({{{"TF_CONFIG", kTfConfig}}});
  auto spec = resolve_cluster(r->registry(), "tf_config", MapEnvironment());
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->jobs.at("worker"), ElementsAre("tf0:1", "tf1:1"));
  EXPECT_EQ(spec->task_index, 1);
  EXPECT_EQ(spec->resolver, "tf_config");
  EXPECT_EQ(spec->source, "TF_CONFIG");
  auto single = resolve_auto({});
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_EQ(single->world_size(), 1);
  EXPECT_EQ(single->source, "STRATA_WORKERS / STRATA_TASK_INDEX (simple)");
}

TEST(ResolveCluster, AnErrorStopsAutoAndNamesTheResolver) {
  auto spec = resolve_auto({{{"TF_CONFIG", "{\"cluster\": "}, {"STRATA_WORKERS", "a:1"}}});
  EXPECT_EQ(spec.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(error_of(spec),
              StartsWith("cluster resolver 'tf_config': TF_CONFIG is not valid JSON: parse error "
                         "at line 1, column 12"));
  Variables bad_slurm = kSlurm;
  bad_slurm["SLURM_STEP_NODELIST"] = "n[1-";
  EXPECT_EQ(error_of(resolve_auto({bad_slurm, true})),
            "cluster resolver 'slurm': SLURM_STEP_NODELIST: unclosed '[' in host list 'n[1-'");
}

TEST(ResolveCluster, APluginResolverErrorStopsAuto) {
  ResolverRegistry r;
  ASSERT_TRUE(r.add_builtins({}).ok());
  ASSERT_TRUE(r.add("sched", std::make_unique<testing::LambdaResolver>(
                                 "kube",
                                 [](sdk::ClusterSink&) {
                                   throw sdk::InvalidArgument("KUBE_POD_INDEX='x' is not a number");
                                 }))
                  .ok());
  auto spec = resolve_cluster(r.registry(), "auto", MapEnvironment());
  EXPECT_EQ(spec.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(error_of(spec),
            "cluster resolver 'kube' of plugin 'sched': KUBE_POD_INDEX='x' is not a number");
}

TEST(ResolveCluster, UnknownNameListsTheRegisteredOnes) {
  auto r = registry_for({});
  auto spec = resolve_cluster(r->registry(), "slrum", MapEnvironment());
  EXPECT_EQ(spec.status().code(), Code::kNotFound);
  EXPECT_EQ(error_of(spec),
            "unknown cluster resolver 'slrum' (cluster.resolver); registered: "
            "auto, aaa, mpi, simple, slurm, tf_config, zzz");
}

TEST(ResolveCluster, ANamedResolverThatDeclinesIsAnError) {
  auto r = registry_for({});
  auto spec = resolve_cluster(r->registry(), "slurm", MapEnvironment());
  EXPECT_EQ(spec.status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(error_of(spec),
            "cluster resolver 'slurm': SLURM_PROCID is not set (not a task started by srun); "
            "cluster.resolver is 'slurm', so it must answer (use auto to try the others)");
}

TEST(ResolveCluster, AutoWithNobodyAnsweringSaysWhyEachDeclined) {
  ResolverRegistry empty;
  EXPECT_EQ(error_of(resolve_cluster(empty.registry(), "auto", MapEnvironment())),
            "cluster.resolver auto: no resolver answered (none is registered)");
  ResolverRegistry r;
  ASSERT_TRUE(r.add("p", testing::declining("mpi")).ok());
  ASSERT_TRUE(r.add("q", testing::declining("kube")).ok());
  EXPECT_EQ(error_of(resolve_cluster(r.registry(), "auto", MapEnvironment())),
            "cluster.resolver auto: no resolver answered (cluster resolver 'mpi' of plugin 'p': "
            "mpi finds nothing here; cluster resolver 'kube' of plugin 'q': kube finds nothing "
            "here)");
}

TEST(ResolveCluster, TheAnswerIsValidatedWithThePluginNamed) {
  ResolverRegistry r;
  ASSERT_TRUE(r.add("p", testing::answering("kube", 2, 5)).ok());
  EXPECT_EQ(error_of(resolve_cluster(r.registry(), "kube", MapEnvironment())),
            "cluster resolver 'kube' of plugin 'p': task index 5 is out of range for job "
            "'worker', which has 2 task(s) (indices 0-1)");
}

}  // namespace
}  // namespace strata
