// Every mistake an operator can make in a config is reported at the right
// file:line:column with the key path and what was expected. Messages are
// compared whole where the wording is part of the contract (docs/CONFIG.md
// quotes them).
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config/config.h"
#include "tests/config/config_test_util.h"

namespace strata {
namespace {

using config_testing::error_of;
using config_testing::parse;
using ::testing::HasSubstr;

TEST(ParseErrors, YamlSyntaxErrorsCarryOneBasedMarks) {
  // yaml-cpp reports line 1, column 2 counted from 0 for the stray ':'.
  EXPECT_EQ(error_of("strata: 1\n b: 2\n"), "test.yaml:2:3: illegal map value");
  EXPECT_EQ(error_of("strata: 1\ncollectives: [a, b\n"),
            "test.yaml:3:1: end of sequence flow not found");
}

TEST(ParseErrors, EmptyDocument) {
  EXPECT_EQ(error_of(""), "test.yaml: the config is empty; it needs at least 'strata: 1'");
  EXPECT_EQ(error_of("# only a comment\n"),
            "test.yaml: the config is empty; it needs at least 'strata: 1'");
}

TEST(ParseErrors, SecondDocument) {
  EXPECT_EQ(error_of("strata: 1\n---\nstrata: 1\n"),
            "test.yaml:2:1: a config file holds one YAML document; a second one starts here");
  EXPECT_EQ(error_of("---\nstrata: 1\n---\n"),
            "test.yaml:3:1: a config file holds one YAML document; a second one starts here");
}

// yaml-cpp 0.7 never finishes YAML::LoadAll on these (jbeder/yaml-cpp#1040);
// a regression shows up as a hang, which ctest's timeout turns into a failure.
TEST(ParseErrors, InputThatStallsYamlCpp) {
  EXPECT_EQ(error_of(","), "test.yaml:1:1: unexpected ',' where a YAML value should start");
  EXPECT_EQ(error_of(",# a comment\nstrata: 1\n"),
            "test.yaml:1:1: unexpected ',' where a YAML value should start");
}

TEST(ParseErrors, DeepNestingIsAnErrorNotACrash) {
  EXPECT_THAT(error_of("strata: 1\nplugins: " + std::string(100000, '[')),
              ::testing::MatchesRegex("test.yaml:[0-9]+:[0-9]+: nested more than [0-9]+ levels "
                                      "deep"));
}

TEST(ParseErrors, SchemaVersion) {
  EXPECT_EQ(error_of("# a comment first\ncollectives: {timeout: 1s}\n"),
            "test.yaml:2:1: missing 'strata: 1' schema version at the top");
  EXPECT_EQ(error_of("strata: 2\n"),
            "test.yaml:1:9: strata: expected schema version 1, the only one this build of "
            "Strata reads, got '2'");
  // A newer file is told its version, not that its new keys are unknown.
  EXPECT_THAT(error_of("brand_new_section: {}\nstrata: 2\n"), HasSubstr("got '2'"));
  EXPECT_THAT(error_of("strata:\n"), HasSubstr("test.yaml:1:1: strata: expected schema "));
}

TEST(ParseErrors, TopLevelShape) {
  EXPECT_EQ(error_of("- strata\n- 1\n"),
            "test.yaml:1:1: expected a map with keys strata, plugins, cluster, strategy, "
            "collectives, devices, got a list");
  EXPECT_EQ(error_of("strata: 1\nstrat: {}\n"),
            "test.yaml:2:1: unknown key 'strat' at the top level; expected one of: strata, "
            "plugins, cluster, strategy, collectives, devices");
  EXPECT_EQ(error_of("strata: 1\ncollectives: 5\n"),
            "test.yaml:2:14: collectives: expected a map with keys implementation, timeout, "
            "bytes_per_pack, rules, tuning, hierarchy, got '5'");
  EXPECT_EQ(error_of("strata: 1\n[a, b]: 1\n"),
            "test.yaml:2:1: keys at the top level must be plain names, not a list or map");
}

TEST(ParseErrors, DuplicateKey) {
  EXPECT_EQ(error_of("strata: 1\ncollectives:\n  timeout: 1s\n  timeout: 2s\n"),
            "test.yaml:4:3: duplicate key 'timeout' in collectives; it is already set on "
            "line 3");
}

TEST(ParseErrors, UnknownKeyInSection) {
  EXPECT_EQ(error_of("strata: 1\ncollectives:\n  timout: 300s\n"),
            "test.yaml:3:3: unknown key 'timout' in collectives; expected one of: "
            "implementation, timeout, bytes_per_pack, rules, tuning, hierarchy");
  EXPECT_EQ(error_of("strata: 1\ndevices: {cuda: {count: 1}}\n"),
            "test.yaml:2:11: unknown key 'cuda' in devices; expected one of: cpu");
  EXPECT_EQ(error_of("strata: 1\ncollectives:\n  rules:\n    - {use: a/reduce/b, max: 1}\n"),
            "test.yaml:4:25: unknown key 'max' in collectives.rules[0]; expected one of: op, "
            "min_bytes, max_bytes, dtype, device_type, use");
}

TEST(ParseErrors, Durations) {
  EXPECT_EQ(error_of("strata: 1\ncollectives:\n  timeout: abc\n"),
            "test.yaml:3:12: collectives.timeout: expected a duration like 300s, got 'abc'");
  EXPECT_EQ(error_of("strata: 1\ncollectives:\n  timeout: 30\n"),
            "test.yaml:3:12: collectives.timeout: expected a duration like 300s, got '30': "
            "duration '30' has no unit; write e.g. '30s' or '30ms'");
  EXPECT_EQ(error_of("strata: 1\ncollectives:\n  timeout: 0s\n"),
            "test.yaml:3:12: collectives.timeout: must be greater than 0; a collective needs "
            "time to run");
  // An empty value is reported at its key, not at the next line.
  EXPECT_EQ(error_of("strata: 1\ncollectives:\n  timeout:\n  rules: []\n"),
            "test.yaml:3:3: collectives.timeout: expected a duration like 300s, got nothing");
  EXPECT_EQ(error_of("strata: 1\ncollectives: {timeout: [1s]}\n"),
            "test.yaml:2:24: collectives.timeout: expected a duration like 300s, got a list");
}

TEST(ParseErrors, Sizes) {
  EXPECT_EQ(error_of("strata: 1\ncollectives: {bytes_per_pack: lots}\n"),
            "test.yaml:2:31: collectives.bytes_per_pack: expected a size like 32MiB, got "
            "'lots'");
  EXPECT_THAT(error_of("strata: 1\ncollectives: {bytes_per_pack: 5 parsecs}\n"),
              HasSubstr("got '5 parsecs': unknown size unit 'parsecs'"));
  EXPECT_THAT(error_of("strata: 1\ncollectives: {bytes_per_pack: -1}\n"),
              HasSubstr("collectives.bytes_per_pack: expected a size like 32MiB, got '-1'"));
}

TEST(ParseErrors, Rules) {
  const std::string head = "strata: 1\ncollectives:\n  rules:\n";
  EXPECT_EQ(error_of(head + "    use: a/all_reduce/b\n"),
            "test.yaml:4:5: collectives.rules: expected a list like [a, b], got a map");
  EXPECT_EQ(error_of(head + "    - a/all_reduce/b\n"),
            "test.yaml:4:7: collectives.rules[0]: expected a map with keys op, min_bytes, "
            "max_bytes, dtype, device_type, use, got 'a/all_reduce/b'");
  EXPECT_EQ(error_of(head + "    - {use: a/all_reduce/b}\n    - {op: all_reduce}\n"),
            "test.yaml:5:7: collectives.rules[1]: missing 'use': every rule names the "
            "algorithm it picks, e.g. use: hierarchical_copy/all_reduce/ring");
  EXPECT_EQ(error_of(head + "    - {use: ring}\n"),
            "test.yaml:4:13: collectives.rules[0].use: expected an algorithm id like "
            "hierarchical_copy/all_reduce/ring (plugin/op/name), got 'ring'");
  EXPECT_EQ(error_of(head + "    - {use: a/b/c/d}\n"),
            "test.yaml:4:13: collectives.rules[0].use: expected an algorithm id like "
            "hierarchical_copy/all_reduce/ring (plugin/op/name), got 'a/b/c/d'");
  EXPECT_EQ(error_of(head + "    - {use: Mpi/all_reduce/native}\n"),
            "test.yaml:4:13: collectives.rules[0].use: expected an algorithm id like "
            "hierarchical_copy/all_reduce/ring (plugin/op/name), got 'Mpi/all_reduce/native'");
  EXPECT_EQ(error_of(head + "    - {use: mpi/allreduce/native}\n"),
            "test.yaml:4:13: collectives.rules[0].use: in 'mpi/allreduce/native': unknown "
            "collective 'allreduce'; expected one of: all_reduce, broadcast, all_gather, "
            "reduce_scatter, reduce, barrier");
  EXPECT_EQ(error_of(head + "    - op: all_reduce\n      use: mpi/broadcast/native\n"),
            "test.yaml:5:12: collectives.rules[0].use: algorithm 'mpi/broadcast/native' "
            "implements broadcast, but the rule is for op all_reduce");
  EXPECT_EQ(error_of(head + "    - {op: allreduce, use: mpi/all_reduce/native}\n"),
            "test.yaml:4:12: collectives.rules[0].op: unknown collective 'allreduce'; "
            "expected one of: all_reduce, broadcast, all_gather, reduce_scatter, reduce, "
            "barrier");
  EXPECT_THAT(error_of(head + "    - {dtype: f33, use: mpi/all_reduce/native}\n"),
              HasSubstr("test.yaml:4:15: collectives.rules[0].dtype: unknown dtype 'f33'; "
                        "expected one of: f32, f64"));
  EXPECT_EQ(error_of(head + "    - {device_type: GPU, use: mpi/all_reduce/native}\n"),
            "test.yaml:4:21: collectives.rules[0].device_type: 'GPU' is not a valid device "
            "type; names are 1-63 characters of [a-z0-9_]");
  EXPECT_EQ(error_of(head + "    - {min_bytes: 1MiB, max_bytes: 64KiB, use: m/reduce/x}\n"),
            "test.yaml:4:36: collectives.rules[0].max_bytes: min_bytes (1048576) is greater "
            "than max_bytes (65536); the rule could never match");
  EXPECT_EQ(error_of(head + "    - {max_bytes: 64 KiBs, use: m/reduce/x}\n"),
            "test.yaml:4:19: collectives.rules[0].max_bytes: expected a size like 32MiB, got "
            "'64 KiBs': unknown size unit 'KiBs' in '64 KiBs'; expected B, KB, MB, GB, TB, "
            "KiB, MiB, GiB or TiB");
  EXPECT_EQ(error_of(head + "    -\n"),
            "test.yaml:4:5: collectives.rules[0]: expected a rule like {op: all_reduce, use: "
            "plugin/op/name}, got nothing");
}

TEST(ParseErrors, Implementation) {
  EXPECT_EQ(error_of("strata: 1\ncollectives: {implementation: ''}\n"),
            "test.yaml:2:31: collectives.implementation: expected auto, a plugin, an algorithm "
            "name or an algorithm id, got ''");
}

TEST(ParseErrors, Hierarchy) {
  EXPECT_EQ(error_of("strata: 1\ncollectives: {hierarchy: rack}\n"),
            "test.yaml:2:26: collectives.hierarchy: unknown hierarchy 'rack'; expected auto, "
            "host or flat");
  for (const char* good : {"auto", "host", "flat"}) {
    auto config = parse_config(std::string("strata: 1\ncollectives: {hierarchy: ") + good + "}\n",
                               "test.yaml");
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_EQ(config->collectives.hierarchy, good);
  }
  EXPECT_EQ(parse_config("strata: 1\n", "test.yaml")->collectives.hierarchy, "auto");
}

TEST(ParseErrors, Strategy) {
  EXPECT_EQ(error_of("strata: 1\nstrategy: {kind: mirror}\n"),
            "test.yaml:2:18: strategy.kind: unknown strategy 'mirror'; expected one of: "
            "default, one_device, mirrored, multi_worker_mirrored, central_storage, "
            "parameter_server, tpu");
  for (const char* bad : {"gpu0", "cpu:", "cpu:-1", ":0", "CPU:0", "cpu:0:1", "cpu:1234567890"}) {
    EXPECT_EQ(error_of(std::string("strata: 1\nstrategy:\n  devices: [cpu:0, '") + bad + "']\n"),
              std::string("test.yaml:3:20: strategy.devices[1]: expected a device like cpu:0 "
                          "(type:index), got '") + bad + "'");
  }
  EXPECT_EQ(error_of("strata: 1\nstrategy: {devices: cpu:0}\n"),
            "test.yaml:2:21: strategy.devices: expected a list like [a, b], got 'cpu:0'");
}

TEST(ParseErrors, Cluster) {
  EXPECT_EQ(error_of("strata: 1\ncluster: {resolver: TF-CONFIG}\n"),
            "test.yaml:2:21: cluster.resolver: 'TF-CONFIG' is not a valid resolver (auto, "
            "tf_config, slurm, mpi, simple or a plugin's); names are 1-63 characters of "
            "[a-z0-9_]");
  StatusOr<Config> config = parse("strata: 1\ncluster: {resolver: my_scheduler}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->cluster.resolver, "my_scheduler");
}

TEST(ParseErrors, ClusterStoreAndTimes) {
  const std::string bad_store = error_of("strata: 1\ncluster: {store: 10.0.0.1}\n");
  EXPECT_EQ(bad_store.rfind("test.yaml:2:18: ", 0), 0u) << bad_store;
  EXPECT_NE(bad_store.find("expected 'auto' or <type>:<address>"), std::string::npos) << bad_store;
  EXPECT_NE(error_of("strata: 1\ncluster: {store: 'tcp:'}\n").find("got 'tcp:'"),
            std::string::npos);
  EXPECT_NE(error_of("strata: 1\ncluster: {heartbeat: 5}\n").find("cluster.heartbeat"),
            std::string::npos);
  EXPECT_NE(error_of("strata: 1\ncluster: {rendezvous_timeout: 0s}\n").find("must be positive"),
            std::string::npos);
  StatusOr<Config> config =
      parse("strata: 1\ncluster: {store: 'tcp:10.0.0.1:29500', rendezvous_timeout: 30s, "
            "heartbeat: 250ms}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->cluster.store, "tcp:10.0.0.1:29500");
  EXPECT_EQ(config->cluster.rendezvous_timeout, std::chrono::seconds(30));
  EXPECT_EQ(config->cluster.heartbeat, std::chrono::milliseconds(250));
}

TEST(ParseErrors, Devices) {
  EXPECT_EQ(error_of("strata: 1\ndevices: {cpu: {count: 0}}\n"),
            "test.yaml:2:24: devices.cpu.count: expected a whole number from 1 to 1024, "
            "got '0'");
  EXPECT_THAT(error_of("strata: 1\ndevices: {cpu: {count: 1025}}\n"), HasSubstr("got '1025'"));
  EXPECT_THAT(error_of("strata: 1\ndevices: {cpu: {count: 8.0}}\n"), HasSubstr("got '8.0'"));
  EXPECT_EQ(error_of("strata: 1\ndevices: {cpu: {memory: 0GiB}}\n"),
            "test.yaml:2:25: devices.cpu.memory: must be greater than 0");
}

TEST(ParseErrors, Plugins) {
  EXPECT_EQ(error_of("strata: 1\nplugins: {enable: [mpi, Grpc-Ring]}\n"),
            "test.yaml:2:25: plugins.enable[1]: 'Grpc-Ring' is not a valid plugin name; "
            "names are 1-63 characters of [a-z0-9_]");
  EXPECT_EQ(error_of("strata: 1\nplugins: {enable: [mpi], disable: [tpu_sim, mpi]}\n"),
            "test.yaml:2:45: plugins.disable[1]: plugin 'mpi' is listed in both "
            "plugins.enable and plugins.disable");
  EXPECT_EQ(error_of("strata: 1\nplugins:\n  options:\n    Bad: {a: 1}\n"),
            "test.yaml:4:5: plugins.options.Bad: 'Bad' is not a valid plugin name; names are "
            "1-63 characters of [a-z0-9_]");
  EXPECT_EQ(error_of("strata: 1\nplugins: {options: {mpi: {hosts: [a, b]}}}\n"),
            "test.yaml:2:34: plugins.options.mpi.hosts: expected a string, got a list");
  EXPECT_EQ(error_of("strata: 1\nplugins: {options: {mpi: 3}}\n"),
            "test.yaml:2:26: plugins.options.mpi: expected a map, got '3'");
  EXPECT_EQ(error_of("strata: 1\nplugins: {path: ['']}\n"),
            "test.yaml:2:18: plugins.path[0]: expected a plugin directory, got ''");
}

}  // namespace
}  // namespace strata
