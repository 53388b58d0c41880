// cluster.store_max_*: what the job may make its store hold. Their
// defaults, their units, mistakes reported at the key's own
// file:line:column, and their way to plugins, whose stores honour them too.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config/config.h"
#include "core/plugin/plugin_discovery.h"
#include "core/runtime/runtime.h"
#include "tests/config/config_test_util.h"

namespace strata {
namespace {

using config_testing::error_of;
using config_testing::parse;

TEST(StoreLimits, TakeUnitsAndAreChecked) {
  StatusOr<Config> defaults = parse("strata: 1\n");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->cluster.store_limits.max_bytes, uint64_t{256} << 20);
  EXPECT_EQ(defaults->cluster.store_limits.max_keys, 1000000u);
  EXPECT_EQ(defaults->cluster.store_limits.max_value_bytes, uint64_t{16} << 20);
  StatusOr<Config> config = parse(
      "strata: 1\ncluster: {store_max_bytes: 1GiB, store_max_keys: 5000, "
      "store_max_value: 64KiB}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->cluster.store_limits.max_bytes, uint64_t{1} << 30);
  EXPECT_EQ(config->cluster.store_limits.max_keys, 5000u);
  EXPECT_EQ(config->cluster.store_limits.max_value_bytes, uint64_t{64} << 10);
  const std::string too_big = error_of("strata: 1\ncluster: {store_max_value: 32MiB}\n");
  EXPECT_EQ(too_big.rfind("test.yaml:2:28: ", 0), 0u) << too_big;
  EXPECT_NE(too_big.find("at most 16 MiB"), std::string::npos) << too_big;
  EXPECT_NE(error_of("strata: 1\ncluster: {store_max_keys: 0}\n").find("store_max_keys"),
            std::string::npos);
  EXPECT_NE(error_of("strata: 1\ncluster: {store_max_bytes: lots}\n").find("store_max_bytes"),
            std::string::npos);
}

// A zero is reported at the key's own line and column, like every other
// mistake (not at the cluster map that holds it).
TEST(StoreLimits, AZeroIsReportedWhereItIsWritten) {
  EXPECT_EQ(error_of("strata: 1\ncluster: {store_max_bytes: 0}\n"),
            "test.yaml:2:28: cluster.store_max_bytes: must be greater than 0");
  EXPECT_EQ(error_of("strata: 1\ncluster:\n  heartbeat: 1s\n  store_max_value: 0KiB\n"),
            "test.yaml:4:20: cluster.store_max_value: must be greater than 0");
  EXPECT_EQ(error_of("strata: 1\ncluster:\n  store_max_keys: 0\n"),
            "test.yaml:3:19: cluster.store_max_keys: expected a whole number from 1 to "
            "9223372036854775807, got '0'");
}

// Every plugin's option() answers them under their config names, and a
// plugin's own options cannot change them.
TEST(StoreLimits, EveryPluginIsToldThem) {
  StatusOr<Config> config = parse(
      "strata: 1\ncluster: {store_max_bytes: 1MiB, store_max_keys: 10}\n"
      "plugins: {options: {grpc_ring: {chunk_bytes: 4KiB, cluster.store_max_keys: 99}}}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  const LoaderOptions loader = Runtime::loader_options(*config, RuntimeOptions{});
  for (const char* plugin : {"grpc_ring", "any_other"}) {
    const auto options = plugin_options(plugin, loader);
    EXPECT_EQ(options.at("cluster.store_max_bytes"), "1048576") << plugin;
    EXPECT_EQ(options.at("cluster.store_max_keys"), "10") << plugin;
    EXPECT_EQ(options.at("cluster.store_max_value"), "16777216") << plugin;
  }
  EXPECT_EQ(plugin_options("grpc_ring", loader).at("chunk_bytes"), "4KiB");
}

}  // namespace
}  // namespace strata
