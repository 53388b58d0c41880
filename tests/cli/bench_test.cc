// `strata bench`: rows, arithmetic, the #wrong check (which must be able to
// fail), declines, JSON and CSV, and argument errors. Sweeps are tiny and
// iteration counts fixed so each run takes well under a second.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace strata::cli_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kFast = " --iters 10 --warmup 1 --copy-size 16MiB";

// Columns of an all_reduce row; other ops have no membw and mem%, so their
// #wrong, iters and algorithm come two columns earlier.
enum Column {
  kSize, kCount, kType, kRedop, kRoot, kTime, kModel, kAlgbw, kBusbw, kMembw, kMemPct,
  kWrong, kIters, kAlgorithm, kColumns
};

double num(const std::string& s) { return std::stod(s); }

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(CliBench, TinySweepIsCorrectAndItsBandwidthsAddUp) {
  const CliResult r = run_cli("bench -b 8B -e 1KiB --algorithm all" + kFast);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto rows = bench_rows(r.out);
  ASSERT_GE(rows.size(), 8u * 4u);  // 8 sizes x (3+ algorithms + auto)
  ASSERT_EQ(rows.size() % 8, 0u);
  std::set<std::string> algorithms;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), size_t{kColumns}) << r.out;
    const double size = num(row[kSize]);
    EXPECT_EQ(num(row[kCount]), size / 4);
    EXPECT_EQ(row[kType], "f32");
    EXPECT_EQ(row[kRedop], "sum");
    EXPECT_EQ(row[kRoot], "-1");
    EXPECT_EQ(row[kWrong], "0") << "#wrong in: " << r.out;
    const double time_us = num(row[kTime]);
    const double algbw = num(row[kAlgbw]);
    ASSERT_GT(time_us, 0);
    // Printed with 2 and 3 decimals: allow their rounding, nothing more.
    EXPECT_NEAR(algbw, size / time_us / 1e3, 6e-4 + 1e-3 * algbw);
    EXPECT_NEAR(num(row[kBusbw]), algbw * 2 * 3 / 4, 1.5e-3);  // 2(n-1)/n, n = 4
    EXPECT_NEAR(num(row[kMembw]), 2 * 4 * size / time_us / 1e3, 6e-4 + 1e-3 * algbw * 8);
    algorithms.insert(row[kAlgorithm]);
  }
  EXPECT_TRUE(algorithms.count("hierarchical_copy/all_reduce/scatter_reduce"));
  EXPECT_TRUE(algorithms.count("hierarchical_copy/all_reduce/reduction_to_one_device"));
  bool auto_row = false;
  for (const auto& a : algorithms)
    auto_row = auto_row || a.rfind("auto:hierarchical_copy/", 0) == 0;
  EXPECT_TRUE(auto_row);
  EXPECT_EQ(rows.front()[kSize], "8");
  EXPECT_EQ(rows.back()[kSize], "1024");
  EXPECT_THAT(r.out, AllOf(HasSubstr("# copy bandwidth: "), HasSubstr("busbw = algbw * 1.5"),
                           HasSubstr("#wrong: 0 in total (OK)")));
}

TEST(CliBench, JsonHoldsEveryRowAndTheHeaderFacts) {
  const std::string path = temp_path("bench.json");
  const CliResult r =
      run_cli("bench -b 64B -e 4KiB -f 4 --algorithm all --json '" + path + "'" + kFast);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = read_json(path);
  EXPECT_THAT(j.at("command_line").get<std::string>(), HasSubstr("--json"));
  EXPECT_EQ(j.at("op"), "all_reduce");
  EXPECT_EQ(j.at("devices").size(), 4u);
  EXPECT_EQ(j.at("timing").at("statistic"), "median");
  EXPECT_EQ(j.at("timing").at("iters"), 10);
  const double copy_gbps = j.at("machine").at("copy_bandwidth_gbps");
  EXPECT_GT(copy_gbps, 0);
  const size_t algos = j.at("algorithms").size();
  EXPECT_EQ(j.at("algorithms").back(), "auto");
  ASSERT_EQ(j.at("rows").size(), 4 * algos);  // 64 B, 256 B, 1 KiB, 4 KiB
  for (const auto& row : j.at("rows")) {
    ASSERT_EQ(row.at("outcome"), "ok") << row.dump();
    EXPECT_EQ(row.at("wrong"), 0);
    const double size = row.at("size"), t = row.at("time_us"), algbw = row.at("algbw_gbps");
    EXPECT_DOUBLE_EQ(algbw, size / t / 1e3);
    EXPECT_DOUBLE_EQ(row.at("busbw_gbps").get<double>(), algbw * 1.5);
    EXPECT_DOUBLE_EQ(row.at("membw_gbps").get<double>(), 8 * size / t / 1e3);
    EXPECT_NEAR(row.at("membw_fraction").get<double>(), 8 * size / t / 1e3 / copy_gbps, 1e-12);
    EXPECT_LE(row.at("min_us").get<double>(), t);
    EXPECT_EQ(row.at("iters"), 10);
  }
}

TEST(CliBench, CsvHasTheHeaderFactsThenOneLinePerRow) {
  const std::string path = temp_path("bench.csv");
  const CliResult r = run_cli("bench -b 8B -e 32B --csv '" + path + "'" + kFast);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(path);
  std::string line;
  int comments = 0, data = 0;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.rfind('#', 0) == 0) {
      ++comments;
    } else if (!header) {
      EXPECT_THAT(line, StartsWith("size,count,type,redop,root,algorithm,"));
      header = true;
    } else {
      ++data;
      EXPECT_EQ(std::count(line.begin(), line.end(), ','), 16) << line;
      EXPECT_THAT(line, HasSubstr(",f32,sum,-1,auto,hierarchical_copy/all_reduce/"));
    }
  }
  EXPECT_GT(comments, 3);
  EXPECT_EQ(data, 3);  // 8, 16, 32 B
}

TEST(CliBench, WrongResultsAreCountedAndFailTheRun) {
  const CliResult r = run_cli("bench -b 8B -e 64B --algorithm cli_test/all_reduce/broken" + kFast,
                              test_plugin_dir());
  EXPECT_EQ(r.exit_code, 1);
  const auto rows = bench_rows(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  for (const auto& row : rows) EXPECT_EQ(row[kWrong], "4") << r.out;  // one per replica
  EXPECT_THAT(r.out, HasSubstr("#wrong: 16 in total (WRONG RESULTS)"));

  const CliResult unchecked =
      run_cli("bench -b 8B -e 64B --algorithm broken --no-check" + kFast, test_plugin_dir());
  EXPECT_EQ(unchecked.exit_code, 0) << unchecked.err;
  for (const auto& row : bench_rows(unchecked.out)) EXPECT_EQ(row[kWrong], "N/A");
}

TEST(CliBench, SizesAnAlgorithmDeclinesShowDeclined) {
  const CliResult r =
      run_cli("bench -b 32KiB -e 128KiB --algorithm picky" + kFast, test_plugin_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = bench_rows(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_EQ(rows[1][kWrong], "0");
  EXPECT_EQ(rows[2][kSize], "131072");
  EXPECT_EQ(rows[2][kTime], "declined");
  EXPECT_EQ(rows[2][kAlgorithm], "cli_test/all_reduce/picky");
  EXPECT_THAT(r.out, HasSubstr("# declined: cli_test/all_reduce/picky at 1 size(s): "
                               "cli_test declines calls over 64 KiB"));
}

TEST(CliBench, AutoRowsNameWhatTheSelectorPicked) {
  const CliResult r = run_cli("bench -b 32KiB -e 128KiB" + kFast, test_plugin_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = bench_rows(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_EQ(rows[0][kAlgorithm], "auto:cli_test/all_reduce/picky");
  EXPECT_EQ(rows[1][kAlgorithm], "auto:cli_test/all_reduce/picky");
  EXPECT_THAT(rows[2][kAlgorithm], StartsWith("auto:hierarchical_copy/all_reduce/"));
}

TEST(CliBench, OtherCollectivesUseTheirBusFactorAndPassTheCheck) {
  struct Case {
    std::string args;
    double factor;
  } cases[] = {{"--op all_gather", 0.75},
               {"--op all_gather --in-place --dtype bf16", 0.75},
               {"--op reduce_scatter --redop max --dtype i32", 0.75},
               {"--op reduce_scatter --in-place --redop mean --dtype f16", 0.75},
               {"--op broadcast --root 2 --dtype u8", 1.0},
               {"--op reduce --root 3 --redop prod --in-place", 1.0},
               {"--op all_reduce --redop min --in-place --dtype f64", 1.5}};
  for (const Case& c : cases) {
    const std::string path = temp_path("op.json");
    const CliResult r =
        run_cli("bench -b 1KiB -e 4KiB --algorithm all --json '" + path + "' " + c.args + kFast);
    ASSERT_EQ(r.exit_code, 0) << c.args << "\n" << r.err << r.out;
    const auto j = read_json(path);
    EXPECT_DOUBLE_EQ(j.at("busbw_factor").get<double>(), c.factor) << c.args;
    ASSERT_GE(j.at("rows").size(), 3u * 2u) << c.args;
    for (const auto& row : j.at("rows")) {
      ASSERT_EQ(row.at("outcome"), "ok") << c.args << row.dump();
      EXPECT_EQ(row.at("wrong"), 0) << c.args << row.dump();
      EXPECT_DOUBLE_EQ(row.at("busbw_gbps").get<double>(),
                       row.at("algbw_gbps").get<double>() * c.factor);
    }
    const bool all_reduce = c.args.find("all_reduce") != std::string::npos;
    for (const auto& row : bench_rows(r.out)) EXPECT_EQ(row.size(), all_reduce ? size_t{kColumns} : size_t{kColumns} - 2);
  }
}

TEST(CliBench, StagesDataThroughTheDeviceTypeWhenTheHostCannotReadIt) {
  // cli_staged hands out poisoned pointers: touching one from the host
  // crashes, so passing means bench filled and checked every buffer through
  // copy_async, and every algorithm that ran was right.
  for (const std::string op : {"all_reduce", "all_gather", "reduce_scatter --in-place"}) {
    const std::string path = temp_path("staged.json");
    const CliResult r = run_cli(
        "bench --device-type cli_staged --algorithm all -b 16B -e 4KiB "
        "-f 16 --json '" +
            path + "' --op " + op + kFast,
        test_plugin_dir());
    ASSERT_EQ(r.exit_code, 0) << op << "\n" << r.err << r.out;
    // The host's copy bandwidth says nothing about device memory: no membw.
    if (op == "all_reduce") {
      EXPECT_THAT(r.out, HasSubstr("# cli_staged memory is not host memory: no membw or mem% "
                                   "columns"));
    }
    int ran = 0;
    const auto j = read_json(path);  // the loop below must not outlive it
    for (const auto& row : j.at("rows")) {
      EXPECT_FALSE(row.contains("membw_gbps")) << row.dump();
      if (row.at("outcome") == "declined") continue;
      ASSERT_EQ(row.at("outcome"), "ok") << row.dump();
      EXPECT_EQ(row.at("wrong"), 0) << op << row.dump();
      ++ran;
    }
    for (const auto& row : bench_rows(r.out)) {
      EXPECT_EQ(row.size(), size_t{kColumns} - 2) << op;
    }
    EXPECT_GE(ran, 3 * 2) << op;  // at least two algorithms over three sizes
  }
  const CliResult r = run_cli(
      "bench --device-type cli_staged --algorithm scatter_reduce -b 1KiB "
      "-e 1KiB" +
          kFast,
      test_plugin_dir());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# declined: hierarchical_copy/all_reduce/scatter_reduce at 1 "
                               "size(s): cli_staged:0 cannot read cli_staged:1's memory"));
}

TEST(CliBench, BadArgumentsGetClearErrors) {
  struct Case {
    std::string args;
    std::string message;
  } cases[] = {
      {"-b 6B", "6 B is not a whole number of f32 elements"},
      {"-b 1MiB -e 1KiB", "-b 1MiB is larger than -e 1KiB"},
      {"--algorithm nope",
       "matches no all_reduce algorithm(s); use auto, all, or one of:\n  "},
      {"--op all_reduce --algorithm hierarchical_copy/broadcast/one_device", "matches no"},
      {"--iters zero", "--iters 'zero' is not 'auto' or a count >= 1"},
      {"--op broadcast --root 4", "--root 4 is not a replica (0..3)"},
      {"--json /nonexistent/dir/x.json", "cannot open '/nonexistent/dir/x.json'"},
      {"--op gather", "unknown collective 'gather'"},
  };
  for (const Case& c : cases) {
    // --iters may be given once only: a case about it brings its own.
    const bool own_iters = c.args.find("--iters") != std::string::npos;
    const CliResult r = run_cli("bench " + c.args + (own_iters ? "" : kFast));
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_THAT(r.err, AllOf(HasSubstr("strata bench: "), HasSubstr(c.message))) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
  EXPECT_EQ(run_cli("bench -f 1").exit_code, 2);
}

}  // namespace
}  // namespace strata::cli_test
