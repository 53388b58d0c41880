// The digits demo across processes with every scheme: `strata launch -n 2
// --ps 2` runs two workers and two ps tasks (dense_0/kernel split over
// both). Each worker's trained center must classify the test images well,
// every ps must stop by itself once the workers are done (the launcher
// only returns when every process has exited), and all of it fast.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/command_run.h"

namespace {

using LaunchRun = strata::testing::CommandRun;

LaunchRun run(const std::string& command) { return strata::testing::run_command(command); }

// A worker's last line: "[worker-1] worker 1 (downpour): ran 92 steps, 23
// pushes in 0.2 s; center's test loss 0.34, accuracy 0.89 on 360 images".
// (Parsed by hand: GCC 12's std::regex trips -Wmaybe-uninitialized under ASan.)
struct WorkerSummary {
  std::string worker;
  int64_t steps = 0;
  double accuracy = 0;
};

std::vector<WorkerSummary> summaries(const std::string& output) {
  std::vector<WorkerSummary> found;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const size_t ran = line.find("): ran ");
    if (line.rfind("[worker-", 0) != 0 || ran == std::string::npos) continue;
    const size_t accuracy = line.find("accuracy ", ran);
    if (accuracy == std::string::npos) continue;
    found.push_back({line.substr(8, line.find(']') - 8), std::stoll(line.substr(ran + 7)),
                     std::stod(line.substr(accuracy + 9))});
  }
  return found;
}

class DigitsWithScheme : public ::testing::TestWithParam<const char*> {};

TEST_P(DigitsWithScheme, TwoWorkersTwoPsTrainAndEveryProcessEnds) {
  const std::string config =
      std::string(STRATA_SOURCE_DIR) + "/configs/parameter_server_" + GetParam() + ".yaml";
  const LaunchRun r = run(std::string(STRATA_CLI) + " launch -q --timeout 50s -n 2 --ps 2 -- " +
                    STRATA_TRAIN_DIGITS + " --epochs 8 --config " + config);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int workers = 0;
  int64_t steps = 0;
  for (const WorkerSummary& w : summaries(r.output)) {
    ++workers;
    steps += w.steps;
    // Untrained the center scores 0.06. Asynchronous schemes end wherever
    // the interleaving of pushes leaves them: idle runs reach 0.85-0.93, but
    // under a loaded sanitizer run agn ended at 0.794. 0.7 still means
    // "learned", without asking for one interleaving.
    EXPECT_GT(w.accuracy, 0.7) << GetParam() << ", worker " << w.worker << "\n" << r.output;
  }
  EXPECT_EQ(workers, 2) << r.output;
  EXPECT_EQ(steps, 8 * 23) << "every step of the job ran exactly once\n" << r.output;
  for (const char* ps : {"[ps-0] ps 0: every worker is done; stopping",
                         "[ps-1] ps 1: every worker is done; stopping"}) {
    EXPECT_NE(r.output.find(ps), std::string::npos) << r.output;
  }
  std::printf("%s: %.2f s\n", GetParam(), r.seconds);
}

INSTANTIATE_TEST_SUITE_P(ParameterServer, DigitsWithScheme,
                         ::testing::Values("hogwild", "downpour", "agn", "sagn", "sync",
                                           "dynamic_sgd", "aeasgd", "aeamsgd"));

}  // namespace
