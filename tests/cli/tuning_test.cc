// `strata bench --tune FILE` and `collectives.tuning: FILE`: bench writes the
// medians it measured, merging runs; explain (and AUTO at run time) then
// ranks measured algorithms first, fastest first, whatever the models say.
// Errors come before any sweep and leave an existing file alone.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/collective/tuning_table.h"

namespace strata::cli_test {
namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// 4 KiB, 16 KiB, 64 KiB on 2 devices, a few milliseconds per size.
const std::string kSweep =
    " -b 4KiB -e 64KiB -f 4 --devices 2 --time-per-size 10ms --max-iters 200 --warmup 1 "
    "--copy-size 1MiB";
const std::string kQuick = " --iters 5 --warmup 1 --copy-size 1MiB";
const std::string kHierarchical = "hierarchical_copy/all_reduce/hierarchical";
const std::string kScatter = "hierarchical_copy/all_reduce/scatter_reduce";
const std::string kToOne = "hierarchical_copy/all_reduce/reduction_to_one_device";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// The hierarchical_copy algorithms for `op`, as `strata info` lists them.
std::vector<std::string> in_tree_algorithms(const std::string& op) {
  const CliResult r = run_cli("info --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> ids;
  const auto info = nlohmann::json::parse(r.out);  // the loop below must not outlive it
  for (const auto& a : info.at("algorithms")) {
    const std::string id = a.at("id");
    if (a.at("op").get<std::string>() == op && id.rfind("hierarchical_copy/", 0) == 0)
      ids.push_back(id);
  }
  EXPECT_GE(ids.size(), 3u) << op;
  return ids;
}

TuningKey cpu_key(CollectiveKind op, int devices, DType dtype = DType::kF32) {
  TuningKey key;
  key.op = op;
  key.device_type = "cpu";
  key.local_devices = devices;
  key.dtype = dtype;
  return key;
}

TuningTable load(const std::string& path) {
  auto table = TuningTable::load(path);
  EXPECT_TRUE(table.ok()) << table.status() << "\n" << read_text(path);
  return table.ok() ? std::move(*table) : TuningTable();
}

// A config next to `tuning_path` that names it by its file name alone:
// relative paths are resolved against the config, not the working directory.
std::string config_for(const std::string& tuning_path, const std::string& more = "") {
  const std::filesystem::path tuning(tuning_path);
  const std::string config =
      (tuning.parent_path() / ("config_" + tuning.stem().string() + ".yaml")).string();
  write_text(config,
             "strata: 1\ncollectives:\n  tuning: " + tuning.filename().string() + "\n" + more);
  return config;
}

// All-reduce f32 on 4 devices, 4 KiB to 64 KiB: hierarchical, the models'
// slowest, is measured fastest (10 us to 160 us: 40 us at 16 KiB on the
// log-log line), scatter_reduce and reduction_to_one_device far slower.
std::string hand_written_tuning() {
  const std::string path = temp_path("hand.yaml");
  std::string text = "strata_tuning: 1\ncommand: written by hand\nentries:\n";
  for (const auto& [id, times] :
       std::map<std::string, std::string>{{kHierarchical, "{4KiB: 10, 64KiB: 160}"},
                                          {kScatter, "{4096: 500, 65536: 8000}"},
                                          {kToOne, "{4096: 600, 65536: 9000}"}}) {
    text +=
        "  - {op: all_reduce, device_type: cpu, processes: 1, local_devices: 4, dtype: f32, "
        "algorithm: " +
        id + ", times_us: " + times + "}\n";
  }
  write_text(path, text);
  return path;
}

TEST(CliTuning, BenchWritesEveryAlgorithmsMedianAndMergesAnotherOp) {
  const std::string file = temp_path("tuning.yaml");
  const std::string json = temp_path("bench.json");
  const CliResult r =
      run_cli("bench --algorithm all --tune " + quoted(file) + " --json " + quoted(json) + kSweep);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::vector<std::string> all_reduce = in_tree_algorithms("all_reduce");
  EXPECT_THAT(r.out, HasSubstr("# tuning: " + std::to_string(all_reduce.size()) +
                               " algorithm(s) measured, merged into " + file));
  const std::string text = read_text(file);
  EXPECT_THAT(text, AllOf(StartsWith("strata_tuning: 1\n"), HasSubstr("--tune"),
                          Not(HasSubstr("algorithm: auto"))));
  const TuningTable first = load(file);
  EXPECT_EQ(first.shape_count(), 1u);  // one shape: all_reduce f32 on 1 x 2 cpu
  const TuningKey key = cpu_key(CollectiveKind::kAllReduce, 2);
  for (const std::string& id : all_reduce) {
    for (uint64_t bytes : {4096u, 16384u, 65536u}) {
      EXPECT_TRUE(first.lookup(key, id, bytes).has_value()) << id << " at " << bytes << "\n"
                                                            << text;
    }
    EXPECT_FALSE(first.lookup(key, id, 65537).has_value()) << id;  // nothing past the sweep
    EXPECT_FALSE(first.lookup(cpu_key(CollectiveKind::kAllReduce, 4), id, 4096)) << id;
  }
  // What the file holds is the median bench reported, row for row.
  int compared = 0;
  std::ifstream in(json);
  const auto report = nlohmann::json::parse(in);
  for (const auto& row : report.at("rows")) {
    if (row.at("algorithm") == "auto") continue;
    const auto seconds =
        first.lookup(key, row.at("algorithm").get<std::string>(), row.at("size").get<uint64_t>());
    ASSERT_TRUE(seconds.has_value()) << row.dump();
    EXPECT_NEAR(*seconds * 1e6, row.at("time_us").get<double>(),
                1e-5 * row.at("time_us").get<double>())
        << row.dump();
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(3 * all_reduce.size()));

  // Another op merges into the same file; all_reduce's entries stay as they were.
  const CliResult b =
      run_cli("bench --algorithm all --op broadcast --tune " + quoted(file) + kSweep);
  ASSERT_EQ(b.exit_code, 0) << b.err << b.out;
  const TuningTable merged = load(file);
  EXPECT_EQ(merged.shape_count(), 2u);
  for (const std::string& id : all_reduce) {
    EXPECT_EQ(merged.lookup(key, id, 16384), first.lookup(key, id, 16384)) << id;
  }
  for (const std::string& id : in_tree_algorithms("broadcast")) {
    EXPECT_TRUE(merged.lookup(cpu_key(CollectiveKind::kBroadcast, 2), id, 16384)) << id;
  }
  EXPECT_THAT(read_text(file), HasSubstr("--op broadcast"));  // the latest command
  // Written atomically: nothing but the file is left beside it.
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(file).parent_path())) {
    EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr("tuning.yaml."))) << entry.path();
  }
}

TEST(CliTuning, DeclinedAndWrongRowsAreNotMeasurements) {
  const std::string file = temp_path("tuning.yaml");
  const CliResult picky =
      run_cli("bench -b 32KiB -e 128KiB --algorithm picky --tune " + quoted(file) + kQuick,
              test_plugin_dir());
  ASSERT_EQ(picky.exit_code, 0) << picky.err;
  const CliResult broken =
      run_cli("bench -b 32KiB -e 64KiB --algorithm broken --tune " + quoted(file) + kQuick,
              test_plugin_dir());
  EXPECT_EQ(broken.exit_code, 1);  // wrong results
  EXPECT_THAT(broken.out, HasSubstr("# tuning: 0 algorithm(s) measured"));
  const TuningTable table = load(file);
  const TuningKey key = cpu_key(CollectiveKind::kAllReduce, 4);
  EXPECT_TRUE(table.lookup(key, "cli_test/all_reduce/picky", 65536));
  EXPECT_FALSE(table.lookup(key, "cli_test/all_reduce/picky", 131072));  // declined there
  EXPECT_FALSE(table.lookup(key, "cli_test/all_reduce/broken", 32768));
  EXPECT_THAT(read_text(file), Not(HasSubstr("algorithm: cli_test/all_reduce/broken")));
}

TEST(CliTuning, ExplainRanksWhatWasMeasuredFirstAndSaysWhere) {
  const std::string file = temp_path("measured.yaml");
  ASSERT_EQ(run_cli("bench --algorithm all --tune " + quoted(file) + kSweep).exit_code, 0);
  const std::string config = config_for(file);
  const std::vector<std::string> ids = in_tree_algorithms("all_reduce");
  const TuningTable table = load(file);
  const TuningKey key = cpu_key(CollectiveKind::kAllReduce, 2);
  std::string fastest;
  for (const auto& id : ids) {
    if (fastest.empty() || *table.lookup(key, id, 16384) < *table.lookup(key, fastest, 16384)) {
      fastest = id;
    }
  }

  const CliResult r = run_cli("explain all_reduce 16KiB --devices 2 --config " + quoted(config));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("tuning: " + file + " (1 measured shape(s)"));
  EXPECT_THAT(r.out, ContainsRegex("# +algorithm +source +estimate +measured +verdict"));
  for (const auto& id : ids) {
    EXPECT_THAT(r.out, ContainsRegex(" " + id +
                                     " +auto +[0-9.]+ [um]s +[0-9.]+ [um]s +"
                                     "(selected|not tried)\n"))
        << id;
  }
  EXPECT_THAT(r.out, HasSubstr("winner: " + fastest + "\n"));
  EXPECT_THAT(r.out, ContainsRegex("why: +fastest measured \\([0-9.]+ us in " + file + "\\)"));

  const CliResult j =
      run_cli("explain all_reduce 16KiB --devices 2 --json --config " + quoted(config));
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc.at("winner"), fastest);
  bool measured_part = true;
  double previous = 0;
  size_t measured = 0;
  for (const auto& c : doc.at("candidates")) {
    const std::string id = c.at("algorithm");
    const bool in_tree = std::find(ids.begin(), ids.end(), id) != ids.end();
    ASSERT_EQ(c.at("measured_seconds").is_null(), !in_tree) << c.dump();
    if (!in_tree) {
      measured_part = false;
      continue;
    }
    // Measured candidates lead, fastest first, with the file's numbers.
    EXPECT_TRUE(measured_part) << "a measured candidate after an unmeasured one: " << j.out;
    const double seconds = c.at("measured_seconds");
    EXPECT_DOUBLE_EQ(seconds, *table.lookup(key, id, 16384)) << id;
    EXPECT_GE(seconds, previous) << id;
    previous = seconds;
    ++measured;
  }
  EXPECT_EQ(measured, ids.size());

  // Outside the sweep, another team shape, or a dtype of another width:
  // nothing was measured, AUTO falls back to the models and says so.
  for (const std::string args : {"1MiB --devices 2", "1KiB --devices 2", "16KiB --devices 4",
                                 "16KiB --devices 2 --dtype f64"}) {
    const CliResult o =
        run_cli("explain all_reduce " + args + " --json --config " + quoted(config));
    ASSERT_EQ(o.exit_code, 0) << args << o.err;
    const auto d = nlohmann::json::parse(o.out);
    EXPECT_THAT(d.at("reason").get<std::string>(),
                AllOf(StartsWith("lowest estimate"),
                      HasSubstr(file + " has no measurement that covers it")))
        << args;
    for (const auto& c : d.at("candidates"))
      EXPECT_TRUE(c.at("measured_seconds").is_null()) << args;
  }
  // A dtype of the same width stands in for the one measured.
  const CliResult i32 =
      run_cli("explain all_reduce 16KiB --devices 2 --dtype i32 --config " + quoted(config));
  ASSERT_EQ(i32.exit_code, 0) << i32.err;
  EXPECT_THAT(i32.out,
              AllOf(HasSubstr("winner: " + fastest + "\n"), HasSubstr("fastest measured")));
}

TEST(CliTuning, AMeasurementBeatsTheModelsInExplainAndAtRunTime) {
  const std::string file = hand_written_tuning();
  const std::string config = config_for(file);
  // Without the file the models pick something else: the test means something.
  const CliResult model = run_cli("explain all_reduce 16KiB --devices 4");
  ASSERT_EQ(model.exit_code, 0) << model.err;
  EXPECT_THAT(model.out, AllOf(Not(HasSubstr("winner: " + kHierarchical)),
                               Not(HasSubstr("tuning:")), HasSubstr("lowest estimate")));

  const CliResult r = run_cli("explain all_reduce 16KiB --devices 4 --config " + quoted(config));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex(" 1 +" + kHierarchical +
                                   " +auto +[0-9.]+ us +40\\.00 us +"
                                   "selected\n"));
  EXPECT_THAT(r.out,
              ContainsRegex(" 2 +" + kScatter + " +auto +[0-9.]+ us +2\\.000 ms +not tried"));
  EXPECT_THAT(r.out, ContainsRegex(" 3 +" + kToOne + " +auto +[0-9.]+ us +[0-9.]+ ms +not tried"));
  EXPECT_THAT(r.out, HasSubstr("winner: " + kHierarchical +
                               "\nwhy:    fastest measured (40.00 us "
                               "in " +
                               file + ") among the algorithms that accept the call"));

  // AUTO at run time reads the same file: bench's auto row runs hierarchical.
  const CliResult b = run_cli("bench -b 16KiB -e 16KiB --config " + quoted(config) + kQuick);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto rows = bench_rows(b.out);
  ASSERT_EQ(rows.size(), 1u) << b.out;
  EXPECT_EQ(rows[0].back(), "auto:" + kHierarchical);

  // A rule, and implementation:, are an operator's explicit choice: they
  // still beat the measurement.
  const CliResult ruled = run_cli(
      "explain all_reduce 16KiB --devices 4 --config " +
      quoted(config_for(file, "  rules:\n    - {op: all_reduce, use: " + kScatter + "}\n")));
  ASSERT_EQ(ruled.exit_code, 0) << ruled.err;
  EXPECT_THAT(ruled.out, AllOf(HasSubstr("winner: " + kScatter + "\n"),
                               ContainsRegex("why: +chosen by collectives.rules\\[")));
  const CliResult impl = run_cli("explain all_reduce 16KiB --devices 4 --config " +
                                 quoted(config_for(file, "  implementation: " + kToOne + "\n")));
  ASSERT_EQ(impl.exit_code, 0) << impl.err;
  EXPECT_THAT(impl.out, HasSubstr("winner: " + kToOne + "\nwhy:    chosen by implementation:"));
}

TEST(CliTuning, AMeasuredAlgorithmThatDeclinesHandsOverAndTheReasonSaysSo) {
  // picky is measured fastest up to 1 MiB but declines calls over 64 KiB.
  const std::string file = temp_path("picky.yaml");
  write_text(file,
             "strata_tuning: 1\nentries:\n  - {op: all_reduce, device_type: cpu, local_devices: "
             "4, algorithm: cli_test/all_reduce/picky, times_us: {1KiB: 1, 1MiB: 2}}\n");
  const std::string config = config_for(file);
  const CliResult small =
      run_cli("explain all_reduce 16KiB --config " + quoted(config), test_plugin_dir());
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_THAT(small.out, AllOf(HasSubstr("winner: cli_test/all_reduce/picky\n"),
                               HasSubstr("why:    fastest measured")));
  const CliResult big =
      run_cli("explain all_reduce 256KiB --config " + quoted(config), test_plugin_dir());
  ASSERT_EQ(big.exit_code, 0) << big.err;
  EXPECT_THAT(big.out, ContainsRegex(" 1 +cli_test/all_reduce/picky +auto +[0-9.]+ us +[0-9.]+ us "
                                     "+declined: cli_test declines calls over 64 KiB"));
  EXPECT_THAT(big.out, AllOf(ContainsRegex("winner: hierarchical_copy/all_reduce/[a-z_]+\n"),
                             HasSubstr("why:    lowest estimate"),
                             Not(HasSubstr("has no measurement that covers it")),
                             HasSubstr(file + " measured only algorithms that declined the call")));
}

TEST(CliTuning, TuneErrorsComeBeforeTheSweepAndLeaveFilesAlone) {
  EXPECT_THAT(run_cli("bench --help").out, HasSubstr("--tune"));
  const CliResult with_auto = run_cli("bench --tune " + quoted(temp_path("auto.yaml")) + kQuick);
  EXPECT_EQ(with_auto.exit_code, 1);
  EXPECT_THAT(with_auto.err,
              AllOf(HasSubstr("strata bench: "), HasSubstr("--tune"), HasSubstr("not auto")));
  EXPECT_EQ(with_auto.out, "");
  EXPECT_FALSE(std::filesystem::exists(temp_path("auto.yaml")));

  // Files that are there but are not tuning files: garbage, and a config.
  for (const std::string text : {"hello: [\n", "strata: 1\ncollectives: {timeout: 5s}\n",
                                 "strata_tuning: 2\nentries: []\n"}) {
    const std::string file = temp_path("not_tuning.yaml");
    write_text(file, text);
    const CliResult r = run_cli("bench --algorithm all --tune " + quoted(file) + kQuick);
    EXPECT_EQ(r.exit_code, 1) << text;
    EXPECT_THAT(r.err, AllOf(HasSubstr("--tune " + file +
                                       " exists but cannot be merged into: " + file + ":"),
                             HasSubstr("move it away or name another file")))
        << text;
    EXPECT_EQ(r.out, "") << "the sweep must not start: " << text;
    EXPECT_EQ(read_text(file), text);
  }

  const CliResult no_dir = run_cli("bench --algorithm all --tune /nonexistent/dir/t.yaml" + kQuick);
  EXPECT_EQ(no_dir.exit_code, 1);
  EXPECT_THAT(no_dir.err, HasSubstr("--tune /nonexistent/dir/t.yaml: cannot write into "
                                    "'/nonexistent/dir'"));
  EXPECT_EQ(no_dir.out, "");

  // A run that fails for another reason before the sweep creates nothing.
  const std::string unmade = temp_path("unmade.yaml");
  EXPECT_EQ(run_cli("bench --algorithm nope --tune " + quoted(unmade) + kQuick).exit_code, 1);
  EXPECT_FALSE(std::filesystem::exists(unmade));
}

TEST(CliTuning, AConfigNamingABadTuningFileIsAnErrorNamingIt) {
  const std::string dir = std::filesystem::path(temp_path("x")).parent_path().string();
  const CliResult missing =
      run_cli("explain all_reduce 1MiB --config " + quoted(config_for(dir + "/missing.yaml")));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, AllOf(HasSubstr("strata explain: "), HasSubstr("collectives.tuning"),
                                 HasSubstr("'" + dir + "/missing.yaml' does not exist")));
  EXPECT_EQ(missing.out, "");

  const std::string bad = temp_path("bad.yaml");
  write_text(bad,
             "strata_tuning: 1\nentries:\n  - {op: all_reduce, device_type: cpu, "
             "algorithm: x, times_us: {4096: -3}}\n");
  const CliResult malformed =
      run_cli("explain all_reduce 1MiB --config " + quoted(config_for(bad)));
  EXPECT_EQ(malformed.exit_code, 1);
  EXPECT_THAT(malformed.err,
              AllOf(HasSubstr("collectives.tuning: " + bad + ":3:"), HasSubstr("greater than 0")));
  // bench reads the same config the same way, before it measures anything.
  const CliResult bench = run_cli("bench --config " + quoted(config_for(bad)) + kQuick);
  EXPECT_EQ(bench.exit_code, 1);
  EXPECT_THAT(bench.err, HasSubstr(bad + ":3:"));
  EXPECT_EQ(bench.out, "");
}

}  // namespace
}  // namespace strata::cli_test
