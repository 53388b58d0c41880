// The config parser: what every key parses to, and that every mistake an
// operator can make is reported at the right file:line:column with the key
// path and what was expected. Messages are compared whole where the wording
// is part of the contract (docs/CONFIG.md quotes them).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "core/config/config.h"
#include "core/config/yaml_reader.h"
#include "core/plugin/registry.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;

StatusOr<Config> parse(std::string_view yaml) { return parse_config(yaml, "test.yaml"); }

// The message of a parse that must fail with INVALID_ARGUMENT.
std::string error_of(std::string_view yaml) {
  StatusOr<Config> config = parse(yaml);
  EXPECT_FALSE(config.ok()) << "parsed but should not have:\n" << yaml;
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument) << config.status();
  return config.status().message();
}

TEST(SourceMark, FormatsFileLineColumn) {
  EXPECT_EQ((SourceMark{"configs/x.yaml", 12, 7}).to_string(), "configs/x.yaml:12:7");
  EXPECT_EQ((SourceMark{"<defaults>", 0, 0}).to_string(), "<defaults>");
}

TEST(ParseConfig, MinimalFileGivesDocumentedDefaults) {
  StatusOr<Config> config = parse("strata: 1\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->schema_version, 1);
  EXPECT_EQ(config->source, "test.yaml");
  EXPECT_TRUE(config->plugins.path.empty());
  EXPECT_TRUE(config->plugins.enable.empty());
  EXPECT_TRUE(config->plugins.disable.empty());
  EXPECT_TRUE(config->plugins.options.empty());
  EXPECT_EQ(config->cluster.resolver, "auto");
  EXPECT_EQ(config->strategy.kind, "default");
  EXPECT_TRUE(config->strategy.devices.empty());
  EXPECT_EQ(config->collectives.implementation, "auto");
  EXPECT_EQ(config->collectives.timeout, seconds(300));
  EXPECT_EQ(config->collectives.bytes_per_pack, uint64_t{32} << 20);
  EXPECT_TRUE(config->collectives.rules.empty());
  EXPECT_EQ(config->collectives.implementation_mark.to_string(), "test.yaml");
  EXPECT_EQ(config->devices.cpu_count, 8);
  EXPECT_EQ(config->devices.cpu_memory, uint64_t{16} << 30);
}

TEST(ParseConfig, EmptySectionsKeepDefaults) {
  StatusOr<Config> config =
      parse("strata: 1\nplugins:\ncluster:\nstrategy: {}\ncollectives:\n  rules:\ndevices:\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->collectives.timeout, seconds(300));
  EXPECT_TRUE(config->collectives.rules.empty());
  EXPECT_EQ(config->devices.cpu_count, 8);
}

TEST(ParseConfig, ReadsEverySection) {
  StatusOr<Config> config = parse(R"(strata: 1
plugins:
  path: [/opt/strata/plugins]
  enable: [grpc_ring, mpi]
  disable: [tpu_sim]
  options:
    grpc_ring: {chunk_bytes: 4MiB, label: "two words", retries: 3}
    mpi: {}
cluster: {resolver: slurm}
strategy: {kind: mirrored, devices: [cpu:0, cuda:12]}
collectives:
  implementation: grpc_ring
  timeout: 250ms
  bytes_per_pack: 0
  rules:
    - op: all_reduce
      min_bytes: 1KiB
      max_bytes: 64KiB
      dtype: float32
      device_type: cpu
      use: mpi/all_reduce/native
    - use: grpc_ring/all_gather/ring
devices:
  cpu: {count: 2, memory: 1.5GiB}
)");
  ASSERT_TRUE(config.ok()) << config.status();
  const Config& c = *config;
  EXPECT_EQ(c.plugins.path, std::vector<fs::path>{"/opt/strata/plugins"});
  EXPECT_EQ(c.plugins.enable, (std::vector<std::string>{"grpc_ring", "mpi"}));
  EXPECT_EQ(c.plugins.disable, std::vector<std::string>{"tpu_sim"});
  ASSERT_EQ(c.plugins.options.size(), 2u);
  const auto& grpc = c.plugins.options.at("grpc_ring");
  EXPECT_EQ(grpc.at("chunk_bytes"), "4MiB");  // as written, not 4194304
  EXPECT_EQ(grpc.at("label"), "two words");
  EXPECT_EQ(grpc.at("retries"), "3");
  EXPECT_TRUE(c.plugins.options.at("mpi").empty());
  EXPECT_EQ(c.cluster.resolver, "slurm");
  EXPECT_EQ(c.strategy.kind, "mirrored");
  EXPECT_EQ(c.strategy.devices, (std::vector<std::string>{"cpu:0", "cuda:12"}));
  EXPECT_EQ(c.collectives.implementation, "grpc_ring");
  EXPECT_EQ(c.collectives.implementation_mark.to_string(), "test.yaml:12:19");
  EXPECT_EQ(c.collectives.timeout, milliseconds(250));
  EXPECT_EQ(c.collectives.bytes_per_pack, 0u);
  ASSERT_EQ(c.collectives.rules.size(), 2u);
  const CollectiveRule& r0 = c.collectives.rules[0];
  EXPECT_EQ(r0.op, CollectiveKind::kAllReduce);
  EXPECT_EQ(r0.min_bytes, 1024u);
  EXPECT_EQ(r0.max_bytes, 65536u);
  EXPECT_EQ(r0.dtype, DType::kF32);
  EXPECT_EQ(r0.device_type, "cpu");
  EXPECT_EQ(r0.use, "mpi/all_reduce/native");
  EXPECT_EQ(r0.mark.to_string(), "test.yaml:21:12");
  const CollectiveRule& r1 = c.collectives.rules[1];
  EXPECT_FALSE(r1.op.has_value());
  EXPECT_EQ(r1.min_bytes, 0u);
  EXPECT_EQ(r1.max_bytes, std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(r1.dtype.has_value());
  EXPECT_EQ(r1.device_type, "");
  EXPECT_EQ(r1.mark.to_string(), "test.yaml:22:12");
  EXPECT_EQ(c.devices.cpu_count, 2);
  EXPECT_EQ(c.devices.cpu_memory, uint64_t{3} << 29);
}

TEST(ParseConfig, DurationAndSizeUnits) {
  struct Case {
    const char* text;
    std::chrono::nanoseconds want;
  };
  for (const Case& c : {Case{"1500us", std::chrono::microseconds(1500)},
                        Case{"5m", seconds(300)}, Case{"1h", seconds(3600)},
                        Case{"2 s", seconds(2)}, Case{"10ns", std::chrono::nanoseconds(10)}}) {
    StatusOr<Config> config =
        parse(std::string("strata: 1\ncollectives: {timeout: ") + c.text + "}\n");
    ASSERT_TRUE(config.ok()) << c.text << ": " << config.status();
    EXPECT_EQ(config->collectives.timeout, c.want) << c.text;
  }
  for (auto [text, want] : {std::pair{"4096", uint64_t{4096}}, {"4KB", uint64_t{4000}},
                            {"4KiB", uint64_t{4096}}, {"1G", uint64_t{1} << 30},
                            {"2 MiB", uint64_t{2} << 20}}) {
    StatusOr<Config> config =
        parse(std::string("strata: 1\ncollectives: {bytes_per_pack: ") + text + "}\n");
    ASSERT_TRUE(config.ok()) << text << ": " << config.status();
    EXPECT_EQ(config->collectives.bytes_per_pack, want) << text;
  }
}

TEST(ParseConfig, RelativePluginPathsFollowTheConfigFile) {
  StatusOr<Config> config = parse_config(
      "strata: 1\nplugins: {path: [plugins, ../lib/./strata, /abs/dir]}\n", "/etc/strata/x.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->plugins.path, (std::vector<fs::path>{"/etc/strata/plugins",
                                                          "/etc/lib/strata", "/abs/dir"}));
  // Text with no file behind it resolves against the working directory.
  config = parse_config("strata: 1\nplugins: {path: [plugins]}\n", "<string>");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->plugins.path, std::vector<fs::path>{"plugins"});
}

// A scratch directory removed at the end of the test.
class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("strata_config_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "etc");
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_ / "etc" / "c.yaml", fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& text) {
    const fs::path p = dir_ / "etc" / "c.yaml";
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(ConfigFileTest, LoadsAndPinsRelativePluginPaths) {
  const fs::path p = write("strata: 1\nplugins: {path: [plugins, ../lib]}\n");
  StatusOr<Config> config = load_config_file(p);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->source, p.string());
  EXPECT_EQ(config->plugins.path,
            (std::vector<fs::path>{dir_ / "etc" / "plugins", dir_ / "lib"}));
  EXPECT_TRUE(config->plugins.path[0].is_absolute());
}

TEST_F(ConfigFileTest, ErrorsNameTheFile) {
  const fs::path p = write("strata: 1\ncollectives: {timout: 3s}\n");
  StatusOr<Config> config = load_config_file(p);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            p.string() + ":2:15: unknown key 'timout' in collectives; expected one of: "
                         "implementation, timeout, bytes_per_pack, rules, tuning");
}

TEST_F(ConfigFileTest, MissingFileIsNotFound) {
  StatusOr<Config> config = load_config_file(dir_ / "nope.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Code::kNotFound);
  EXPECT_EQ(config.status().message(),
            "config file '" + (dir_ / "nope.yaml").string() + "' does not exist");
}

TEST_F(ConfigFileTest, DirectoryIsRefused) {
  StatusOr<Config> config = load_config_file(dir_ / "etc");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(config.status().message(),
            "config file '" + (dir_ / "etc").string() + "' is not a regular file");
}

TEST_F(ConfigFileTest, UnreadableFileIsRefused) {
  // Root reads files whatever their mode, so as root use a regular file whose
  // read fails anyway: /proc/self/mem at offset 0 answers EIO.
  if (::geteuid() == 0) {
    StatusOr<Config> config = load_config_file("/proc/self/mem");
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(config.status().message(),
                testing::StartsWith("cannot read config file '/proc/self/mem': "));
    return;
  }
  const fs::path p = write("strata: 1\n");
  fs::permissions(p, fs::perms::none);
  StatusOr<Config> config = load_config_file(p);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(config.status().message(),
            "cannot read config file '" + p.string() + "': Permission denied");
}

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
            "bytes_per_pack, rules, tuning, got '5'");
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
            "implementation, timeout, bytes_per_pack, rules, tuning");
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

TEST(ParseErrors, StoreLimitsTakeUnitsAndAreChecked) {
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
  EXPECT_NE(error_of("strata: 1\ncluster: {store_max_bytes: 0}\n").find("must be positive"),
            std::string::npos);
  EXPECT_NE(error_of("strata: 1\ncluster: {store_max_keys: 0}\n").find("store_max_keys"),
            std::string::npos);
  EXPECT_NE(error_of("strata: 1\ncluster: {store_max_bytes: lots}\n").find("store_max_bytes"),
            std::string::npos);
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

// The getters the schema does not use yet still have to hold their contract.
TEST(YamlReader, TypedGetters) {
  const YamlReader r(YAML::Load("a: true\nb: yes\nn: -3\nl: [x, y]\ns: {k: v}\n"), "r.yaml");
  bool flag = false;
  ASSERT_TRUE(r.get_bool("a", &flag).ok());
  EXPECT_TRUE(flag);
  EXPECT_EQ(r.get_bool("b", &flag).message(), "r.yaml:2:4: b: expected true or false, got 'yes'");
  int64_t n = 7;
  ASSERT_TRUE(r.get_int("absent", 0, 10, &n).ok());
  EXPECT_EQ(n, 7);  // absent keeps the default
  ASSERT_TRUE(r.get_int("n", -5, 5, &n).ok());
  EXPECT_EQ(n, -3);
  EXPECT_EQ(r.get_int("n", 0, 5, &n).message(),
            "r.yaml:3:4: n: expected a whole number from 0 to 5, got '-3'");
  std::vector<std::string> list;
  ASSERT_TRUE(r.get_string_list("l", &list).ok());
  EXPECT_EQ(list, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(r.get_string_list("s", &list).message(),
            "r.yaml:5:4: s: expected a list like [a, b], got a map");
}

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
