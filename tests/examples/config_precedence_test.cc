// The example programs take their config as every Strata program does:
// --config, else STRATA_CONFIG, else their default (docs/CONFIG.md). So
// `strata launch -n 2 --config FILE -- train_digits` is one job of two
// workers (issue 24: it used to be two unrelated Mirrored jobs, since
// nothing read STRATA_CONFIG), and a bad path from either source stops the
// program with an error naming it.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/command_run.h"
#include "tests/examples/worker_output.h"

namespace strata::testing {
namespace {

const std::string kConfigs = std::string(STRATA_SOURCE_DIR) + "/configs/";
const std::string kTrainDigits = STRATA_TRAIN_DIGITS;
const std::string kDense = STRATA_DENSE_Y_EQUALS_X;
const std::string kMissing = "/nonexistent/strata-precedence.yaml";
// A developer's own STRATA_CONFIG must not leak into the runs.
const std::string kEnv = "env -u STRATA_CONFIG STRATA_LOG_LEVEL=warning ";

std::string with_strata_config(const std::string& path) {
  return kEnv + "STRATA_CONFIG='" + path + "' ";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `strata launch -n 2 --config CONFIG -- PROGRAM ARGS` must be one job: each
// worker names its place in it, and (train_digits) prints the job's figures.
CommandRun expect_one_job(const std::string& config, const std::string& program,
                          const std::string& strategy_line) {
  const CommandRun r = run_command(kEnv + STRATA_CLI + " launch -q --timeout 150s -n 2 --config " +
                                   config + " -- " + program);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto by_worker = lines_by_worker(r.output);
  EXPECT_EQ(by_worker.size(), 2u) << r.output;
  for (const auto& [rank, lines] : by_worker) {
    std::string all;
    for (const std::string& l : lines) all += l + "\n";
    EXPECT_TRUE(
        contains(all, strategy_line + " on worker " + std::to_string(rank) + " of 2 (2 replicas)"))
        << all;
    EXPECT_FALSE(contains(all, "mirrored over cpu:0 .. cpu:3")) << "a Mirrored job of its own";
    EXPECT_EQ(train_digits_figures(lines), train_digits_figures(by_worker[0])) << "worker " << rank;
  }
  return r;
}

TEST(ConfigPrecedence, LaunchConfigFormsOneGrpcRingJobOfTrainDigits) {
  const std::string config = kConfigs + "multi_worker_grpc_ring.yaml";
  const CommandRun r =
      expect_one_job(config, kTrainDigits + " --epochs 2", "multi_worker_mirrored over cpu:0");
  EXPECT_TRUE(contains(r.output, "[worker-1] config: " + config + " (from STRATA_CONFIG)"))
      << r.output;
}

TEST(ConfigPrecedence, LaunchConfigFormsOneJobOfDenseYEqualsX) {
  (void)expect_one_job(kConfigs + "multi_worker_grpc_ring.yaml", kDense,
                       "Using multi_worker_mirrored over cpu:0");
}

#ifdef STRATA_HAVE_MPI
// The issue's own command: the mpi plugin's config, through ompi-server.
TEST(ConfigPrecedence, LaunchConfigFormsOneMpiJobOfTrainDigits) {
  (void)expect_one_job(kConfigs + "multi_worker_mirrored_cpu.yaml", kTrainDigits + " --epochs 2",
                       "multi_worker_mirrored over cpu:0");
}
#endif

TEST(ConfigPrecedence, ABadStrataConfigStopsTheProgramNamingIt) {
  for (const std::string& program : {kTrainDigits, kDense}) {
    const CommandRun r = run_command(with_strata_config(kMissing) + program);
    EXPECT_EQ(r.exit_code, 1) << program << "\n" << r.output;
    EXPECT_TRUE(contains(
        r.output, "config given by STRATA_CONFIG: config file '" + kMissing + "' does not exist"))
        << program << "\n"
        << r.output;
    EXPECT_FALSE(contains(r.output, "epoch 1/")) << "it trained anyway:\n" << r.output;
  }
}

TEST(ConfigPrecedence, ABadConfigFlagStopsTheProgramNamingIt) {
  for (const std::string& program : {kTrainDigits, kDense}) {
    const CommandRun r = run_command(kEnv + program + " --config " + kMissing);
    EXPECT_EQ(r.exit_code, 1) << program << "\n" << r.output;
    EXPECT_TRUE(contains(r.output,
                         "config given by --config: config file '" + kMissing + "' does not exist"))
        << program << "\n"
        << r.output;
  }
}

TEST(ConfigPrecedence, TheFlagBeatsStrataConfig) {
  const std::string one_device = kConfigs + "one_device_cpu.yaml";
  const CommandRun r = run_command(with_strata_config(kMissing) + kTrainDigits +
                                   " --epochs 2 --config " + one_device);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "config: " + one_device + " (from --config)")) << r.output;
  EXPECT_TRUE(contains(r.output, "strategy: one_device over cpu:0 (1 replica)")) << r.output;
}

TEST(ConfigPrecedence, StrataConfigBeatsTheProgramsDefault) {
  const std::string one_device = kConfigs + "one_device_cpu.yaml";
  const CommandRun train =
      run_command(with_strata_config(one_device) + kTrainDigits + " --epochs 2");
  ASSERT_EQ(train.exit_code, 0) << train.output;
  EXPECT_TRUE(contains(train.output, "config: " + one_device + " (from STRATA_CONFIG)"))
      << train.output;
  EXPECT_TRUE(contains(train.output, "strategy: one_device over cpu:0 (1 replica)"))
      << train.output;
  const CommandRun dense = run_command(with_strata_config(one_device) + kDense);
  ASSERT_EQ(dense.exit_code, 0) << dense.output;
  EXPECT_TRUE(contains(dense.output, "Using one_device over cpu:0 (1 replica)")) << dense.output;
  // --devices belongs to the built-in setup: with a config it is refused.
  const CommandRun both = run_command(with_strata_config(one_device) + kDense + " --devices 2");
  EXPECT_EQ(both.exit_code, 1) << both.output;
  EXPECT_TRUE(contains(both.output, "drop --devices or the config")) << both.output;
}

TEST(ConfigPrecedence, WithoutEitherTheDefaultApplies) {
  const CommandRun r = run_command(kEnv + "STRATA_CONFIG= " + kTrainDigits + " --epochs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "configs/mirrored_cpu.yaml (from the program's default)"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "strategy: mirrored over cpu:0 .. cpu:3 (4 replicas)"))
      << r.output;
}

}  // namespace
}  // namespace strata::testing
