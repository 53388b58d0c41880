// train_digits under MultiWorkerMirrored, as a user runs it: every worker
// must print the same figures (epoch losses and accuracies, test loss and
// accuracy, "on 360 images"), and they must be those of Mirrored on as many
// devices in one process, since the workers together take each global batch
// once (issue 24: with one device per worker each printed its own shard's
// figures while claiming all 360 images). One CTest entry per transport:
// grpc_ring under strata launch, mpi under mpirun.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/command_run.h"
#include "tests/examples/worker_output.h"

namespace strata::testing {
namespace {

const std::string kConfigs = std::string(STRATA_SOURCE_DIR) + "/configs/";
const std::string kTrainDigits = std::string(STRATA_TRAIN_DIGITS) + " --epochs 3";
// A developer's STRATA_CONFIG must not change what the programs load.
const std::string kEnv = "env -u STRATA_CONFIG STRATA_LOG_LEVEL=warning ";
// Only the order of the float sums differs from Mirrored's; epoch losses are
// printed to 4 decimals.
constexpr double kTolerance = 5e-4;

// The single-process figures of Mirrored on `devices` CPU devices.
std::vector<std::string> mirrored_figures(int devices) {
  const std::string config =
      devices == 4 ? kConfigs + "mirrored_cpu.yaml"
                   : std::string(STRATA_SOURCE_DIR) + "/tests/examples/mirrored_3_cpus.yaml";
  const CommandRun r = run_command(kEnv + kTrainDigits + " --config " + config);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto by_worker = lines_by_worker(r.output);
  return train_digits_figures(by_worker[0]);
}

// Runs `command` (a job of `workers` processes) and checks every worker's
// figures against worker 0's (identical) and against Mirrored on
// `replicas` devices.
void expect_job_wide_figures(const std::string& command, int workers, int replicas) {
  const std::vector<std::string> reference = mirrored_figures(replicas);
  ASSERT_EQ(reference.size(), 5u) << "before, 3 epochs, after";
  EXPECT_NE(reference.back().find(" on 360 images"), std::string::npos) << reference.back();

  const CommandRun r = run_command(command);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto by_worker = lines_by_worker(r.output);
  ASSERT_EQ(by_worker.size(), static_cast<size_t>(workers)) << r.output;
  const std::vector<std::string> chief = train_digits_figures(by_worker[0]);
  for (const auto& [rank, lines] : by_worker) {
    std::string all;
    for (const std::string& l : lines) all += l + "\n";
    const std::string strategy = "on worker " + std::to_string(rank) + " of " +
                                 std::to_string(workers) + " (" + std::to_string(replicas) +
                                 " replicas)";
    EXPECT_NE(all.find(strategy), std::string::npos) << all;
    const std::vector<std::string> mine = train_digits_figures(lines);
    // What every worker prints is the job's, so it is the chief's text.
    EXPECT_EQ(mine, chief) << "worker " << rank << " prints other figures than worker 0";
    ASSERT_EQ(mine.size(), reference.size()) << all;
    for (size_t i = 0; i < mine.size(); ++i) {
      EXPECT_EQ(compare_figures(mine[i], reference[i], kTolerance), "")
          << "worker " << rank << " against Mirrored on " << replicas << " devices";
    }
  }
}

TEST(MultiWorkerFigures, GrpcRingOneDevicePerWorkerPrintsTheJobsFigures) {
  expect_job_wide_figures(kEnv + STRATA_CLI + " launch -q --timeout 150s -n 3 -- " + kTrainDigits +
                              " --config " + kConfigs + "multi_worker_grpc_ring.yaml",
                          3, 3);
}

TEST(MultiWorkerFigures, GrpcRingTwoDevicesPerWorkerPrintsTheJobsFigures) {
  expect_job_wide_figures(
      kEnv + STRATA_CLI + " launch -q --timeout 150s -n 2 --devices-per-worker 2 -- " +
          kTrainDigits + " --config " + kConfigs + "multi_worker_grpc_ring.yaml",
      2, 4);
}

#ifdef STRATA_MPIEXEC
TEST(MultiWorkerFigures, MpiOneDevicePerWorkerPrintsTheJobsFigures) {
  expect_job_wide_figures(kEnv + "timeout -k 5 150 " + STRATA_MPIEXEC +
                              " -np 3 --oversubscribe --mca btl self,vader --tag-output"
                              " -x STRATA_DEVICES_PER_WORKER=1 " +
                              kTrainDigits + " --config " + kConfigs +
                              "multi_worker_mirrored_cpu.yaml",
                          3, 3);
}
#endif

}  // namespace
}  // namespace strata::testing
