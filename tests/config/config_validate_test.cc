// validate_config: names in a config checked against what is registered
// (algorithms, plugins), and the configs shipped in configs/.
#include <filesystem>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config/config.h"
#include "core/plugin/registry.h"
#include "tests/config/config_test_util.h"

namespace strata {
namespace {

using config_testing::error_of;
using config_testing::parse;

namespace fs = std::filesystem;

// A small registry with known ids, for validate_config.
strata_status_t fake_create(void*, void*, const strata_call_t*, void**, strata_message_t) {
  return STRATA_OK;
}
strata_status_t fake_step(void*, strata_message_t) { return STRATA_OK; }
void fake_end(void*) {}

void add(Registry& registry, const char* plugin, const char* name, strata_op_t op) {
  strata_algorithm_t t{};
  t.struct_size = sizeof t;
  t.name = name;
  t.op = op;
  t.scope = STRATA_SCOPE_LOCAL;
  t.create = fake_create;
  t.post = fake_step;
  t.test = fake_step;
  t.abort = fake_end;
  t.destroy = fake_end;
  ASSERT_TRUE(registry.add_algorithm(plugin, t).ok());
}

class ValidateConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    add(registry_, "hierarchical_copy", "reduction_to_one_device", STRATA_ALL_REDUCE);
    add(registry_, "hierarchical_copy", "scatter_reduce", STRATA_ALL_REDUCE);
    add(registry_, "grpc_ring", "ring", STRATA_ALL_REDUCE);
    add(registry_, "grpc_ring", "ring", STRATA_BROADCAST);
  }
  Status validate(std::string_view yaml) {
    StatusOr<Config> config = parse(yaml);
    EXPECT_TRUE(config.ok()) << config.status();
    return config.ok() ? validate_config(*config, registry_) : config.status();
  }
  Registry registry_;
};

TEST_F(ValidateConfig, AcceptsRegisteredNames) {
  EXPECT_TRUE(validate("strata: 1\n").ok());
  for (const char* impl :
       {"auto", "ring", "grpc_ring", "hierarchical_copy/all_reduce/scatter_reduce"}) {
    Status s = validate(std::string("strata: 1\ncollectives: {implementation: ") + impl + "}\n");
    EXPECT_TRUE(s.ok()) << impl << ": " << s;
  }
  EXPECT_TRUE(validate("strata: 1\ncollectives:\n  rules:\n"
                       "    - {use: grpc_ring/broadcast/ring}\n"
                       "    - {use: hierarchical_copy/all_reduce/scatter_reduce}\n").ok());
}

TEST_F(ValidateConfig, UnregisteredRuleNamesItAndListsTheOpsAlgorithms) {
  Status s = validate("strata: 1\ncollectives:\n  rules:\n"
                      "    - {use: grpc_ring/all_reduce/ring}\n"
                      "    - {op: all_reduce, max_bytes: 64KiB, use: mpi/all_reduce/native}\n");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "test.yaml:5:47: collectives.rules[1].use: no algorithm 'mpi/all_reduce/native' is "
            "registered; registered all_reduce algorithms: grpc_ring/all_reduce/ring, "
            "hierarchical_copy/all_reduce/reduction_to_one_device, "
            "hierarchical_copy/all_reduce/scatter_reduce");
  s = validate("strata: 1\ncollectives: {rules: [{use: x/reduce/y}]}\n");
  EXPECT_EQ(s.message(),
            "test.yaml:2:29: collectives.rules[0].use: no algorithm 'x/reduce/y' is "
            "registered; registered reduce algorithms: none");
}

TEST_F(ValidateConfig, UnknownImplementationListsWhatExists) {
  Status s = validate("strata: 1\ncollectives:\n  implementation: nccl\n");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "test.yaml:3:19: collectives.implementation: 'nccl' names no registered plugin, "
            "algorithm or id; expected auto, a plugin (grpc_ring, hierarchical_copy), an "
            "algorithm name (reduction_to_one_device, ring, scatter_reduce) or an id "
            "(grpc_ring/all_reduce/ring, grpc_ring/broadcast/ring, "
            "hierarchical_copy/all_reduce/reduction_to_one_device, "
            "hierarchical_copy/all_reduce/scatter_reduce)");
}

TEST(ShippedConfigs, EveryExampleParses) {
  const fs::path dir = fs::path(STRATA_SOURCE_DIR) / "configs";
  std::set<std::string> seen;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    StatusOr<Config> config = load_config_file(e.path());
    EXPECT_TRUE(config.ok()) << config.status();
    seen.insert(e.path().filename().string());
  }
  for (const char* name : {"default.yaml", "mirrored_cpu.yaml", "rules_example.yaml"}) {
    EXPECT_EQ(seen.count(name), 1u) << name << " is missing from " << dir;
  }
}

TEST(ShippedConfigs, DefaultYamlSaysWhatTheDefaultsAre) {
  StatusOr<Config> written = load_config_file(fs::path(STRATA_SOURCE_DIR) / "configs" /
                                              "default.yaml");
  StatusOr<Config> implied = parse("strata: 1\n");
  ASSERT_TRUE(written.ok()) << written.status();
  ASSERT_TRUE(implied.ok()) << implied.status();
  EXPECT_EQ(written->cluster.resolver, implied->cluster.resolver);
  EXPECT_EQ(written->cluster.store, implied->cluster.store);
  EXPECT_EQ(written->cluster.rendezvous_timeout, implied->cluster.rendezvous_timeout);
  EXPECT_EQ(written->cluster.heartbeat, implied->cluster.heartbeat);
  EXPECT_EQ(written->cluster.store_limits.max_bytes, implied->cluster.store_limits.max_bytes);
  EXPECT_EQ(written->cluster.store_limits.max_keys, implied->cluster.store_limits.max_keys);
  EXPECT_EQ(written->cluster.store_limits.max_value_bytes,
            implied->cluster.store_limits.max_value_bytes);
  EXPECT_EQ(written->strategy.kind, implied->strategy.kind);
  EXPECT_EQ(written->collectives.implementation, implied->collectives.implementation);
  EXPECT_EQ(written->collectives.timeout, implied->collectives.timeout);
  EXPECT_EQ(written->collectives.bytes_per_pack, implied->collectives.bytes_per_pack);
  EXPECT_EQ(written->devices.cpu_count, implied->devices.cpu_count);
  EXPECT_EQ(written->devices.cpu_memory, implied->devices.cpu_memory);
  EXPECT_TRUE(written->plugins.path.empty());
  EXPECT_TRUE(written->collectives.rules.empty());
}

TEST(ShippedConfigs, RulesExampleRoutesBySize) {
  StatusOr<Config> config = load_config_file(fs::path(STRATA_SOURCE_DIR) / "configs" /
                                             "rules_example.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  const auto& rules = config->collectives.rules;
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].use, "hierarchical_copy/all_reduce/reduction_to_one_device");
  EXPECT_EQ(rules[0].max_bytes, 64u * 1024);
  EXPECT_EQ(rules[1].use, "hierarchical_copy/all_reduce/scatter_reduce");
  EXPECT_EQ(rules[1].min_bytes, 0u);
}

}  // namespace
}  // namespace strata
