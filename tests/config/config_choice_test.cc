// The one rule every program uses to pick its config (config_choice.h):
// --config, else STRATA_CONFIG, else the program's default; a chosen file
// that cannot be loaded is an error naming it and where it came from.
#include "core/config/config_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace strata {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(ConfigChoice, TheFlagBeatsTheEnvironmentWhichBeatsTheDefault) {
  const fs::path fallback = "/etc/default.yaml";
  ConfigChoice c = choose_config("flag.yaml", fallback, "env.yaml");
  EXPECT_EQ(c.origin, ConfigOrigin::kFlag);
  EXPECT_EQ(c.path, "flag.yaml");
  EXPECT_EQ(c.describe(), "flag.yaml (from --config)");

  c = choose_config("", fallback, "env.yaml");
  EXPECT_EQ(c.origin, ConfigOrigin::kEnvironment);
  EXPECT_EQ(c.path, "env.yaml");
  EXPECT_EQ(c.describe(), "env.yaml (from STRATA_CONFIG)");

  c = choose_config("", fallback, std::nullopt);
  EXPECT_EQ(c.origin, ConfigOrigin::kDefaultFile);
  EXPECT_EQ(c.path, fallback);

  c = choose_config("", {}, std::nullopt);
  EXPECT_EQ(c.origin, ConfigOrigin::kBuiltIn);
  EXPECT_FALSE(c.from_file());
  EXPECT_EQ(c.describe(), "the built-in defaults");
}

TEST(ConfigChoice, AnEmptyVariableIsUnset) {
  EXPECT_EQ(choose_config("", {}, "").origin, ConfigOrigin::kBuiltIn);
  EXPECT_EQ(choose_config("", "d.yaml", "").origin, ConfigOrigin::kDefaultFile);
}

TEST(ConfigChoice, ReadsStrataConfigFromTheProcessEnvironment) {
  ::setenv("STRATA_CONFIG", "/from/the/environment.yaml", 1);
  const ConfigChoice c = choose_config("");
  ::unsetenv("STRATA_CONFIG");
  EXPECT_EQ(c.origin, ConfigOrigin::kEnvironment);
  EXPECT_EQ(c.path, "/from/the/environment.yaml");
  EXPECT_EQ(choose_config("").origin, ConfigOrigin::kBuiltIn);
}

TEST(ConfigChoice, BuiltInDefaultsAreTheProgramsOwn) {
  Config built_in;
  built_in.devices.cpu_count = 16;
  StatusOr<Config> config = load_chosen_config(choose_config("", {}, std::nullopt), built_in);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->devices.cpu_count, 16);
  EXPECT_EQ(config->source, "<defaults>");
}

TEST(ConfigChoice, LoadsTheChosenFile) {
  const fs::path p =
      fs::path(::testing::TempDir()) / ("config_choice_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(p) << "strata: 1\ndevices: {cpu: {count: 3}}\n";
  StatusOr<Config> config = load_chosen_config(choose_config("", {}, p.string()));
  fs::remove(p);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->devices.cpu_count, 3);
  EXPECT_EQ(config->source, p.string());
}

TEST(ConfigChoice, ABadFileIsAnErrorNamingItAndItsOrigin) {
  const std::string missing = "/nonexistent/strata-config-choice.yaml";
  StatusOr<Config> env = load_chosen_config(choose_config("", "d.yaml", missing));
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.status().code(), Code::kNotFound);
  EXPECT_EQ(env.status().message(),
            "config given by STRATA_CONFIG: config file '" + missing + "' does not exist");

  StatusOr<Config> flag = load_chosen_config(choose_config(missing, "d.yaml", "env.yaml"));
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.status().message(),
            "config given by --config: config file '" + missing + "' does not exist");

  StatusOr<Config> fallback = load_chosen_config(choose_config("", missing, std::nullopt));
  ASSERT_FALSE(fallback.ok());
  EXPECT_THAT(fallback.status().message(), HasSubstr("the program's default config: "));
  EXPECT_THAT(fallback.status().message(), HasSubstr(missing));
}

}  // namespace
}  // namespace strata
