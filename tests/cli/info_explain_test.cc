// `strata info`, `strata explain`, --help and --version, run as a user would.
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace strata::cli_test {
namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;


TEST(CliInfo, ListsHierarchicalCopyItsAlgorithmsAndCpuDevices) {
  const CliResult r = run_cli("info");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("hierarchical_copy +[0-9.]+ +1\\.[0-9]+ +loaded +/"));
  EXPECT_THAT(r.out, ContainsRegex("core +[0-9.]+ +1\\.[0-9]+ +loaded +built-in"));
  for (const char* id : {"hierarchical_copy/all_reduce/scatter_reduce",
                         "hierarchical_copy/all_reduce/reduction_to_one_device",
                         "hierarchical_copy/all_reduce/hierarchical"}) {
    EXPECT_THAT(r.out, ContainsRegex(std::string(id) + " +local +[A-Za-z]")) << id;
  }
  EXPECT_THAT(r.out, HasSubstr("cpu (core)"));
  EXPECT_THAT(r.out, ContainsRegex("cpu:0 +virtual CPU device 0 +16 GiB +yes +all 7 peers"));
  EXPECT_THAT(r.out, ContainsRegex("cpu:7 "));
  EXPECT_THAT(r.out, HasSubstr("peer access: full mesh"));
  EXPECT_THAT(r.out, ContainsRegex("memory +core"));  // the built-in store
}

TEST(CliInfo, JsonHasTheSameFacts) {
  const CliResult r = run_cli("info --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  bool plugin_loaded = false;
  for (const auto& p : j.at("plugins")) {
    if (p.at("name") == "hierarchical_copy") plugin_loaded = p.at("state") == "loaded";
  }
  EXPECT_TRUE(plugin_loaded) << j.at("plugins").dump(2);
  ASSERT_FALSE(j.at("device_types").empty());
  const auto& cpu = j.at("device_types").at(0);
  EXPECT_EQ(cpu.at("name"), "cpu");
  EXPECT_EQ(cpu.at("count"), 8);
  EXPECT_EQ(cpu.at("devices").size(), 8u);
  EXPECT_EQ(cpu.at("devices").at(3).at("peers").size(), 7u);
  bool found = false;
  for (const auto& a : j.at("algorithms")) {
    found = found || a.at("id") == "hierarchical_copy/all_reduce/scatter_reduce";
  }
  EXPECT_TRUE(found);
}

TEST(CliInfo, ShowsARefusedPluginAndWhy) {
  const std::string dir = temp_path("plugins");
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  std::ofstream(dir + "/libstrata_bogus.so") << "not an ELF file\n";
  const CliResult r = run_cli("info", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("bogus +- +- +refused +" + dir));
  EXPECT_THAT(r.out, HasSubstr("why: not a shared library"));
  EXPECT_THAT(r.out, ContainsRegex("hierarchical_copy [^\n]* loaded"));
}

TEST(CliInfo, ShowsDevicesTheHostCannotRead) {
  const CliResult r = run_cli("info", test_plugin_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("cli_test +0\\.0\\.1 +1\\.[0-9]+ +loaded"));
  EXPECT_THAT(r.out, HasSubstr("cli_staged (cli_test): "));
  EXPECT_THAT(r.out, ContainsRegex("cli_staged:3 +staged test device 3 +1 GiB +no +none\n"));
  EXPECT_THAT(r.out, HasSubstr("peer access: none: copies between devices are staged"));
}

TEST(CliInfo, MissingConfigFileIsAnErrorNamingIt) {
  const CliResult r = run_cli("info --config /nonexistent/strata.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/strata.yaml"));
  EXPECT_EQ(r.out, "");
}

TEST(CliExplain, AllReduceShowsDeclinesThenTheWinner) {
  // cli_test/all_reduce/picky has the lowest estimate, so it is tried first,
  // and it declines calls over 64 KiB.
  const CliResult r = run_cli("explain all_reduce 1MiB", test_plugin_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("262144 x f32"));
  EXPECT_THAT(r.out, Not(HasSubstr("tuning:")));  // no tuning file: no line, no measurements
  EXPECT_THAT(r.out, ContainsRegex(" 1 +cli_test/all_reduce/picky +auto +0\\.00 us +- +declined: "
                                   "cli_test declines calls over 64 KiB"));
  EXPECT_THAT(r.out, ContainsRegex(" 2 +hierarchical_copy/all_reduce/[a-z_]+ +auto +[0-9.]+ "
                                   "[um]s +- +selected"));
  EXPECT_THAT(r.out, ContainsRegex("not tried"));
  EXPECT_THAT(r.out, ContainsRegex("winner: hierarchical_copy/all_reduce/[a-z_]+\nwhy: +lowest "
                                   "estimate"));
}

TEST(CliExplain, ACandidateThatDeclinesTheTeamAtTeamCreateIsSkipped) {
  // declining/all_reduce/first is first in AUTO and accepts every call, but
  // its team_create declines the team (as the mpi plugin does outside one
  // MPI world): explain must show that and name the candidate that runs.
  const std::string config = temp_path("declining.yaml");
  std::ofstream(config) << "strata: 1\nplugins:\n  options:\n"
                           "    declining: {decline_ranks: all}\n";
  const CliResult r =
      run_cli("explain all_reduce 4KiB --config " + quoted(config), DECLINING_PLUGIN_DIR);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex(" 1 +declining/all_reduce/first +auto +0\\.00 us +- +declined "
                                   "at team_create: this backend cannot reach its peers"));
  EXPECT_THAT(r.out, ContainsRegex(" 2 +hierarchical_copy/all_reduce/[a-z_]+ +auto [^\n]* "
                                   "selected"));
  EXPECT_THAT(r.out, ContainsRegex("winner: hierarchical_copy/all_reduce/"));
}

TEST(CliExplain, InTreeAlgorithmsDeclineDevicesWithoutPeerAccess) {
  const CliResult r =
      run_cli("explain all_reduce 1MiB --device-type cli_staged", test_plugin_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("hierarchical_copy/all_reduce/scatter_reduce +auto +[0-9.]+ "
                                   "[um]s +- +declined: [^\n]*needs peer access"));
  EXPECT_THAT(r.out, ContainsRegex("winner: hierarchical_copy/all_reduce/(reduction_to_one_device|"
                                   "hierarchical)\n"));
}

TEST(CliExplain, SmallAllReduceTakesTheCheapestCandidate) {
  const CliResult r = run_cli("explain all_reduce 1KiB", test_plugin_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex(" 1 +cli_test/all_reduce/picky +auto [^\n]* selected"));
  EXPECT_THAT(r.out, HasSubstr("winner: cli_test/all_reduce/picky"));
  // Nothing that could run on this team declined; only algorithms for other
  // team shapes (the mpi plugin's, when built) are listed as out of scope.
  size_t declines = 0, scope_declines = 0;
  for (size_t at = r.out.find("declined"); at != std::string::npos;
       at = r.out.find("declined", at + 1)) {
    ++declines;
    if (r.out.compare(at, 23, "declined: its scope doe") == 0) ++scope_declines;
  }
  EXPECT_EQ(declines, scope_declines) << r.out;
}

TEST(CliExplain, ConfigRulesAreNamedWithFileLineAndColumn) {
  // rules_example.yaml: rule 1 sends all_reduce up to 64 KiB to
  // reduction_to_one_device, rule 2 everything larger to scatter_reduce.
  const CliResult r = run_cli("explain all_reduce 64KiB --config '" + kRulesConfig + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              ContainsRegex(" 1 +hierarchical_copy/all_reduce/reduction_to_one_device +"
                            "[^ ][^\n]*rules_example\\.yaml:[0-9]+:[0-9]+\\) [^\n]* selected"));
  EXPECT_THAT(r.out, ContainsRegex(" 2 +hierarchical_copy/all_reduce/scatter_reduce +[^ ][^\n]*"
                                   "rules_example\\.yaml:[0-9]+:[0-9]+\\) [^\n]* not tried"));
  EXPECT_THAT(r.out, ContainsRegex("why: +chosen by [^\n]*rules_example\\.yaml:[0-9]+:[0-9]+"));
}

TEST(CliExplain, GatheredSizesSplitAcrossReplicas) {
  const CliResult r = run_cli("explain all_gather 4KiB --devices 4 --dtype f64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("all_gather of 4 KiB in all (128 x f64 per replica)"));
  EXPECT_THAT(r.out, HasSubstr("winner: hierarchical_copy/all_gather/"));
}

TEST(CliExplain, BadInputGetsAClearErrorAndNonZeroExit) {
  struct Case {
    std::string args;
    std::string message;
  } cases[] = {
      {"explain allreduce 1MiB", "unknown collective 'allreduce'; expected one of: all_reduce"},
      {"explain all_reduce 1XB", "unknown size unit 'XB'"},
      {"explain all_reduce lots", "'lots' is not a size"},
      {"explain all_reduce 1MiB --dtype f128", "unknown dtype 'f128'"},
      {"explain all_reduce 1MiB --redop avgg", "unknown reduce op 'avgg'"},
      {"explain all_reduce 6B", "6 B is not a whole number of f32 elements (4 B each)"},
      {"explain all_gather 12B --devices 2", "must split evenly into 2 replica slices"},
      {"explain all_reduce", "needs a SIZE"},
      {"explain all_reduce 1MiB --device-type fpga", "unknown device type 'fpga'"},
      {"explain all_reduce 1MiB --devices 9 --config '" + kRulesConfig + "'",
       "asked for 9 cpu device(s) but this process has 4"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_THAT(r.err, AllOf(HasSubstr("strata explain: "), HasSubstr(c.message))) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

TEST(CliUsage, HelpAndVersion) {
  const CliResult top = run_cli("--help");
  EXPECT_EQ(top.exit_code, 0);
  for (const char* cmd : {"info", "explain", "bench"}) EXPECT_THAT(top.out, HasSubstr(cmd));
  for (const char* cmd : {"info", "explain", "bench"}) {
    const CliResult r = run_cli(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("--config")) << cmd;
  }
  EXPECT_THAT(run_cli("bench --help").out, AllOf(HasSubstr("--minbytes"), HasSubstr("--no-check")));
  const CliResult v = run_cli("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_THAT(v.out, ContainsRegex("^strata [0-9]+\\.[0-9]+\\.[0-9]+ \\(plugin ABI 1\\.[0-9]+\\)"));
}

TEST(CliUsage, MalformedCommandLinesExitWithTwo) {
  EXPECT_EQ(run_cli("").exit_code, 2);
  EXPECT_EQ(run_cli("frobnicate").exit_code, 2);
  EXPECT_EQ(run_cli("explain").exit_code, 2);  // OP is required
  EXPECT_EQ(run_cli("explain all_reduce 1MiB --devices 0").exit_code, 2);
  EXPECT_EQ(run_cli("bench --warmup").exit_code, 2);
}

}  // namespace
}  // namespace strata::cli_test
