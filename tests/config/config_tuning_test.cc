// collectives.tuning: a config and its tuning file travel together, so a
// relative path is to the config's directory, and an operator whose tuning
// file is missing or broken must learn both where the config names it and
// where in the tuning file the problem is. (Its own tests: config_test.cc is
// long enough already.)
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/collective/tuning_table.h"
#include "core/config/config.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::testing::StartsWith;

constexpr const char* kTuning = R"(strata_tuning: 1
entries:
  - {op: all_reduce, device_type: cpu, local_devices: 2, algorithm: p/all_reduce/ring,
     times_us: {1024: 10, 4096: 40}}
)";

TuningKey two_cpus() {
  TuningKey k;
  k.device_type = "cpu";
  k.local_devices = 2;
  return k;
}

// A scratch directory removed at the end of the test; the config goes in
// <dir>/etc/c.yaml.
class TuningConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("strata_tuning_config_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "etc" / "tune");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
    return p;
  }
  fs::path config_with(const std::string& tuning_value) {
    return write(dir_ / "etc" / "c.yaml",
                 "strata: 1\ncollectives:\n  tuning: " + tuning_value + "\n");
  }
  fs::path dir_;
};

TEST_F(TuningConfigTest, RelativePathIsToTheConfigFilesDirectory) {
  write(dir_ / "etc" / "tune" / "t.yaml", kTuning);
  StatusOr<Config> config = load_config_file(config_with("tune/t.yaml"));
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_NE(config->collectives.tuning, nullptr);
  EXPECT_EQ(config->collectives.tuning->source(), (dir_ / "etc" / "tune" / "t.yaml").string());
  EXPECT_THAT(config->collectives.tuning->lookup(two_cpus(), "p/all_reduce/ring", 4096),
              Optional(::testing::DoubleNear(40e-6, 1e-15)));

  // Not the working directory, even when the config's own path is relative
  // to it: a broken decoy at <cwd>/tune/t.yaml must not be read.
  fs::create_directories(dir_ / "tune");
  write(dir_ / "tune" / "t.yaml", "strata_tuning: 2\n");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  config = load_config_file("etc/c.yaml");
  fs::current_path(cwd);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->collectives.tuning->source(), "etc/tune/t.yaml");

  write(dir_ / "t.yaml", kTuning);
  config = load_config_file(config_with("../t.yaml"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->collectives.tuning->source(), (dir_ / "t.yaml").string());
}

TEST_F(TuningConfigTest, AbsolutePathIsTakenAsWritten) {
  const fs::path t = write(dir_ / "abs.yaml", kTuning);
  StatusOr<Config> config = load_config_file(config_with(t.string()));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->collectives.tuning->source(), t.string());
}

TEST_F(TuningConfigTest, NoTuningKeyMeansNoTable) {
  StatusOr<Config> config = parse_config("strata: 1\ncollectives: {}\n", "test.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->collectives.tuning, nullptr);
}

TEST_F(TuningConfigTest, MissingFileNamesTheConfigMarkAndThePath) {
  const fs::path c = config_with("none.yaml");
  StatusOr<Config> config = load_config_file(c);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(config.status().message(),
            c.string() + ":3:11: collectives.tuning: tuning file '" +
                (dir_ / "etc" / "none.yaml").string() + "' does not exist");
}

TEST_F(TuningConfigTest, MalformedFileNamesItsOwnLine) {
  const fs::path t = write(dir_ / "etc" / "t.yaml",
                           "strata_tuning: 1\nentries:\n  - {op: all_reduce, device_type: cpu, "
                           "algorithm: p/all_reduce/ring, times_us: {1024: 0}}\n");
  const fs::path c = config_with("t.yaml");
  StatusOr<Config> config = load_config_file(c);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(config.status().message(), StartsWith(c.string() + ":3:11: collectives.tuning: " +
                                                    t.string() + ":3:"));
  EXPECT_THAT(config.status().message(),
              HasSubstr("entries[0].times_us.1024: expected a time in microseconds greater "
                        "than 0, got '0'"));

  write(t, "strata_tuning: 1\nentries: [\n");
  config = load_config_file(c);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), c.string() + ":3:11: collectives.tuning: " + t.string() +
                                           ":3:1: end of sequence flow not found");
}

TEST_F(TuningConfigTest, EmptyValueIsAnError) {
  StatusOr<Config> config = parse_config("strata: 1\ncollectives:\n  tuning:\n", "test.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(config.status().message(),
            "test.yaml:3:3: collectives.tuning: expected a string, got nothing");

  config = parse_config("strata: 1\ncollectives:\n  tuning: \"\"\n", "test.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            "test.yaml:3:11: collectives.tuning: expected the path of a file written by "
            "`strata bench --tune`, got ''");
}

}  // namespace
}  // namespace strata
