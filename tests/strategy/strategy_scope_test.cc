// get_strategy(), scopes, and strategies built from the YAML config.
#include <gtest/gtest.h>

#include "core/strategy/default_strategy.h"
#include "core/strategy/strategy.h"
#include "strategy_test_util.h"

namespace strata::testing {
namespace {

TEST(StrategyScopeTest, OutsideAnyScopeTheDefaultStrategyIsCurrent) {
  EXPECT_FALSE(has_strategy());
  EXPECT_EQ(get_strategy().kind(), "default");
  EXPECT_EQ(get_strategy().num_replicas_in_sync(), 1);
  EXPECT_TRUE(in_cross_replica_context());
  // The default strategy passes values through.
  auto out = get_strategy().run([](ReplicaContext& ctx) {
    return ctx.all_reduce(ReduceOp::kSum, Tensor::scalar(3));
  });
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FLOAT_EQ((*out)[0].item(), 3.0f);
  auto reduced = get_strategy().reduce(ReduceOp::kSum, Tensor::scalar(5));
  ASSERT_TRUE(reduced.ok());
  EXPECT_FLOAT_EQ(reduced->item(), 5.0f);
}

TEST(StrategyScopeTest, ScopesNestAndRefuseAnotherStrategy) {
  auto runtime = make_runtime(4);
  ASSERT_NE(runtime, nullptr);
  auto mirrored = make_test_strategy(runtime, {"mirrored", 2});
  auto other = make_test_strategy(runtime, {"one_device", 1});
  ASSERT_NE(mirrored, nullptr);
  ASSERT_NE(other, nullptr);
  {
    auto scope = mirrored->scope();
    ASSERT_TRUE(scope.ok()) << scope.status();
    EXPECT_EQ(&get_strategy(), mirrored.get());
    {
      auto again = mirrored->scope();  // re-entering the same strategy is fine
      ASSERT_TRUE(again.ok());
      auto refused = other->scope();
      ASSERT_FALSE(refused.ok());
      EXPECT_NE(refused.status().message().find("inside the scope of mirrored"),
                std::string::npos)
          << refused.status();
    }
    EXPECT_EQ(&get_strategy(), mirrored.get());
  }
  EXPECT_FALSE(has_strategy());
}

TEST(StrategyScopeTest, EveryConfigExampleWithAStrategyBuildsIt) {
  auto runtime = Runtime::from_config_file(
      std::string(STRATA_SOURCE_DIR) + "/configs/mirrored_cpu.yaml",
      RuntimeOptions{.discover_plugins = false,
                     .use_environment = false,
                     .plugin_files = {std::string(STRATA_PLUGIN_DIR) +
                                      "/libstrata_hierarchical_copy.so"}});
  ASSERT_TRUE(runtime.ok()) << runtime.status();
  auto strategy = make_strategy_from_config(*runtime);
  ASSERT_TRUE(strategy.ok()) << strategy.status();
  EXPECT_EQ((*strategy)->kind(), "mirrored");
  EXPECT_EQ((*strategy)->num_replicas_in_sync(), 4);
  EXPECT_EQ((*strategy)->timeout(), std::chrono::seconds(60));
  EXPECT_EQ((*strategy)->describe(), "mirrored over cpu:0 .. cpu:3 (4 replicas)");
}

TEST(StrategyScopeTest, EachStrategyKindBuildsFromItsConfigExample) {
  const std::pair<const char*, const char*> examples[] = {
      {"one_device_cpu.yaml", "one_device over cpu:0 (1 replica)"},
      {"mirrored_cpu.yaml", "mirrored over cpu:0 .. cpu:3 (4 replicas)"},
      {"central_storage_cpu.yaml", "central_storage over cpu:0 .. cpu:2 (3 replicas)"},
      {"default.yaml", "default"}};
  for (const auto& [file, described] : examples) {
    auto runtime = Runtime::from_config_file(
        std::string(STRATA_SOURCE_DIR) + "/configs/" + file,
        RuntimeOptions{.discover_plugins = false,
                       .use_environment = false,
                       .plugin_files = {std::string(STRATA_PLUGIN_DIR) +
                                        "/libstrata_hierarchical_copy.so"}});
    ASSERT_TRUE(runtime.ok()) << file << ": " << runtime.status();
    auto strategy = make_strategy_from_config(*runtime);
    ASSERT_TRUE(strategy.ok()) << file << ": " << strategy.status();
    EXPECT_EQ((*strategy)->describe(), described) << file;
  }
}

TEST(StrategyScopeTest, ConfigOverridesFromCommunicationOptions) {
  auto runtime = make_runtime(4);
  ASSERT_NE(runtime, nullptr);
  CommunicationOptions comm;
  comm.timeout = std::chrono::seconds(7);
  comm.bytes_per_pack = 1024;
  StrategyOptions options;
  options.devices = {"cpu:0", "cpu:1", "cpu:2"};
  options.parameter_device = "cpu:2";
  options.communication = comm;
  auto s = make_strategy(runtime, "central_storage", options);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->timeout(), std::chrono::seconds(7));
  EXPECT_EQ((*s)->collectives()->config().bytes_per_pack, 1024u);
  ASSERT_EQ((*s)->variable_devices().size(), 1u);
  EXPECT_EQ((*s)->variable_devices()[0].index, 2);
}

}  // namespace
}  // namespace strata::testing
