// The config parser: what every key parses to, with its documented
// defaults, relative paths, files that cannot be read, and the YAML reader
// underneath. Mistakes in a config are in config_errors_test.cc, the
// store limits in config_store_limits_test.cc, checks against the
// registry in config_validate_test.cc.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "core/config/config.h"
#include "core/config/yaml_reader.h"
#include "tests/config/config_test_util.h"

namespace strata {
namespace {

using config_testing::error_of;
using config_testing::parse;

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;

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
                         "implementation, timeout, bytes_per_pack, rules, tuning, hierarchy");
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

}  // namespace
}  // namespace strata
