// Resolvers added by a plugin through the registrar, loaded the way users
// load plugins, meeting core's built-ins in "auto"'s order. These tests use
// the process environment (the loaded resolvers read getenv), so the
// fixture clears every variable any resolver reads before and after each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/cluster/resolve.h"
#include "core/plugin/registry.h"
#include "core/runtime/runtime.h"
#include "resolver_test_util.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using testing::error_of;

constexpr const char* kVariables[] = {"TF_CONFIG",
                                      "SLURM_PROCID",
                                      "SLURM_STEP_NUM_TASKS",
                                      "SLURM_NTASKS",
                                      "SLURM_STEP_NODELIST",
                                      "SLURM_JOB_NODELIST",
                                      "SLURM_STEP_TASKS_PER_NODE",
                                      "SLURM_TASKS_PER_NODE",
                                      "SLURMD_NODENAME",
                                      "SLURM_LOCALID",
                                      "STRATA_SLURM_PORT_BASE",
                                      "STRATA_WORKERS",
                                      "STRATA_CHIEF",
                                      "STRATA_PS",
                                      "STRATA_TASK_TYPE",
                                      "STRATA_TASK_INDEX",
                                      "STRATA_DEVICES_PER_WORKER",
                                      "RESOLVER_TEST_MPI",
                                      "RESOLVER_TEST_SCHED",
                                      "RESOLVER_TEST_BROKEN"};

class PluginResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clear();
    auto rt = Runtime::create({}, RuntimeOptions{.discover_plugins = false,
                                                 .use_environment = false,
                                                 .plugin_files = {RESOLVER_TEST_PLUGIN}});
    ASSERT_TRUE(rt.ok()) << rt.status();
    rt_ = *rt;
  }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name : kVariables) unsetenv(name);
  }
  static void set(const char* name, const char* value) { setenv(name, value, 1); }
  StatusOr<ClusterSpec> resolve(std::string_view name = "auto") {
    return resolve_cluster(rt_->registry(), name);
  }

  std::shared_ptr<Runtime> rt_;
};

TEST_F(PluginResolverTest, TheRegistrarAddsThemUnderThePluginsName) {
  const ResolverEntry* entry = rt_->registry().find_resolver("batch_sched");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->plugin, "resolver_test");
  EXPECT_EQ(rt_->registry().find_resolver("tf_config")->plugin, "core");
  EXPECT_THAT(auto_resolver_order(rt_->registry()),
              ElementsAre("tf_config", "slurm", "mpi", "batch_sched", "broken_sched", "simple"));
}

TEST_F(PluginResolverTest, AutoWalksTheOrderWithRealVariables) {
  EXPECT_EQ(resolve()->resolver, "simple");
  set("RESOLVER_TEST_SCHED", "1/3");
  auto sched = resolve();
  ASSERT_TRUE(sched.ok()) << sched.status();
  EXPECT_EQ(sched->resolver, "batch_sched");
  EXPECT_EQ(sched->rank(), 1);
  EXPECT_EQ(sched->chief_address(), "sched0:7000");
  EXPECT_EQ(sched->rpc_layer, "grpc");
  EXPECT_EQ(sched->device_type, "cpu");
  EXPECT_EQ(sched->devices_per_task, 2);
  set("RESOLVER_TEST_MPI", "0/2");
  EXPECT_EQ(resolve()->resolver, "mpi");
  set("SLURM_PROCID", "0");
  set("SLURM_STEP_NUM_TASKS", "1");
  set("SLURM_STEP_NODELIST", "n1");
  set("SLURM_STEP_TASKS_PER_NODE", "1");
  EXPECT_EQ(resolve()->resolver, "slurm");
  set("TF_CONFIG", R"({"cluster": {"worker": ["w:1"]}, "task": {"type": "worker"}})");
  EXPECT_EQ(resolve()->resolver, "tf_config");
}

TEST_F(PluginResolverTest, APluginErrorStopsAutoBeforeSimple) {
  set("RESOLVER_TEST_BROKEN", "x");
  set("STRATA_WORKERS", "a:1");
  auto spec = resolve();
  EXPECT_EQ(spec.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(error_of(spec),
            "cluster resolver 'broken_sched' of plugin 'resolver_test': "
            "RESOLVER_TEST_BROKEN='x' is not a number");
}

TEST_F(PluginResolverTest, ConfigNamesAPluginResolver) {
  set("RESOLVER_TEST_SCHED", "0/2");
  auto parsed = parse_config("strata: 1\ncluster: {resolver: batch_sched}\n", "<test>");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  auto spec = resolve(parsed->cluster.resolver);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->source, "cluster resolver 'batch_sched' of plugin 'resolver_test'");
  EXPECT_TRUE(spec->is_chief());
  unsetenv("RESOLVER_TEST_SCHED");
  EXPECT_EQ(error_of(resolve(parsed->cluster.resolver)),
            "cluster resolver 'batch_sched' of plugin 'resolver_test': RESOLVER_TEST_SCHED is "
            "not set; cluster.resolver is 'batch_sched', so it must answer (use auto to try the "
            "others)");
}

TEST_F(PluginResolverTest, DevicesPerWorkerFromTheProcessEnvironment) {
  set("STRATA_WORKERS", "a:1,b:1");
  set("STRATA_TASK_INDEX", "1");
  set("STRATA_DEVICES_PER_WORKER", "cpu:2");
  auto spec = resolve("simple");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->rank(), 1);
  EXPECT_EQ(spec->device_type, "cpu");
  EXPECT_EQ(spec->devices_per_task, 2);
}

}  // namespace
}  // namespace strata
