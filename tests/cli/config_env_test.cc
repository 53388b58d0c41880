// `strata info`, `explain` and `bench` pick their config as every Strata
// program does: --config, else STRATA_CONFIG (what `strata launch --config`
// hands its workers), else the built-in defaults. A bad path from either is
// an error naming it and where it came from, never a silent fall-back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_runner.h"

namespace strata::cli_test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kMissing = "/nonexistent/strata-config-env.yaml";

std::string strata_config(const std::string& path) { return "STRATA_CONFIG=" + quoted(path); }

std::string three_cpus_config() {
  const std::string path = temp_path("three_cpus.yaml");
  std::ofstream(path) << "strata: 1\ndevices: {cpu: {count: 3}}\n";
  return path;
}

TEST(CliConfigEnvironment, InfoLoadsStrataConfigWithoutTheFlag) {
  const std::string config = three_cpus_config();
  const CliResult r = run_cli("info", "", strata_config(config));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("config: " + config + "\n"));
  EXPECT_THAT(r.out, ContainsRegex("cpu:2 "));
  EXPECT_THAT(r.out, Not(ContainsRegex("cpu:3 ")));
}

TEST(CliConfigEnvironment, TheFlagBeatsStrataConfig) {
  const std::string config = three_cpus_config();
  const CliResult r = run_cli("info --config " + quoted(config), "", strata_config(kMissing));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("config: " + config + "\n"));
}

TEST(CliConfigEnvironment, AnEmptyStrataConfigIsUnset) {
  const CliResult r = run_cli("info", "", "STRATA_CONFIG=");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("config: <defaults>\n"));
}

TEST(CliConfigEnvironment, ExplainAppliesTheRulesOfStrataConfig) {
  const CliResult r = run_cli("explain all_reduce 64KiB", "", strata_config(kRulesConfig));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("why: +chosen by [^\n]*rules_example\\.yaml:[0-9]+:[0-9]+"));
}

TEST(CliConfigEnvironment, ABadStrataConfigIsAnErrorNamingIt) {
  for (const std::string command :
       {"info", "explain all_reduce 1MiB", "bench -b 4KiB -e 4KiB --iters 1 --warmup 0"}) {
    const CliResult r = run_cli(command, "", strata_config(kMissing));
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("config given by STRATA_CONFIG: config file '" + kMissing +
                                 "' does not exist"))
        << command;
    EXPECT_EQ(r.out, "") << command;
  }
}

TEST(CliConfigEnvironment, ABadFlagIsNamedAsTheFlag) {
  const CliResult r = run_cli("info --config " + quoted(kMissing));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("config given by --config: config file '" + kMissing + "'"));
}

}  // namespace
}  // namespace strata::cli_test
